"""The measured data: each experiment's metric extractor applied to its cached
runs, as one tidy DataFrame per experiment, in declaration order (never in
completion order, so resumed and uninterrupted reproductions agree exactly)."""

from __future__ import annotations

from .cache import DamagedEntry, RunCache
from .model import Paper
from .plan import RunSpec

ID_COLUMNS = ("experiment", "variant", "replication", "seed")


def measure(paper: Paper, specs: list[RunSpec], cache: RunCache) -> dict:
    """Raises DamagedEntry if any entry was found damaged; all of them have then been
    reported and discarded, so one more `execute` recomputes them all."""
    import pandas as pd

    extractors = {exp.name: exp.metrics for exp in paper.experiments}
    rows: dict[str, list[dict]] = {exp.name: [] for exp in paper.experiments}
    damaged: dict[str, str] = {}  # key -> why
    for spec in specs:
        if spec.key in damaged:
            continue
        try:
            result = cache.load(spec.key)
        except DamagedEntry as e:
            damaged[spec.key] = str(e)
            continue
        if damaged:
            continue  # no use measuring: the data will be measured again
        measured = extractors[spec.experiment](result, spec.variant)
        for row in [measured] if isinstance(measured, dict) else measured:
            ids = {"experiment": spec.experiment, "variant": spec.variant.name,
                   "replication": spec.replication, "seed": spec.seed}
            rows[spec.experiment].append({**ids, **spec.variant.params, **row})
    if damaged:
        raise DamagedEntry("; ".join(damaged.values()))
    return {name: pd.DataFrame(r) for name, r in rows.items()}
