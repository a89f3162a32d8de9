"""What a reproduction is made of: a Paper declares Experiments (scenario variants
times replications), Figures drawn from the measured data, and Claims whose verdicts
are computed from that data.

Only the standard library is imported here, so that `mpcc list` can read the
registered papers without loading pandas or matplotlib.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Union

# "not tested here": every compared point was a tie within the 95 % intervals, or
# the baseline showed nothing to improve (mpcc.reproduce.verdicts).
VERDICTS = ("reproduced", "partly", "not reproduced", "not tested here")

# The measured data handed to figures and claims: experiment name -> tidy DataFrame
# (one row per run, or per run and entity, with the variant's parameters as columns).
Measurements = Mapping[str, Any]

ScenarioSource = Union[str, Path, dict]


@dataclass(frozen=True)
class Variant:
    """One point of an experiment: overrides applied to the experiment's scenario.

    `overrides` maps dotted paths into the scenario (`"links.lossy.loss.p"`,
    `"flows.0.cc"`, `"duration"`) to values written as in TOML. `params` become
    columns of the measured DataFrame (e.g. `{"loss_rate": 0.01}`).
    """

    name: str
    overrides: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)


@dataclass(frozen=True)
class TcpSetting:
    """One field (`name`) of the scenario's `tcp` table (docs/tcp.md: `delayed_ack`, `min_rto`,
    ...) that a paper or an experiment states on top of its TCP profile, with the reason
    (what the paper, or its simulator's documented defaults, say). Every run takes it
    unless its scenario sets that field itself (in its `tcp` table, a flow's, or a
    variant's overrides). `value` is written as in TOML (`False`, `"200ms"`)."""

    name: str
    value: Any
    reason: str

    def text(self) -> str:
        return f"tcp.{self.name} = {_toml(self.value)}" + (f" ({self.reason})" if self.reason else "")


def _toml(value) -> str:
    """A setting's value as TOML writes it (`false`, `"200ms"`, `3`)."""
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Experiment:
    """A scenario (TOML file or dict) run for every variant, `replications` times
    each with seeds `first_seed`, `first_seed + 1`, ...

    `metrics(result, variant)` turns one run (an `mpcc.Result`) into a dict of
    measured values, or a list of dicts (e.g. one per flow). With `--quick`,
    `quick_overrides` apply to every variant and `quick_replications` replace
    `replications`. A scenario without random elements gives the same result for
    every seed: give it one replication and say so in `description`.
    """

    name: str
    scenario: ScenarioSource
    variants: tuple[Variant, ...]
    metrics: Callable[[Any, Variant], Union[dict, list[dict]]]
    replications: int = 10
    quick_replications: int = 3
    quick_overrides: dict = field(default_factory=dict)
    first_seed: int = 1
    description: str = ""
    # The TCP profile of this experiment's runs when it is not the paper's, and why
    # (a testbed experiment in a paper otherwise simulated); None: the paper's.
    tcp_profile: str | None = None
    tcp_profile_reason: str = ""
    # Settings on top of the profile for this experiment's runs (`Paper.settings_of`):
    # they win over the paper's settings of the same field.
    tcp_settings: tuple[TcpSetting, ...] = ()

    def series(self, metrics, description: str, **changes) -> "Experiment":
        """`<name>_series`: the same runs (served from the cache) read by another
        `metrics`, usually time series for a figure; `changes` narrow them (fewer
        variants or replications, another name)."""
        return replace(self, **{"name": f"{self.name}_series", "metrics": metrics, "description": description, **changes})


@dataclass(frozen=True)
class Figure:
    """`draw(measurements)` returns a matplotlib Figure; it is saved as PNG and SVG."""

    id: str
    title: str
    caption: str
    draw: Callable[[Measurements], Any]


@dataclass(frozen=True)
class RuleChange:
    """A change to a claim's rule made after its results had been seen."""

    date: str  # YYYY-MM-DD
    change: str  # what the rule was and what it became
    reason: str


@dataclass(frozen=True)
class Claim:
    """A statement of the paper and how to judge it.

    `quote` is the paper's sentence the claim tests, copied exactly, `source` where it
    stands (section, figure, table); `rule` says in words how the verdict is computed
    from the measured data, derived from the quote (with the tolerance and why);
    `rule_history` lists every change to the rule made after results were seen.
    `compares` marks claims that compare measured quantities (a tie must not pass;
    tests/test_verdict_ties.py drives each of them with equal data).

    `verdict(measurements)` returns `(verdict, reason)`: the verdict is one of
    VERDICTS and the reason is one line quoting the measured numbers.
    """

    id: str
    text: str
    figure: str
    verdict: Callable[[Measurements], tuple[str, str]]
    source: str = ""
    quote: str = ""
    rule: str = ""
    rule_history: tuple[RuleChange, ...] = ()
    compares: bool = False

    def history_text(self) -> str:
        return "; ".join(f"{h.date}: {h.change} ({h.reason})" for h in self.rule_history)


@dataclass(frozen=True)
class Paper:
    """A paper to reproduce. A paper that cannot run yet sets `pending` to the reason
    and may list the claims it will check in `planned_claims`."""

    name: str
    title: str
    reference: str
    summary: str
    experiments: tuple[Experiment, ...] = ()
    figures: tuple[Figure, ...] = ()
    claims: tuple[Claim, ...] = ()
    notes: tuple[str, ...] = ()
    pending: str | None = None
    planned_claims: tuple[str, ...] = ()
    # The TCP profile (`tcp.profile`, docs/tcp.md) every run uses unless its scenario
    # names one, and why: ns-2/ns-3 papers `ns3`, testbed papers `linux`.
    tcp_profile: str = "linux"
    tcp_profile_reason: str = ""
    # Individual `tcp` settings on top of that profile, each with its reason (e.g. ns-2's
    # receivers acknowledging every segment: `TcpSetting("delayed_ack", False, ...)`).
    # They go with the paper's profile: an experiment that runs another profile does
    # not take them (`settings_of`).
    tcp_settings: tuple[TcpSetting, ...] = ()
    # environment(measurements) -> [(what, measured loss rate, the paper's stated rate[, packets])]:
    # the report sets each beside the paper's and flags a difference of more than 2 x, unless
    # the packets the rate was counted over cannot resolve it (`report.environment_rows`).
    environment: Callable[[Measurements], list] | None = None
    # sensitivity(measurements) -> [(the open choice, its value, what was measured, does the claim hold)]:
    # a small sweep over a choice the paper leaves open that moves a verdict (issue 15, item 4).
    sensitivity: Callable[[Measurements], list] | None = None

    def profile_of(self, exp: Experiment) -> tuple[str, str]:
        """(TCP profile, reason) of an experiment's runs: its own if it states one, else the paper's."""
        if exp.tcp_profile is not None:
            return exp.tcp_profile, exp.tcp_profile_reason
        return self.tcp_profile, self.tcp_profile_reason

    def settings_of(self, exp: Experiment) -> tuple[TcpSetting, ...]:
        """The `tcp` settings an experiment's runs take on top of their profile: the
        paper's when the experiment runs the paper's profile (they were stated for it),
        then the experiment's own, which replace the paper's of the same field."""
        inherited = self.tcp_settings if self.profile_of(exp)[0] == self.tcp_profile else ()
        own = {s.name for s in exp.tcp_settings}
        return tuple(s for s in inherited if s.name not in own) + tuple(exp.tcp_settings)

    def tcp_line(self) -> str:
        """The paper's profile and settings, then each experiment that runs another
        profile or other settings."""
        line = f"TCP profile: {self.tcp_profile}" + (f" ({self.tcp_profile_reason})" if self.tcp_profile_reason else "")
        line += "".join(f"; {s.text()}" for s in self.tcp_settings)

        def setup(e):
            return self.profile_of(e), self.settings_of(e)

        others = [e for e in self.experiments
                  if self.profile_of(e)[0] != self.tcp_profile or self.settings_of(e) != self.tcp_settings]
        for (profile, reason), settings in dict.fromkeys(setup(e) for e in others):
            names = ", ".join(e.name for e in others if setup(e) == ((profile, reason), settings))
            line += f"; {names}: {profile}" + (f" ({reason})" if reason else "")
            line += "".join(f", {s.text()}" for s in settings)
        return line

    def check(self) -> None:
        """Raises ValueError if names clash or a claim refers to an unknown figure."""
        for kind, items in (("experiment", self.experiments), ("figure", self.figures), ("claim", self.claims)):
            ids = [getattr(x, "name", None) or x.id for x in items]
            dupes = sorted({i for i in ids if ids.count(i) > 1})
            if dupes:
                raise ValueError(f"paper {self.name}: duplicate {kind} {', '.join(dupes)}")
        # Issue 14: every reproduction states which TCP profile it runs, and why.
        if not self.tcp_profile_reason:
            raise ValueError(f"paper {self.name}: tcp_profile {self.tcp_profile} needs its reason (tcp_profile_reason)")
        for exp in self.experiments:
            if exp.tcp_profile is not None and not exp.tcp_profile_reason:
                raise ValueError(f"paper {self.name}: experiment {exp.name} runs tcp_profile {exp.tcp_profile} "
                                 "without its reason (tcp_profile_reason)")
        figures = {f.id for f in self.figures}
        for claim in self.claims:
            if not (claim.quote and claim.source and claim.rule):
                raise ValueError(f"paper {self.name}: claim {claim.id} lacks its quote, source or rule")
            if claim.figure not in figures:
                raise ValueError(f"paper {self.name}: claim {claim.id} refers to unknown figure {claim.figure}")
        for exp in self.experiments:
            names = [v.name for v in exp.variants]
            if len(set(names)) != len(names):
                raise ValueError(f"paper {self.name}: experiment {exp.name} has duplicate variant names")
