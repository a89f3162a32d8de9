"""The measured data: each experiment's metric extractor applied to its cached
runs, as one tidy DataFrame per experiment, in declaration order (never in
completion order, so resumed and uninterrupted reproductions agree exactly)."""

from __future__ import annotations

from .cache import RunCache
from .model import Paper
from .plan import RunSpec

ID_COLUMNS = ("experiment", "variant", "replication", "seed")


def measure(paper: Paper, specs: list[RunSpec], cache: RunCache) -> dict:
    import pandas as pd

    extractors = {exp.name: exp.metrics for exp in paper.experiments}
    rows: dict[str, list[dict]] = {exp.name: [] for exp in paper.experiments}
    for spec in specs:
        measured = extractors[spec.experiment](cache.load(spec.key), spec.variant)
        for row in [measured] if isinstance(measured, dict) else measured:
            ids = {"experiment": spec.experiment, "variant": spec.variant.name,
                   "replication": spec.replication, "seed": spec.seed}
            rows[spec.experiment].append({**ids, **spec.variant.params, **row})
    return {name: pd.DataFrame(r) for name, r in rows.items()}
