"""The per-event log: opt-in, consistent with the summary's counters, and without
effect on the results."""

import pandas as pd

import mpcc
from mpcc.cli import main

MULTIPATH = """
duration = "20s"
sample_interval = "0s"
[links.a]
rate = "5Mbps"
delay = "10ms"
queue = { kind = "droptail", packets = 20 }
loss = { kind = "bernoulli", p = 0.01 }
[links.b]
rate = "2Mbps"
delay = "40ms"
queue = { kind = "droptail", packets = 10 }
[[flows]]
name = "mp"
cc = "lia"
subflows = [{ path = ["a"] }, { path = ["b"], start = "2s", stop = "12s" }]
[[flows]]
name = "tcp"
cc = "reno"
path = ["a"]
"""


def _without_wall(summary):
    return {**summary, "sim": {k: v for k, v in summary["sim"].items() if k != "wall_s"}}


def test_the_log_agrees_with_the_summary_and_changes_nothing():
    plain = mpcc.run(MULTIPATH, plots=False)
    logged = mpcc.run(MULTIPATH, plots=False, event_log=True)
    assert plain.events is None
    assert _without_wall(plain.summary) == _without_wall(logged.summary)
    e, flows = logged.events, logged.summary["flows"]
    count = lambda kind, flow: int(e[(e.kind == kind) & (e.flow == flow)]["count"].sum())  # noqa: E731
    for name, f in flows.items():
        assert count("drop", name) == f["drops"] > 0
        assert count("loss", name) == f["losses"]
        assert count("rto", name) == f["timeouts"]
        assert (e[(e.kind == "send") & (e.flow == name)].shape[0]) == f["sent_packets"]
    assert (e.kind == "receive").sum() == logged.summary["sim"]["packets"]
    on_off = e[e.kind.isin(["subflow_on", "subflow_off"]) & (e.flow == "mp")]
    # Each subflow opens when its SYN-ACK arrives (the linux profile's handshake): one
    # round trip after its start plus the SYN's serialisation (5 and 2 Mbit/s); an MPTCP
    # SYN is 76 bytes in the linux profile (its header with Linux's DSS, docs/mptcp.md).
    opened = [(k, s, round(t, 9)) for k, s, t in zip(on_off.kind, on_off.subflow, on_off.t_s)]
    assert opened == [("subflow_on", 0, round(0.020 + 76 * 8 / 5e6, 9)), ("subflow_on", 1, round(2.080 + 76 * 8 / 2e6, 9)),
                      ("subflow_off", 1, 12.0)]
    # Sends of data never sent before are the scheduler's choices: each DSN once.
    first = e[(e.kind == "send") & (e["count"] == 1) & (e.flow == "mp")]
    assert first["dsn"].is_unique and first["dsn"].max() + 1 == len(first)
    drops = e[e.kind == "drop"]
    assert set(drops["link"]) <= {"a", "b"} and (drops["t_s"].diff().dropna() >= 0).all()


def test_mpcc_run_event_log_writes_events_parquet(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(MULTIPATH.replace('duration = "20s"', 'duration = "13s"'))
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--no-plots", "--event-log"]) == 0
    events = pd.read_parquet(tmp_path / "out" / "events.parquet")
    assert {"send", "receive", "subflow_on"} <= set(events["kind"])
    assert main(["run", str(path), "--out", str(tmp_path / "plain"), "--no-plots"]) == 0
    assert not (tmp_path / "plain" / "events.parquet").exists()
    # The scenario field does the same.
    path.write_text("event_log = true\n" + path.read_text())
    assert mpcc.run(path, plots=False).events is not None


def test_undos_and_probes_are_logged():
    """The linux profile's undos (spurious timeouts and recoveries) and tail loss probes
    appear in the log as often as the summary counts them."""
    import tomllib
    from pathlib import Path

    data = tomllib.loads((Path(__file__).resolve().parents[1] / "scenarios/park/subflows20_periodic.toml").read_text())
    # 30 s: the first 10 s have no undo since the linux profile's timeout follows Linux
    # (tcp.rto_linux: no timeout at all); later capacity drops give undone recoveries.
    data.update(duration="30s", warmup="0s", sample_interval="0s")
    data["tcp"].update(profile="linux")
    result = mpcc.run(data, plots=False, event_log=True)
    f = result.summary["flows"]["f"]
    e = result.events
    assert e[e.kind == "undo"]["count"].sum() == f["spurious_timeouts"] + f["undone_recoveries"] > 0
    assert e[e.kind == "probe"]["count"].sum() == f["tlp_probes"]


def test_receiver_decisions_are_logged():
    """A receiver controller's decisions (intentional dup-ACK holds, subflows turned off
    and on) appear in the log as often as the summary counts them, each `receiver_on`
    on a subflow that was off, and logging them changes no result."""
    import tomllib
    from pathlib import Path

    data = tomllib.loads((Path(__file__).resolve().parents[1] / "scenarios/park/popctl_periodic.toml").read_text())
    data.update(duration="15s", warmup="0s", sample_interval="0s")
    data["tcp"].update(profile="linux")
    plain = mpcc.run(data, plots=False)
    result = mpcc.run(data, plots=False, event_log=True)
    assert _without_wall(plain.summary) == _without_wall(result.summary)
    f = result.summary["flows"]["f"]
    e = result.events
    for kind, counter in (("receiver_dupack", "receiver_dupacks"), ("receiver_off", "receiver_offs"),
                          ("receiver_on", "receiver_ons")):
        assert len(e[e.kind == kind]) == f[counter], kind
    assert f["receiver_dupacks"] > 0 and f["receiver_offs"] > 0 and f["receiver_ons"] > 0
    off = set()
    for row in e[e.kind.isin(["receiver_off", "receiver_on"])].itertuples():
        if row.kind == "receiver_off":
            assert row.subflow not in off
            off.add(row.subflow)
        else:
            assert row.subflow in off
            off.remove(row.subflow)
