"""The link emulator measured on its own: a UDP load (which does not react to
loss or delay) from a client through one emulated link to the server, arrivals
timed at the server. `mpcc testbed calibrate` and tests/test_testbed.py use it
for the limits and accuracy in docs/testbed.md."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from .network import Network
from .plan import SERVER_ADDR, plan_for


def scenario_text(link: str, seconds: float) -> str:
    """A one-link scenario whose one flow only gives the client its address (it
    sends nothing: `cbr` at 1 bit/s, starting after the load ends)."""
    return (f'duration = "{seconds + 2}s"\nsample_interval = "1s"\n[links.l]\n{link}\n'
            f'[[flows]]\nname = "route"\ncc = "reno"\npath = ["l"]\nstart = "{seconds + 1}s"\n'
            f'app = {{ kind = "cbr", rate = "1bps", chunk = "1500B" }}\n')


def udp_through_link(link: str, rate_bps: float, seconds: float, size: int = 1500,
                     prefix: str | None = None) -> dict:
    """Sends UDP at `rate_bps` (0: as fast as possible) for `seconds` through a
    link given as TOML (`rate = "10Mbps"\\ndelay = "40ms"` ...). Returns the
    emulator's results and the sink's arrivals [(ns after t0, bytes)]."""
    from ..scenario import load

    p = plan_for(load(scenario_text(link, seconds)), rate_limits=False)
    with tempfile.TemporaryDirectory(prefix="mpcc-calibrate-") as work:
        with Network(p, Path(work), prefix=prefix) as net:
            sink = net.spawn_in(net.server_ns, "udp-sink", {"out": str(Path(work) / "sink.json")})
            sink.stdout.readline()
            t0 = net.start_clock()
            sender = net.spawn_in(net.client_ns(0), "udp-send",
                                  {"src": p.flows[0].subflows[0].addr, "dst": SERVER_ADDR, "size": size,
                                   "rate_bps": rate_bps, "seconds": seconds}, stdin=None)
            sent = json.loads(net.finish(sender, "udp-send", "the UDP sender", close=False,
                                         timeout=seconds + 30))["sent"]
            import time
            time.sleep(1.0)  # the last packets cross the link
            net.finish(sink, "udp-sink", "the UDP sink")
            emu = net.stop_emulator()
            arrivals = [(t - t0, n) for t, n in json.loads((Path(work) / "sink.json").read_text())]
    return {"emulator": emu, "arrivals": arrivals, "sent": sent}
