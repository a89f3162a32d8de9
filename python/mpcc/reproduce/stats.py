"""Means with confidence intervals over replications (Student's t)."""

from __future__ import annotations

import math


def mean_ci(values, level: float = 0.95) -> tuple[float, float, int]:
    """(mean, half-width of the `level` confidence interval, n). The half-width is
    NaN with fewer than two values, 0 when they are all equal."""
    import numpy as np
    from scipy import stats

    x = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    n = len(x)
    if n == 0:
        return math.nan, math.nan, 0
    mean = float(x.mean())
    if n < 2:
        return mean, math.nan, 1
    sd = float(x.std(ddof=1))
    return mean, float(stats.t.ppf(0.5 + level / 2, n - 1) * sd / math.sqrt(n)), n


def summarize(df, by: list[str], metrics: list[str], level: float = 0.95):
    """One row per group of `by`: for each metric `<m>_mean`, `<m>_ci` (half-width)
    and a single `n` (replications), in the groups' order of first appearance."""
    import pandas as pd

    out = []
    for keys, group in df.groupby(by, sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        row = dict(zip(by, keys))
        for m in metrics:
            mean, half, n = mean_ci(group[m].tolist(), level)
            row[f"{m}_mean"], row[f"{m}_ci"] = mean, half
            row["n"] = n
        out.append(row)
    return pd.DataFrame(out)
