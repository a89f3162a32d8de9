"""Builds a testbed plan on the running kernel and tears it down.

`Network(plan, workdir)` is a context manager. On entry it creates the hosts'
namespaces, starts the link emulator (which opens a TUN device in each), gives
the devices their addresses and routes, and configures MPTCP (limits and
`subflow` endpoints) and the TCP settings of each client. On exit, also after an
error or Ctrl-C, it stops every process it started (each in its own process
group), deletes the namespaces and unloads the eBPF controllers it loaded: the
TUN devices die with the emulator, veths and addresses with the namespaces.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ..terminate import TerminateAsInterrupt
from .plan import SERVER_ADDR, Plan, link_rate

ENDPOINT = Path(__file__).with_name("endpoint.py")
DEVICE = "emu"
# Unsent bytes a bulk sender keeps in its socket (endpoint.py, send_stream).
NOTSENT_LOWAT = 16384


def unsent_bound(flow, links: list[dict]) -> int:
    """The unsent bytes a flow's sender keeps: NOTSENT_LOWAT, and for an MPTCP
    connection also what the kernel's scheduler needs to reach every subflow.

    Linux's MPTCP scheduler (mptcp_subflow_get_send) hands data to the subflow with
    the shortest linger time, its queued bytes over its pacing rate: about srtt / 1.2
    x (1 + q / w) for a window w and q bytes queued beyond it. A slower subflow gets
    data only once the queues of the faster ones reach rate x (its RTT - theirs);
    with less unsent data the scheduler never gets there, and the slower subflow sits
    idle with window to spare (docs/testbed.md#traffic-and-measurement: with 16 KiB
    the 20 Mbit/s, 60 ms subflow of testbed_two_paths had no data in 38 % of samples).
    Rates are the paths' bottlenecks, RTTs their propagation delays."""
    if not flow.multipath:
        return NOTSENT_LOWAT
    def rtt_ns(s) -> int:
        return sum(links[i]["delay_ns"] for i in s.fwd + s.rev) + s.fwd_delay_ns + s.rev_delay_ns

    paths = [(int(min(link_rate(links[i]) for i in s.fwd)), rtt_ns(s)) for s in flow.subflows]
    longest = max(r for _, r in paths)
    return NOTSENT_LOWAT + sum(bps * (longest - r) for bps, r in paths) // 8_000_000_000


class TestbedError(RuntimeError):
    """The kernel refused a step of the build; the message names it."""


