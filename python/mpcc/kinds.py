"""The kinds of each tagged table of a scenario, one line each. Kept apart from the
schema so that `mpcc list` needs no pydantic."""

KINDS: dict[str, dict[str, str]] = {
    "queue": {
        "droptail": "FIFO that drops arrivals when full; limit in `packets` or `bytes`",
        "red": "Random Early Detection as in ns-2/ns-3 (min_th, max_th, max_p, weight, gentle)",
        "codel": "CoDel, RFC 8289 (target, interval; drop spacing interval/sqrt(count))",
    },
    "loss": {
        "none": "no random loss",
        "bernoulli": "each packet lost independently with probability p",
        "gilbert_elliott": "two-state channel (p_gb, p_bg, loss_good, loss_bad)",
        "periodic": "every `every`-th packet lost (deterministic)",
    },
    "capacity": {
        "constant": "a fixed rate (`rate = \"10Mbps\"` on the link is the short form)",
        "schedule": "piecewise-constant rate: steps of {at, rate}, optionally repeating every `period`",
        "random_walk": "multiplicative random walk between min and max every `step`",
        "trace": "mahimahi packet-delivery trace file (one millisecond timestamp per line)",
    },
    "app": {
        "bulk": "always has data to send",
        "file": "sends `size` bytes, then stops; completion time is reported",
        "cbr": "constant bit-rate stream (`rate`, `chunk`) played back at the receiver; stalls are reported",
        "vbr": "frames at `fps`, sizes from a `trace` file or log-normal around `rate` (`cv`); played back",
        "web": "page loads (`objects`, or `object_count` and `object_bytes`) with `think` times; load times",
        "onoff": "bulk while on, silent while off (`on`, `off`: distributions of durations)",
    },
    "distribution": {
        "fixed": "always `value`",
        "uniform": "uniform between `min` and `max`",
        "exponential": "exponential with `mean`",
        "lognormal": "log-normal with `mean` and coefficient of variation `cv` (0 to 10)",
        "pareto": "Pareto with `mean` and tail index `shape` (> 1)",
    },
}

# The TCP profile a scenario uses unless it names one (docs/tcp.md#profiles).
DEFAULT_TCP_PROFILE = "linux"
