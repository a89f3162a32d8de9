"""Individual `tcp` settings a paper or an experiment states on top of its TCP profile
(`Paper.tcp_settings`, `Experiment.tcp_settings`, docs/reproductions.md "Adding a
paper"): they reach every planned run unless the scenario sets the field itself, the
report names each with its reason, and a bad one is refused in one line naming it."""

import pytest

from mpcc.papers import NS2_IMMEDIATE_ACKS, NS2_NO_HANDSHAKE, NS2_NO_PRR, NS2_PIPE, all_papers, load
from mpcc.reproduce import Experiment, Paper, TcpSetting, Variant
from mpcc.reproduce.plan import plan
from mpcc.reproduce.report import _setup
from mpcc.scenario import ScenarioError

WHY = "the paper's simulator acknowledges every segment"
IMMEDIATE = TcpSetting("delayed_ack", False, WHY)


def scenario(tcp=None, flow_tcp=None) -> dict:
    flows = [{"name": "a", "cc": "reno", "path": ["l"]}, {"name": "b", "cc": "reno", "path": ["l"]}]
    if flow_tcp is not None:
        flows[1]["tcp"] = flow_tcp
    data = {"duration": "2s", "sample_interval": "0s",
            "links": {"l": {"rate": "10Mbps", "delay": "10ms"}}, "flows": flows}
    if tcp is not None:
        data["tcp"] = tcp
    return data


def experiment(name="e", data=None, variants=(Variant("v"),), **kwargs) -> Experiment:
    return Experiment(name=name, scenario=data if data is not None else scenario(), variants=variants,
                      metrics=lambda result, variant: {}, replications=1, quick_replications=1, **kwargs)


def paper(*experiments, settings=(IMMEDIATE,), profile="ns3") -> Paper:
    return Paper(name="toy", title="t", reference="r", summary="s", tcp_profile=profile,
                 tcp_profile_reason="the paper ran a simulator", tcp_settings=settings,
                 experiments=experiments or (experiment(),))


def delayed_acks(p: Paper) -> dict:
    """experiment/variant -> the `delayed_ack` of each flow's configuration (None: the profile's)."""
    return {f"{s.experiment}/{s.variant.name}": [f["tcp"].get("delayed_ack") for f in s.config["flows"]]
            for s in plan(p, quick=True, version="test")}


def test_a_stated_setting_reaches_every_run():
    assert delayed_acks(paper()) == {"e/v": [False, False]}
    # Without it the profile decides (the simulator's ns3 default: delayed ACKs).
    assert delayed_acks(paper(settings=())) == {"e/v": [None, None]}


def test_the_scenarios_own_value_wins():
    own = experiment(data=scenario(tcp={"delayed_ack": True}))
    assert delayed_acks(paper(own)) == {"e/v": [True, True]}
    # A flow's own tcp table wins for that flow only.
    flow = experiment(data=scenario(flow_tcp={"delayed_ack": True}))
    assert delayed_acks(paper(flow)) == {"e/v": [False, True]}
    # So does a variant's override.
    variants = (Variant("plain"), Variant("delayed", overrides={"tcp.delayed_ack": True}))
    assert delayed_acks(paper(experiment(variants=variants))) == {"e/plain": [False, False],
                                                                    "e/delayed": [True, True]}


def test_an_experiment_states_its_own_and_another_profile_takes_none_of_the_papers():
    own = experiment("own", tcp_settings=(TcpSetting("delayed_ack", True, "this one used the DelAck sink"),))
    testbed = experiment("testbed", tcp_profile="linux", tcp_profile_reason="a testbed")
    p = paper(experiment("plain"), own, testbed)
    assert delayed_acks(p) == {"plain/v": [False, False], "own/v": [True, True], "testbed/v": [None, None]}
    assert [s.text() for s in p.settings_of(own)] == ["tcp.delayed_ack = true (this one used the DelAck sink)"]
    assert p.settings_of(testbed) == ()


def test_the_report_names_each_setting_with_its_reason(tmp_path):
    own = experiment("own", data=scenario(tcp={"delayed_ack": True}))
    testbed = experiment("testbed", tcp_profile="linux", tcp_profile_reason="a testbed")
    p = paper(experiment("plain"), own, testbed)
    line = p.tcp_line()
    assert line.startswith(f"TCP profile: ns3 (the paper ran a simulator); tcp.delayed_ack = false ({WHY})")
    assert line.endswith("; testbed: linux (a testbed)")
    by_name = {e.name: e for e in p.experiments}
    assert _setup(p, by_name["plain"], True, tmp_path)["tcp"] == \
        f"ns3 (the paper ran a simulator); tcp.delayed_ack = false ({WHY})"
    assert _setup(p, by_name["own"], True, tmp_path)["tcp"] == \
        "ns3 (the paper ran a simulator); tcp.delayed_ack named by the scenario (not the stated false)"
    assert _setup(p, by_name["testbed"], True, tmp_path)["tcp"] == "linux (a testbed)"


