"""The results folder of a run:

    summary.json          summary statistics (sorted keys, indent 2; byte-identical
                          for the same scenario and seed except sim.wall_s)
    flow_series.parquet   per-subflow time series (flow names, subflow ids, derived
                          throughput_bps per subflow and goodput_bps per flow)
    link_series.parquet   per-link time series
    scenario.toml         the scenario as given
    config.json           the canonical configuration the simulator ran
"""

from __future__ import annotations

import json
import math
from pathlib import Path

SUMMARY = "summary.json"
FLOW_SERIES = "flow_series.parquet"
LINK_SERIES = "link_series.parquet"
SCENARIO = "scenario.toml"
CONFIG = "config.json"


def write(result, out) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / SUMMARY).write_text(dumps_json(result.summary), encoding="utf-8")
    (out / CONFIG).write_text(dumps_json(result.config), encoding="utf-8")
    result.flow_series.to_parquet(out / FLOW_SERIES, index=False)
    result.link_series.to_parquet(out / LINK_SERIES, index=False)
    text = result.scenario._toml_text
    if text is None:
        text = dumps_toml(result.scenario._source or {})
    (out / SCENARIO).write_text(text, encoding="utf-8")
    return out


def read(out):
    """(summary dict, flow_series DataFrame, link_series DataFrame) of a results folder."""
    import pandas as pd

    out = Path(out)
    summary = json.loads((out / SUMMARY).read_text(encoding="utf-8"))
    return summary, pd.read_parquet(out / FLOW_SERIES), pd.read_parquet(out / LINK_SERIES)


def dumps_json(data) -> str:
    """Deterministic JSON: sorted keys, indent 2, NaN and infinities as null, final newline."""
    return json.dumps(_finite(data), sort_keys=True, indent=2, allow_nan=False) + "\n"


def _finite(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def dumps_toml(data: dict) -> str:
    """A small TOML writer for scenario dicts: scalars first, then [tables] and [[arrays of tables]].

    Values below the section level are written inline; None values are left out
    (TOML has no null)."""
    lines, sections = [], []
    for key, value in data.items():
        if value is None:
            continue
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            for name, table in value.items():
                sections.append(f"\n[{_key(key)}.{_key(name)}]")
                sections += [f"{_key(k)} = {_value(v)}" for k, v in table.items() if v is not None]
        elif isinstance(value, dict):
            sections.append(f"\n[{_key(key)}]")
            sections += [f"{_key(k)} = {_value(v)}" for k, v in value.items() if v is not None]
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for table in value:
                sections.append(f"\n[[{_key(key)}]]")
                sections += [f"{_key(k)} = {_value(v)}" for k, v in table.items() if v is not None]
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    return "\n".join(lines + sections).lstrip("\n") + "\n"


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items() if x is not None) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")
