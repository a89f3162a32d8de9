"""Counters obey physics, over random valid scenarios: no flow's goodput or
throughput exceeds the capacity of its paths, no link's utilization exceeds 1,
nothing is delivered that was not sent, and no counter is negative; each to within
one packet at the window edges (a segment is counted whole when it arrives).

`make test` runs 40 scenarios; `make validate` (marked slow) runs 500."""

import math
import random

import pytest

import mpcc

WIRE = 1500 * 8  # bits of one full packet (1448 + 52 bytes)
CCS = ["reno", "cubic", "vegas", "veno", "westwood", "sqrt", "lia", "olia", "balia", "wvegas"]
MULTI = ["lia", "olia", "balia", "wvegas", "ewtcp", "reno", "cubic"]


def _capacity(rng: random.Random, trace_path) -> tuple[dict, float, float]:
    """A random capacity, its highest rate and its lowest (bit/s)."""
    rate = rng.choice([1e5, 5e5, 2e6, 10e6, 30e6])
    kind = rng.choice(["rate", "rate", "schedule", "random_walk", "trace"])
    if kind == "schedule":
        low = rate / rng.choice([2, 5])
        steps = [{"at": "0s", "rate": f"{rate:g}bps"}, {"at": "0.7s", "rate": f"{low:g}bps"}]
        return {"capacity": {"kind": "schedule", "period": "1s", "steps": steps}}, rate, low
    if kind == "random_walk":
        cap = {"kind": "random_walk", "initial": f"{rate:g}bps", "min": f"{rate / 4:g}bps",
               "max": f"{rate * 2:g}bps", "step": "50ms", "sigma": 0.3}
        return {"capacity": cap}, rate * 2, rate / 4
    if kind == "trace":
        # One 1500-byte opportunity every `gap` ms: 12 Mbit/s / gap.
        gap = rng.choice([1, 2, 5])
        trace_path.write_text("".join(f"{t}\n" for t in range(gap, 100 + 1, gap)))
        r = 12e6 / gap
        return {"capacity": {"kind": "trace", "path": str(trace_path)}}, r, r
    return {"rate": f"{rate:g}bps"}, rate, rate


def _queue(rng: random.Random) -> dict:
    kind = rng.choice(["droptail", "droptail", "red", "codel"])
    if kind == "red":
        return {"kind": "red", "min_th": 5, "max_th": 15, "max_p": 0.1, "weight": 0.002, "limit": 50}
    if kind == "codel":
        return {"kind": "codel"}
    return {"kind": "droptail", "packets": rng.choice([2, 10, 50, 200])}


def _app(rng: random.Random) -> dict:
    kind = rng.choice(["bulk", "bulk", "file", "cbr", "onoff", "web"])
    if kind == "file":
        return {"kind": "file", "size": rng.choice(["10KB", "300KB", "3MB"])}
    if kind == "cbr":
        return {"kind": "cbr", "rate": rng.choice(["200kbps", "2Mbps", "20Mbps"]), "startup": "0.2s"}
    if kind == "onoff":
        return {"kind": "onoff", "on": {"kind": "exponential", "mean": "0.3s"},
                "off": {"kind": "exponential", "mean": "0.3s"}}
    if kind == "web":
        return {"kind": "web", "objects": ["10KB", "80KB"], "think": {"kind": "fixed", "value": "0.2s"}}
    return {"kind": "bulk"}


def random_scenario(seed: int, tmp_path) -> tuple[dict, dict[str, float], dict[str, float]]:
    """A random valid scenario, and each link's highest and lowest rate."""
    rng = random.Random(seed)
    duration = rng.choice([0.5, 1.0, 2.0, 3.0])
    links, top, low = {}, {}, {}
    for i in range(rng.randint(1, 3)):
        name = f"l{i}"
        cap, top[name], low[name] = _capacity(rng, tmp_path / f"{seed}-{name}.trace")
        links[name] = {**cap, "delay": f"{rng.choice([0, 1, 10, 40])}ms", "queue": _queue(rng)}
        if rng.random() < 0.3:
            links[name]["loss"] = {"kind": "bernoulli", "p": rng.choice([0.001, 0.01, 0.05])}
    names = list(links)
    flows = []
    for j in range(rng.randint(1, 4)):
        flow = {"name": f"f{j}", "app": _app(rng)}
        if len(names) > 1 and rng.random() < 0.4:
            flow["cc"] = rng.choice(MULTI)
            flow["subflows"] = [{"path": [n]} for n in rng.sample(names, 2)]
        else:
            flow["cc"] = rng.choice(CCS)
            flow["path"] = rng.sample(names, rng.randint(1, len(names)))
        start = rng.choice([0.0, 0.0, 0.1, duration / 2])
        if start:
            flow["start"] = f"{start:g}s"
        if rng.random() < 0.3:
            flow["stop"] = f"{start + rng.uniform(0.05, duration / 2):.3f}s"
        flows.append(flow)
    scenario = {"duration": f"{duration:g}s", "seed": seed, "sample_interval": "0s", "links": links, "flows": flows}
    if rng.random() < 0.5:
        scenario["warmup"] = f"{duration * rng.choice([0.1, 0.5, 0.9]):g}s"
    return scenario, top, low