@pytest.mark.parametrize("setting,message", [
    (TcpSetting("delayed_acks", False, WHY), "paper toy: tcp_settings.delayed_acks: unknown tcp setting; allowed: "),
    (TcpSetting("delayed_ack", "no", WHY), 'paper toy: tcp_settings.delayed_ack: got "no"; input should be a valid boolean'),
    (TcpSetting("min_rto", "-1ms", WHY), 'paper toy: tcp_settings.min_rto: "-1ms" is negative'),
    (TcpSetting("delayed_ack", False, " "), "paper toy: tcp_settings.delayed_ack: has no reason"),
    (TcpSetting("profile", "rfc", WHY), "paper toy: tcp_settings.profile: the profile is stated by tcp_profile"),
])
def test_a_bad_setting_is_refused_in_one_line_naming_it(setting, message):
    with pytest.raises(ScenarioError) as err:
        plan(paper(settings=(setting,)), quick=True, version="test")
    assert str(err.value).startswith(message) and "\n" not in str(err.value), str(err.value)


def test_settings_that_are_not_a_tuple_of_settings_are_refused_in_one_line():
    with pytest.raises(ScenarioError, match=r"^paper toy: tcp_settings: TcpSetting\(.*is not a tuple"):
        plan(paper(settings=IMMEDIATE), quick=True, version="test")
    with pytest.raises(ScenarioError, match=r"^paper toy: tcp_settings\[0\]: \('delayed_ack', False\) is not a TcpSetting"):
        plan(paper(settings=(("delayed_ack", False),)), quick=True, version="test")


def test_a_setting_stated_twice_or_by_an_experiment_is_named_with_its_owner():
    with pytest.raises(ScenarioError, match=r"^paper toy: tcp_settings.delayed_ack: stated twice"):
        plan(paper(settings=(IMMEDIATE, TcpSetting("delayed_ack", True, WHY))), quick=True, version="test")
    bad = experiment("x", tcp_settings=(TcpSetting("sack_blocks", 4, WHY),))
    with pytest.raises(ScenarioError, match=r"^paper toy, experiment x: tcp_settings.sack_blocks: got 4"):
        plan(paper(bad), quick=True, version="test")


def test_the_ns2_papers_run_ns2s_receivers_and_no_other_paper_does():
    """mpveno, mpmtp and cdd were simulated in ns-2, whose default receivers acknowledge
    every segment, whose SACK sender has none of ns-3 3.44's pipe accounting and whose
    one-way agents make no handshake and whose recovery has no PRR: every one of their
    runs has delayed ACKs, that rule, the handshake and PRR off. park's ns-3 runs have no
    PRR (the thesis's ns-3 predates it); its testbed runs (linux) keep theirs. The others
    state no setting and keep their profile's TCP."""
    for name in ("mpveno", "mpmtp", "cdd"):
        p = load(name)
        assert p.tcp_settings == (NS2_IMMEDIATE_ACKS, NS2_PIPE, NS2_NO_HANDSHAKE, NS2_NO_PRR)
        runs = [f["tcp"] for s in plan(p, quick=True, version="test") for f in s.config["flows"]]
        assert {t.get("delayed_ack") for t in runs} == {False}, name
        assert {t.get("sacked_retx_in_pipe") for t in runs} == {False}, name
        assert {t.get("handshake") for t in runs} == {False}, name
        assert {t.get("prr") for t in runs} == {False}, name
        assert "tcp.delayed_ack = false (ns-2's default receivers" in p.tcp_line()
    park = load("park")
    assert [(s.name, s.value) for s in park.tcp_settings] == [("prr", False)]
    specs = plan(park, quick=True, version="test")
    prr = {s.experiment: {f["tcp"].get("prr") for f in s.config["flows"]} for s in specs}
    assert prr["model_lia"] == {False} and prr["pop_periodic"] == {False}
    assert False not in prr["rtsc"], "the chapter-3 testbed runs in linux, with Linux's PRR"
    for name in ("tcp", "noda_ito"):
        assert load(name).tcp_settings == ()


def test_every_reproduction_states_its_profile_and_why():
    """Issue 14: every paper reproduction states which TCP profile it runs and why
    (ns-2/ns-3 papers `ns3`, testbed papers `linux`); `Paper.check` refuses one that
    does not, and an experiment that runs another profile without its reason."""
    for p in all_papers():
        p.check()
        assert p.tcp_profile in ("linux", "ns3", "rfc") and p.tcp_profile_reason, p.name
    with pytest.raises(ValueError, match="tcp_profile ns3 needs its reason"):
        Paper(name="toy", title="t", reference="r", summary="s", tcp_profile="ns3",
              experiments=(experiment(),)).check()
    with pytest.raises(ValueError, match="experiment testbed runs tcp_profile linux without its reason"):
        paper(experiment("testbed", tcp_profile="linux")).check()
