"""A two-path MPTCP testbed in network namespaces, for the real-kernel tests.

    client ==(path 1: veth)==+
                             router --(veth)-- server
    client ==(path 2: veth)==+

The client has one address per path and an MPTCP `subflow` endpoint on the
second, so each MPTCP connection opens one subflow per path. `disjoint` shapes
each client->router link on its own (two bottlenecks); `shared` shapes the one
router->server link (one bottleneck both subflows cross). Shaping is tbf (the
kernel here has no netem, fq or codel), so the RTT is queueing delay.
Always use it as a context manager: teardown deletes the namespaces (and with
them every veth) even after a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..terminate import TerminateAsInterrupt

BULK = Path(__file__).with_name("bulk.py")
SERVER_ADDR = "10.231.3.2"
PORT = 5201


def _sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(cmd), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {proc.stderr.strip()}")
    return proc


@dataclass
class Testbed:
    __test__ = False  # not a pytest test class

    shape: str = "disjoint"         # "disjoint" or "shared"
    rate_mbit: float = 10.0
    buffer_bytes: int = 64_000       # tbf queue per shaped link
    prefix: str = field(default_factory=lambda: f"mpcc{os.getpid() % 100000}")
    _terminate: TerminateAsInterrupt = field(default_factory=TerminateAsInterrupt, init=False, repr=False)

    @property
    def ns(self) -> dict[str, str]:
        return {k: f"{self.prefix}-{k}" for k in ("cli", "rtr", "srv")}

    def __enter__(self) -> "Testbed":
        self._terminate.__enter__()  # SIGTERM tears down too
        try:
            self._setup()
        except BaseException:
            self.teardown()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.teardown()

    def ip(self, ns: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return _sh("ip", "-n", self.ns[ns], *args, check=check)

    def exec(self, ns: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return _sh("ip", "netns", "exec", self.ns[ns], *args, check=check)

    def _tbf(self, ns: str, dev: str) -> None:
        rate = f"{self.rate_mbit}mbit"
        self.exec(ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", rate,
                  "burst", "16kb", "limit", str(self.buffer_bytes))

    def _setup(self) -> None:
        ns = self.ns
        for name in ns.values():
            _sh("ip", "netns", "add", name)
        for k in ns:
            self.ip(k, "link", "set", "lo", "up")
        links = [("cli", "c1", "rtr", "r1", "10.231.1"), ("cli", "c2", "rtr", "r2", "10.231.2"),
                 ("rtr", "r3", "srv", "s3", "10.231.3")]
        for a, da, b, db, net in links:
            _sh("ip", "link", "add", da, "netns", ns[a], "type", "veth", "peer", "name", db, "netns", ns[b])
            self.ip(a, "addr", "add", f"{net}.1/24", "dev", da)
            self.ip(b, "addr", "add", f"{net}.2/24", "dev", db)
            self.ip(a, "link", "set", da, "up")
            self.ip(b, "link", "set", db, "up")
        self.exec("rtr", "sysctl", "-qw", "net.ipv4.ip_forward=1")
        # Start with buffers far above the paths' BDP so that neither the MPTCP
        # connection's send buffer nor its receive window limits it.
        for k in ("cli", "srv"):
            self.exec(k, "sysctl", "-qw", "net.ipv4.tcp_wmem=4096 1048576 8388608",
                      "net.ipv4.tcp_rmem=4096 1048576 8388608")
        # Client: path 1 by default, path 2 for traffic from its second address.
        self.ip("cli", "route", "add", "default", "via", "10.231.1.2", "dev", "c1")
        self.ip("cli", "route", "add", "default", "via", "10.231.2.2", "dev", "c2", "table", "2")
        self.ip("cli", "rule", "add", "from", "10.231.2.1", "table", "2")
        self.ip("srv", "route", "add", "default", "via", "10.231.3.1")
        for k in ("cli", "srv"):
            self.ip(k, "mptcp", "limits", "set", "subflow", "2", "add_addr_accepted", "2")
        self.ip("cli", "mptcp", "endpoint", "add", "10.231.2.1", "dev", "c2", "subflow")
        if self.shape == "shared":
            self._tbf("rtr", "r3")
        else:
            self._tbf("cli", "c1")
            self._tbf("cli", "c2")

    def teardown(self) -> None:
        for name in self.ns.values():
            _sh("ip", "netns", "del", name, check=False)
        self._terminate.__exit__()

    def tx_bytes(self, ns: str, dev: str) -> int:
        out = self.ip(ns, "-j", "-s", "link", "show", "dev", dev).stdout
        return int(json.loads(out)[0]["stats64"]["tx"]["bytes"])

    def server(self, seconds: float) -> subprocess.Popen:
        proc = subprocess.Popen(["ip", "netns", "exec", self.ns["srv"], sys.executable, str(BULK), "server",
                                 str(PORT), str(seconds)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = proc.stdout.readline()
        if line.strip() != "ready":
            proc.kill()
            raise RuntimeError(f"bulk server did not start: {proc.stderr.read().strip()}")
        return proc

    def client(self, seconds: float, proto: str, cc: str, src: str | None = None) -> subprocess.Popen:
        cmd = ["ip", "netns", "exec", self.ns["cli"], sys.executable, str(BULK), "client", SERVER_ADDR,
               str(PORT), str(seconds), proto, cc]
        if src:
            cmd.append(src)
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def many(self, count: int, cc: str) -> subprocess.Popen:
        cmd = ["ip", "netns", "exec", self.ns["cli"], sys.executable, str(BULK), "many", SERVER_ADDR,
               str(PORT), str(count), cc]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    @staticmethod
    def finish(proc: subprocess.Popen, timeout: float = 30.0) -> list[dict]:
        out, err = proc.communicate(timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"bulk endpoint failed: {err.strip().splitlines()[-1:]}")
        return [json.loads(line) for line in out.splitlines() if line.strip()]


def wait_until(pred, timeout: float, step: float = 0.1):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(step)
    return pred()
