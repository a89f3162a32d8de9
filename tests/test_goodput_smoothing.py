"""Goodput over time for plots (issue 15, item 6): in-order delivery after a gap releases held
data at once, so the raw per-interval goodput can exceed every link's capacity. The smoothed
series (tables.smooth_goodput_bps) spreads it at the arrival rate and loses no byte."""

import mpcc

CAPACITY_BPS = 20e6  # two 10 Mbit/s paths


def _run():
    loss = {"kind": "bernoulli", "p": 0.002}
    queue = {"kind": "droptail", "packets": 100}
    return mpcc.run({
        "duration": "30s", "seed": 1, "sample_interval": "100ms",
        "links": {"fast": {"rate": "10Mbps", "delay": "5ms", "queue": queue, "loss": loss},
                  "slow": {"rate": "10Mbps", "delay": "150ms", "queue": queue, "loss": loss}},
        "flows": [{"name": "m", "cc": "lia", "scheduler": "roundrobin", "paths": [["fast"], ["slow"]]}],
    }, plots=False)


def test_smoothed_goodput_stays_within_capacity_and_keeps_the_bytes():
    fs = _run().flow_series
    conn = fs[fs["subflow"] == 0].sort_values("t_s")
    # The setting produces in-order bursts: the raw series spikes past the aggregate capacity.
    assert conn["goodput_bps"].max() > 1.5 * CAPACITY_BPS
    assert conn["goodput_smooth_bps"].max() <= CAPACITY_BPS
    assert (conn["goodput_smooth_bps"] >= 0).all()
    # Bytes are shown later, never lost: the smoothed total trails the delivered bytes by little.
    shown = (conn["goodput_smooth_bps"] * 0.1 / 8).sum()
    delivered = conn["delivered_bytes"].iloc[-1]
    assert shown <= delivered + 1
    assert shown >= 0.95 * delivered
