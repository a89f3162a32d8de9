"""mpcc.tables: the derived rate columns in plain Python (issue 18, item 4)."""

import random

from mpcc import tables


def _series(rows):
    """A raw flow series (as the simulator hands it over) from (t, flow, subflow, received, delivered) rows."""
    names = ("t_s", "flow", "subflow", "received_bytes", "delivered_bytes")
    return {name: [float(row[i]) for row in rows] for i, name in enumerate(names)}


ROWS = [(t / 10, f, s, 1000 * t * (s + 1) + 7 * f, 1500 * t + 3 * f) for t in range(0, 30) for f in range(3)
        for s in range(2)]


def test_rates_per_interval_from_the_cumulative_counters():
    cols = tables.flow_series(_series(ROWS), ["a", "b", "c"], 0.1)
    assert cols["flow"][:6] == ["a", "a", "b", "b", "c", "c"]
    assert list(cols["subflow"][:2]) == [0, 1]
    by_row = {(t, f, s): i for i, (t, f, s, _, _) in enumerate(ROWS)}
    # A sample at time 0 has rate 0; later ones: bytes since the previous sample * 8 / 0.1 s.
    assert cols["throughput_bps"][by_row[0.0, 1, 0]] == 0.0
    i = by_row[0.5, 1, 1]
    assert cols["throughput_bps"][i] == (ROWS[i][3] - ROWS[by_row[0.4, 1, 1]][3]) * 8.0 / (0.5 - 0.4)
    assert cols["goodput_bps"][i] == (ROWS[i][4] - ROWS[by_row[0.4, 1, 1]][4]) * 8.0 / (0.5 - 0.4)
    assert cols["goodput_bps"][i] == cols["goodput_bps"][by_row[0.5, 1, 0]]  # the connection's, on each subflow


def test_rows_out_of_time_order_give_each_row_the_same_values():
    ordered = tables.flow_series(_series(ROWS), ["a", "b", "c"], 0.1)
    shuffled_rows = ROWS[:]
    random.Random(3).shuffle(shuffled_rows)
    shuffled = tables.flow_series(_series(shuffled_rows), ["a", "b", "c"], 0.1)
    position = {row: i for i, row in enumerate(ROWS)}
    for column in ("throughput_bps", "goodput_bps", "goodput_smooth_bps"):
        for j, row in enumerate(shuffled_rows):
            assert shuffled[column][j] == ordered[column][position[row]], column


def test_a_subflow_joining_late_is_measured_from_one_interval_before_its_first_sample():
    rows = [(1.0, 0, 0, 1000, 1000), (1.0, 0, 1, 500, 1000), (1.5, 0, 0, 2000, 2500), (2.0, 0, 0, 3000, 3500)]
    cols = tables.flow_series(_series(rows), ["a"], 0.5)
    assert cols["throughput_bps"][1] == 500 * 8.0 / 0.5
    assert cols["throughput_bps"][2] == 1000 * 8.0 / 0.5