def _sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(cmd), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise TestbedError(f"`{' '.join(cmd)}` failed: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc


def flow_seed(seed: int, index: int) -> int:
    """The seed of a flow's application randomness (Python's generator in the
    endpoints: the same scenario and seed draw the same values, but not the
    simulator's values)."""
    return seed * 1_000_003 + index


def emulator_binary() -> Path:
    """The mpcc-emu binary: MPCC_EMU, else the workspace's release build."""
    env = os.environ.get("MPCC_EMU")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "target" / "release" / "mpcc-emu"


class Network:
    def __init__(self, plan: Plan, workdir: Path, prefix: str | None = None):
        self.plan = plan
        self.work = Path(workdir)
        self.prefix = prefix or f"mpcctb{os.getpid() % 100000}"
        self.namespaces: list[str] = []
        self.procs: list[subprocess.Popen] = []
        self.loaded: list[str] = []
        self._lock = None  # the kernel controllers' machine-wide lock, while they are in use
        self.emulator: subprocess.Popen | None = None
        self.server: subprocess.Popen | None = None
        self.t0_ns: int | None = None
        # `pcap.flows`: (simulated flow index, capture file, dumpcap) per captured host.
        self.captures: list[tuple[int, Path, subprocess.Popen]] = []
        self._terminate = TerminateAsInterrupt()

    # ------------------------------------------------------------ names
    def client_ns(self, i: int) -> str:
        return f"{self.prefix}-c{i}"

    @property
    def server_ns(self) -> str:
        return f"{self.prefix}-srv"

    def ns_exec(self, ns: str, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        return _sh("ip", "netns", "exec", ns, *cmd, check=check)

    # ------------------------------------------------------------ build
    def __enter__(self) -> "Network":
        self._terminate.__enter__()  # SIGTERM tears down too
        try:
            self._build()
        except BaseException:
            self.teardown()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.teardown()

    def _build(self) -> None:
        self.work.mkdir(parents=True, exist_ok=True)
        self._load_controllers()
        hosts = [self.server_ns] + [self.client_ns(f.index) for f in self.plan.flows]
        for ns in hosts:
            _sh("ip", "netns", "add", ns)
            self.namespaces.append(ns)
            self.ns_exec(ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                         "net.ipv6.conf.default.disable_ipv6=1", "net.mptcp.enabled=1",
                         "net.ipv4.tcp_no_metrics_save=1",
                         # Buffers far above any path's BDP: neither window limits a flow,
                         # as in the simulator without rcv_buf/send_buf.
                         "net.ipv4.tcp_rmem=4096 131072 33554432", "net.ipv4.tcp_wmem=4096 65536 33554432")
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
        self._start_emulator(hosts)
        mtu = str(max(f.mss + f.header_bytes for f in self.plan.flows))
        # The server: one address, routes to every client subflow address.
        self._device_up(self.server_ns, mtu)
        _sh("ip", "-n", self.server_ns, "addr", "add", f"{SERVER_ADDR}/32", "dev", DEVICE)
        _sh("ip", "-n", self.server_ns, "route", "add", "10.201.0.0/16", "dev", DEVICE)
        _sh("ip", "-n", self.server_ns, "mptcp", "limits", "set", "subflows", "8", "add_addr_accepted", "0")
        for f in self.plan.flows:
            ns = self.client_ns(f.index)
            self._device_up(ns, str(f.mss + f.header_bytes))
            for s in f.subflows:
                _sh("ip", "-n", ns, "addr", "add", f"{s.addr}/32", "dev", DEVICE)
            _sh("ip", "-n", ns, "route", "add", f"{SERVER_ADDR}/32", "dev", DEVICE, "src", f.subflows[0].addr,
                "rto_min", f"{f.min_rto_ns // 1_000_000}ms")
            ss, ca = f.pacing_ratios
            self.ns_exec(ns, "sysctl", "-qw", f"net.ipv4.tcp_reordering={f.dupthresh}",
                         f"net.ipv4.tcp_pacing_ss_ratio={ss}", f"net.ipv4.tcp_pacing_ca_ratio={ca}")
            if f.multipath:
                extra = str(len(f.subflows) - 1)
                _sh("ip", "-n", ns, "mptcp", "limits", "set", "subflows", extra, "add_addr_accepted", "0")
                for s in f.subflows[1:]:
                    _sh("ip", "-n", ns, "mptcp", "endpoint", "add", s.addr, "dev", DEVICE, "subflow")

    def _device_up(self, ns: str, mtu: str) -> None:
        _sh("ip", "-n", ns, "link", "set", DEVICE, "mtu", mtu, "up")

    def _load_controllers(self) -> None:
        if not self.plan.bpf:
            return
        from ..kernel import load, loaded, machine_lock

        self._lock = machine_lock()
        self._lock.__enter__()
        already = set(loaded())
        for name in self.plan.bpf:
            if name not in already:
                load(name)
                self.loaded.append(name)

    def _start_emulator(self, hosts: list[str]) -> None:
        ports = [{"netns": f"/run/netns/{ns}", "name": DEVICE} for ns in hosts]
        subflows = []
        for f in self.plan.flows:
            for s in f.subflows:
                subflows.append({
                    "addr": [int(x) for x in s.addr.split(".")],
                    "client_port": 1 + f.index, "server_port": 0,
                    "fwd": {"links": s.fwd, "delay_ns": s.fwd_delay_ns},
                    "rev": {"links": s.rev, "delay_ns": s.rev_delay_ns},
                })
        spec = {"config": self.plan.config, "ports": ports, "subflows": subflows,
                "max_packets": 200_000, "results": str(self.work / "emulator.json")}
        path = self.work / "emulator-plan.json"
        path.write_text(json.dumps(spec))
        binary = emulator_binary()
        if not binary.exists():
            raise TestbedError(f"the link emulator {binary} is not built (run `cargo build --release -p mpcc-emu`)")
        self.emulator = self._spawn([str(binary), str(path)], "emulator")
        line = self.emulator.stdout.readline()
        if '"ready"' not in line:
            raise TestbedError(f"the link emulator did not start: {self._stderr('emulator')}")

    def _spawn(self, cmd: list[str], name: str, stdin=subprocess.PIPE) -> subprocess.Popen:
        err = open(self.work / f"{name}.stderr", "w")
        proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=err, text=True,
                                start_new_session=True)
        err.close()
        self.procs.append(proc)
        return proc

    def _stderr(self, name: str) -> str:
        try:
            lines = (self.work / f"{name}.stderr").read_text().strip().splitlines()
        except OSError:
            return "no error output"
        return lines[-1] if lines else "no error output"

    # ------------------------------------------------------------ run
    def run(self, progress=None) -> dict:
        """Starts the server, the emulator's clock and every flow's client; waits
        for the scenario's duration; returns the raw measurements."""
        plan = self.plan
        seed = plan.config["seed"]
        web = {str(f.port): {**f.app, "seed": flow_seed(seed, f.index)} for f in plan.flows if f.app["kind"] == "web"}
        server_spec = {"ports": [f.port for f in plan.flows], "web": web, "out": str(self.work / "server.json")}
        self.server = self.spawn_in(self.server_ns, "server", server_spec)
        if self.server.stdout.readline().strip() != "ready":
            raise TestbedError(f"the testbed's server did not start: {self._stderr('server')}")
        self.start_captures()
        self.start_clock()
        self.server.stdin.write(f"{self.t0_ns}\n")
        self.server.stdin.flush()
        clients = []
        for f in plan.flows:
            spec = {"server": SERVER_ADDR, "port": f.port, "proto": "mptcp" if f.multipath else "tcp",
                    "cc": f.kernel_cc, "src": f.subflows[0].addr, "subflow_addrs": [s.addr for s in f.subflows],
                    "t0_ns": self.t0_ns, "start_ns": f.start_ns, "stop_ns": f.stop_ns,
                    "end_ns": plan.duration_ns, "sample_ns": plan.config["sample_interval_ns"] or 100_000_000,
                    "app": f.app, "seed": flow_seed(seed, f.index), "segment": f.mss, "pacing": f.pacing,
                    "notsent_lowat": unsent_bound(f, plan.config["links"]), "out": str(self.work / f"client{f.index}.json")}
            clients.append(self.spawn_in(self.client_ns(f.index), f"client{f.index}", spec, stdin=subprocess.DEVNULL))
        end = self.t0_ns + plan.duration_ns
        while time.monotonic_ns() < end:
            if progress:
                progress((time.monotonic_ns() - self.t0_ns) / plan.duration_ns)
            time.sleep(min(0.5, max(0.0, (end - time.monotonic_ns()) / 1e9)))
        for f, c in zip(plan.flows, clients):
            self.finish(c, f"client{f.index}", f"flow {f.name}'s client", close=False)
        self.finish(self.server, "server", "the testbed's server")
        emulator = self.stop_emulator()
        return {"t0_ns": self.t0_ns,
                "emulator": emulator,
                "server": json.loads((self.work / "server.json").read_text()),
                "clients": [json.loads((self.work / f"client{f.index}.json").read_text()) for f in plan.flows],
                "pcaps": self.stop_captures()}

    def start_captures(self) -> None:
        """`pcap.flows`: dumpcap on the interface of each captured flow's host (every
        packet its sender sends and every packet it receives, as tcpdump on that host
        and as the simulator's flow capture), running before the clients start."""
        wanted = set(self.plan.config.get("pcap", {}).get("flows", []))
        for f in self.plan.flows:
            if f.index in wanted:
                path = self.work / f"capture{f.index}.pcap"
                proc = self._spawn(["ip", "netns", "exec", self.client_ns(f.index), "dumpcap", "-q", "-i", DEVICE,
                                    "-P", "-w", str(path)], f"capture{f.index}", stdin=subprocess.DEVNULL)
                self.captures.append((f.index, path, proc))
        deadline = time.monotonic() + 10
        for index, path, proc in self.captures:
            # dumpcap writes the file's header once it captures.
            while not (path.exists() and path.stat().st_size >= 24):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise TestbedError(f"dumpcap did not start capturing: {self._stderr(f'capture{index}')}")
                time.sleep(0.02)

    def stop_captures(self) -> dict:
        """Stops the captures; returns {"flow-NAME": pcap bytes}, timestamps moved so
        that 0 is the scenario's time zero, as in the simulator's captures."""
        out = {}
        # The wall clock at the scenario's time zero (the emulator's CLOCK_MONOTONIC t0).
        t0_wall = time.time() - (time.monotonic_ns() - self.t0_ns) / 1e9
        for index, path, proc in self.captures:
            proc.send_signal(signal.SIGINT)  # dumpcap flushes and exits 0
            self.finish(proc, f"capture{index}", "dumpcap", close=False)
            shifted = path.with_suffix(".t0.pcap")
            _sh("editcap", "-t", f"{-t0_wall:.9f}", str(path), str(shifted))
            out[f"flow-{self.plan.config['flows'][index]['name']}"] = shifted.read_bytes()
        self.captures.clear()
        return out

    def start_clock(self) -> int:
        """Starts the emulator's forwarding; its time zero is the scenario's."""
        self.emulator.stdin.write("start\n")
        self.emulator.stdin.flush()
        line = self.emulator.stdout.readline()
        try:
            self.t0_ns = int(json.loads(line)["t0_ns"])
        except (ValueError, KeyError, TypeError):
            raise TestbedError(f"the link emulator stopped: {self._stderr('emulator')}") from None
        return self.t0_ns

    def stop_emulator(self) -> dict:
        """Stops the emulator and returns its measurements."""
        self.finish(self.emulator, "emulator", "the link emulator")
        return json.loads((self.work / "emulator.json").read_text())

    def spawn_in(self, ns: str, name: str, spec: dict, stdin=subprocess.PIPE) -> subprocess.Popen:
        """Runs an endpoint role (endpoint.py) in namespace `ns` with `spec`."""
        path = self.work / f"{name}-spec.json"
        path.write_text(json.dumps(spec))
        role = "client" if name.startswith("client") else name
        return self._spawn(["ip", "netns", "exec", ns, sys.executable, str(ENDPOINT), role, str(path)], name,
                           stdin=stdin)

    def finish(self, proc: subprocess.Popen, name: str, what: str, close: bool = True, timeout: float = 30) -> str:
        """Waits for a process (closing its stdin first, which tells servers and
        the emulator to stop); raises TestbedError if it failed."""
        if close and proc.stdin:
            proc.stdin.close()
            proc.stdin = None  # communicate() must not flush it again
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TestbedError(f"{what} did not finish") from None
        if proc.returncode != 0:
            raise TestbedError(f"{what} failed: {self._stderr(name)}")
        return out or ""

    # ------------------------------------------------------------ teardown
    def teardown(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
            for stream in (proc.stdin, proc.stdout):
                if stream:
                    try:
                        stream.close()
                    except OSError:
                        pass
        self.procs.clear()
        for ns in reversed(self.namespaces):
            _sh("ip", "netns", "del", ns, check=False)
        self.namespaces.clear()
        if self.loaded:
            from ..kernel import unload

            for name in self.loaded:
                try:
                    unload(name)
                except ValueError:
                    pass
            self.loaded.clear()
        if self._lock is not None:
            self._lock.__exit__(None, None, None)
            self._lock = None
        self._terminate.__exit__()


def leftovers(prefix: str = "mpcctb") -> list[str]:
    """Namespaces and processes of testbed runs still present (for tests and checks)."""
    out = _sh("ip", "netns", "list", check=False).stdout.split()
    found = [f"namespace {n}" for n in out if n.startswith(prefix)]
    ps = _sh("pgrep", "-af", "mpcc-emu|testbed/endpoint.py", check=False).stdout.strip().splitlines()
    found += [f"process {line}" for line in ps if line]
    return found
