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
    },
}
