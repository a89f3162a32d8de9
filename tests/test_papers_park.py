"""The scenario schema's receiver-controller fields the thesis reproduction needs."""

from __future__ import annotations

import tomllib

import pytest

import mpcc
from mpcc.papers import SCENARIOS
from mpcc.scenario import Scenario, ScenarioError

PARK = SCENARIOS / "park"


# ---- schema: receiver and receiver_params ---------------------------------------------------


def _popctl_data() -> dict:
    with open(PARK / "popctl_static.toml", "rb") as f:
        return tomllib.load(f)


def test_receiver_fields_reach_the_configuration_only_when_given():
    data = _popctl_data()
    data["flows"][0]["receiver_params"] = {"min_on": 2}
    flow = Scenario.from_dict(data).to_config()["flows"][0]
    assert flow["receiver"] == "popctl" and flow["receiver_params"] == {"min_on": 2.0}
    del data["flows"][0]["receiver"], data["flows"][0]["receiver_params"]
    flow = Scenario.from_dict(data).to_config()["flows"][0]
    assert "receiver" not in flow and "receiver_params" not in flow  # cache keys of older scenarios unchanged


def test_unknown_receiver_is_a_scenario_error_and_bad_params_a_simulation_error():
    data = _popctl_data()
    data["flows"][0]["receiver"] = "codel"
    with pytest.raises(ScenarioError, match=r'flows\[0\].receiver: unknown receiver controller "codel"'):
        Scenario.from_dict(data)
    data["flows"][0]["receiver"] = "popctl"
    data["flows"][0]["receiver_params"] = {"bogus": 1}
    data["duration"], data["warmup"] = "1s", 0
    with pytest.raises(mpcc.SimulationError, match="bogus"):
        mpcc.run(data, plots=False)