def _paths(flow: dict) -> list[list[str]]:
    return [s["path"] for s in flow["subflows"]] if "subflows" in flow else [flow["path"]]


def check_invariants(scenario: dict, top: dict, low: dict) -> list[str]:
    """Every violated invariant, as a line naming the flow or link."""
    r = mpcc.run(scenario, plots=False)
    s = r.summary
    problems = []
    duration = float(s["sim"]["duration_s"]) - float(s["sim"]["warmup_s"])
    for flow in scenario["flows"]:
        f = s["flows"][flow["name"]]
        for key, value in _numbers(f):
            if value < 0:
                problems.append(f"{flow['name']}: {key} = {value} is negative")
        paths = _paths(flow)
        capacity = sum(min(top[link] for link in path) for path in paths)
        slack = WIRE * len(paths)  # one packet per subflow at the window edges
        # Both rates share the flow's window, which is delivered bits / goodput.
        goodput = f.get("goodput_bps")
        window = f["delivered_bytes"] * 8 / goodput if goodput else None
        for rate_key in ("goodput_bps", "throughput_bps"):
            rate = f.get(rate_key)
            if window is None or rate is None or rate <= capacity:
                continue
            if rate * window > capacity * window + slack:  # the bits must fit at `capacity`
                problems.append(f"{flow['name']}: {rate_key} {rate:.0f} above its paths' {capacity:.0f} bit/s")
        # Over a window after a warm-up, segments in flight at its start may arrive.
        if not s["sim"]["warmup_s"] and f["delivered_bytes"] > f["sent_packets"] * 1448:
            problems.append(f"{flow['name']}: delivered {f['delivered_bytes']} B, more than {f['sent_packets']} sent")
        if f["retransmissions"] > f["sent_packets"]:
            problems.append(f"{flow['name']}: more retransmissions than packets sent")
    for name, link in s["links"].items():
        for key, value in _numbers(link):
            if value < 0:
                problems.append(f"{name}: {key} = {value} is negative")
        u = link["utilization"]
        # Pro rata at the edges: exact at a constant rate; a varying rate, one packet. A
        # trace is a varying rate too: its opportunities are discrete, and one may fall on
        # the warm-up's end (seeds 1001, 1123 and 1345 of the 500: utilization up to
        # 1.0017 with one opportunity more in the window; the check treated a trace as
        # constant until 2026-11-27, session 22, where it failed already at the session's
        # start, bb6ed34).
        constant = top[name] == low[name] and scenario["links"][name].get("capacity", {}).get("kind") != "trace"
        slack = 1e-9 if constant else WIRE / (low[name] * duration)
        if u is not None and u > 1 + slack:
            problems.append(f"{name}: utilization {u}")
    return problems


def _numbers(d: dict, prefix: str = ""):
    for k, v in d.items():
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)) and v is not None:
            yield prefix + k, v
        elif isinstance(v, list):
            for i, x in enumerate(v):
                if isinstance(x, dict):
                    yield from _numbers(x, f"{prefix}{k}[{i}].")


@pytest.mark.parametrize("seed", range(40))
def test_counters_obey_physics(seed, tmp_path):
    scenario, top, low = random_scenario(seed, tmp_path)
    assert check_invariants(scenario, top, low) == []


@pytest.mark.slow
def test_counters_obey_physics_on_500_scenarios(tmp_path):
    problems = []
    for seed in range(1000, 1500):
        scenario, top, low = random_scenario(seed, tmp_path)
        problems += [f"seed {seed}: {p}" for p in check_invariants(scenario, top, low)]
    assert problems == []


def test_the_check_sees_a_rate_above_capacity(tmp_path):
    """The invariant check itself can fail: the same scenario judged against a
    capacity one tenth of the real one is reported."""
    scenario, top, low = random_scenario(3, tmp_path)
    scenario["flows"] = [{"name": "a", "cc": "reno", "path": [next(iter(scenario["links"]))], "app": {"kind": "bulk"}}]
    scenario.pop("warmup", None)
    tenth = {k: v / 10 for k, v in top.items()}
    assert any("above its paths'" in p for p in check_invariants(scenario, tenth, tenth))
