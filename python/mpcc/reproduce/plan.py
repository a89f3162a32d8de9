"""From experiments to runs: load each scenario, apply the variant's (and, with
--quick, the quick) overrides, give each replication its seed, and compute the
canonical configuration the simulator will receive and its cache key."""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .cache import run_key
from .model import Experiment, Paper, Variant


@dataclass(frozen=True)
class RunSpec:
    experiment: str
    variant: Variant
    replication: int
    seed: int
    scenario: dict  # the scenario as TOML data, overrides applied
    base_dir: str  # folder relative trace paths are resolved against
    config: dict  # the canonical configuration (seed included)
    key: str  # cache key: hash of config + simulator version


def load_scenario_data(source) -> tuple[dict, Path]:
    """(scenario dict, base folder) of a TOML path or a dict."""
    if isinstance(source, dict):
        return copy.deepcopy(source), Path(".")
    path = Path(source)
    with path.open("rb") as f:
        return tomllib.load(f), path.parent


def paper_scenario_data(paper: Paper, experiment: Experiment) -> tuple[dict, Path]:
    """The experiment's scenario (`load_scenario_data`) in the experiment's TCP profile
    (its own, else the paper's: `Paper.profile_of`) unless the scenario names one, with
    the stated `tcp` settings (`Paper.settings_of`) in its `tcp` table unless it sets
    them there itself: how every run of a reproduction starts. A flow's own `tcp` table
    and a variant's overrides still win (the scenario's merge; `apply_overrides`)."""
    data, base = load_scenario_data(experiment.scenario)
    check_tcp_settings(f"paper {paper.name}", paper.tcp_settings)
    check_tcp_settings(f"paper {paper.name}, experiment {experiment.name}", experiment.tcp_settings)
    profile, _, settings = tcp_choice(paper, experiment, data)
    tcp = data.setdefault("tcp", {})
    tcp["profile"] = profile
    for setting, _ in settings:  # a flow's own value still wins in the scenario's merge
        tcp.setdefault(setting.name, copy.deepcopy(setting.value))
    return data, base


def tcp_choice(paper: Paper, experiment: Experiment, data: dict) -> tuple[str, str, list]:
    """The TCP profile the runs of `experiment` on the scenario `data` use and why (the
    scenario's own profile wins over the paper's), and each setting stated on top of it
    with whether the scenario sets that field itself (then the scenario's value wins):
    what `paper_scenario_data` applies and the report shows."""
    profile, reason = paper.profile_of(experiment)
    named = (data.get("tcp") or {}).get("profile")
    if named not in (None, profile):
        profile, reason = named, "named by the scenario"
    return profile, reason, [(s, scenario_sets(data, s.name)) for s in paper.settings_of(experiment)]


def scenario_sets(data: dict, name: str) -> bool:
    """Whether a scenario (as TOML data) sets `tcp.<name>` itself: in its `tcp` table or
    in a flow's."""
    tables = [data.get("tcp")] + [f.get("tcp") for f in data.get("flows", []) if isinstance(f, dict)]
    return any(isinstance(t, dict) and name in t for t in tables)


def check_tcp_settings(owner: str, settings) -> None:
    """Raises a ScenarioError of one line naming the setting (`tcp_settings.<name>`) for a
    setting that is not a `tcp` field, a value that field refuses, a repeated field or a
    setting without its reason."""
    from ..scenario import ScenarioError, Tcp, tcp_setting_problem
    from .model import TcpSetting

    if not isinstance(settings, (tuple, list)):
        raise ScenarioError(f"{owner}: tcp_settings", f"{settings!r} is not a tuple of TcpSetting(name, value, reason)")
    fields = sorted(n for n in Tcp.model_fields if n != "profile")
    seen = set()
    for i, setting in enumerate(settings):
        if not isinstance(setting, TcpSetting):
            raise ScenarioError(f"{owner}: tcp_settings[{i}]", f"{setting!r} is not a TcpSetting(name, value, reason)")
        where = f"{owner}: tcp_settings.{setting.name}"
        if setting.name == "profile":
            raise ScenarioError(where, "the profile is stated by tcp_profile, not as a setting")
        if setting.name not in fields:
            raise ScenarioError(where, f"unknown tcp setting; allowed: {', '.join(fields)}")
        if setting.name in seen:
            raise ScenarioError(where, "stated twice; allowed: one value per setting")
        seen.add(setting.name)
        if not isinstance(setting.reason, str) or not setting.reason.strip():
            raise ScenarioError(where, "has no reason; every stated setting says why (the paper's text or its "
                                       "simulator's defaults)")
        problem = tcp_setting_problem(setting.name, setting.value)
        if problem:
            raise ScenarioError(where, problem)


def apply_overrides(data: dict, overrides: dict) -> dict:
    """A copy of `data` with each dotted path set (list items by index: `flows.0.cc`)."""
    data = copy.deepcopy(data)
    for dotted, value in overrides.items():
        *parents, last = dotted.split(".")
        node = data
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
        if isinstance(node, list):
            node[int(last)] = copy.deepcopy(value)
        else:
            node[last] = copy.deepcopy(value)
    return data


def replications(experiment: Experiment, quick: bool) -> int:
    return experiment.quick_replications if quick else experiment.replications


def plan(paper: Paper, quick: bool, version: str) -> list[RunSpec]:
    """Every run of the paper, in declaration order (experiment, variant, replication)."""
    from ..scenario import Scenario

    specs = []
    for exp in paper.experiments:
        base, base_dir = paper_scenario_data(paper, exp)
        for variant in exp.variants:
            data = apply_overrides(base, variant.overrides)
            if quick:
                data = apply_overrides(data, exp.quick_overrides)
            try:
                scenario = Scenario.from_dict(data, base_dir)
            except ValueError as e:
                raise ValueError(f"{paper.name}/{exp.name}/{variant.name}: {e}") from None
            for rep in range(replications(exp, quick)):
                seed = exp.first_seed + rep
                config = scenario.to_config(seed=seed)
                specs.append(
                    RunSpec(exp.name, variant, rep, seed, data, str(base_dir), config, run_key(config, version))
                )
    return specs
