import math

import pytest

import mpcc

SCENARIO = """
duration = "30s"
[links.b]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", packets = 50 }
[[flows]]
name = "r"
cc = "reno"
path = ["b"]
count = 3
[[flows]]
name = "hog"
cc = "reno"
path = ["b"]
app = { kind = "file", size = "200KB" }
"""


def test_jain_index_by_hand():
    assert mpcc.jain([1, 1, 1, 1]) == 1.0
    assert mpcc.jain([1, 0, 0, 0]) == 0.25
    assert math.isclose(mpcc.jain([1, 2]), 9 / 10)
    with pytest.raises(ValueError, match="negative"):
        mpcc.jain([1, -1])


def test_fairness_over_chosen_flows():
    result = mpcc.run(SCENARIO)
    equals = mpcc.fairness(result, ["r.0", "r.1", "r.2"])
    everyone = mpcc.fairness(result)
    # Three identical long flows share evenly; the short file transfer drags the index down.
    assert equals > 0.95
    assert everyone < equals
    with pytest.raises(ValueError, match="unknown flow"):
        mpcc.fairness(result, ["nobody"])
