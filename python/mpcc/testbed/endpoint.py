"""The testbed's traffic endpoints, run as scripts inside network namespaces
(`ip netns exec NS python endpoint.py ROLE SPEC.json`; no mpcc imports).

    server SPEC.json   listens on every flow's port, timestamps what arrives,
                       and writes its measurements when standard input closes
    client SPEC.json   one flow: connects at its start, runs its application,
                       samples the kernel's per-subflow state, writes them at the end
    udp-send SPEC.json, udp-sink SPEC.json
                       a UDP load and its receiver, to calibrate the emulator

Data is framed in records: a 12-byte header (record length, u32; the write's
CLOCK_MONOTONIC time in ns, u64) and filler. The clock is the same in every
namespace, so the server's arrival time minus the header's time is the
application-level delay of that record (one record per segment for bulk and file
transfers, one per write for a stream).
"""

import ctypes
import json
import os
import select
import socket
import struct
import sys
import threading
import time

IPPROTO_MPTCP = 262
SOL_MPTCP = 284
MPTCP_TCPINFO = 2
MPTCP_SUBFLOW_ADDRS = 3
TCP_INFO = 11
TCP_CONGESTION = 13
TCP_NOTSENT_LOWAT = 25
SO_MAX_PACING_RATE = 47
# Any cap but ~0 (unlimited) switches on the socket's internal pacing (the kernel's
# SK_PACING_NEEDED); 2^32 - 2 bytes/s, about 34 Gbit/s, never binds on the testbed.
PACING_CAP = struct.pack("I", 0xFFFF_FFFE)
HEADER = struct.Struct("<IQ")
RECORD = 1448
# Close with a reset: a socket still holding a full send buffer must not outlive
# the run (it would keep the namespace and its controller busy).
LINGER_RESET = struct.pack("ii", 1, 0)
# Bytes of struct tcp_info read; a shorter kernel answer leaves the rest zero.
TCP_INFO_LEN = 248
# (field, struct format, offset) of the struct tcp_info fields sampled.
TCP_INFO_FIELDS = (
    ("ca_state", "B", 1), ("snd_mss", "I", 16), ("unacked", "I", 24), ("sacked", "I", 28),
    ("lost", "I", 32), ("retrans", "I", 36), ("rtt_us", "I", 68), ("rttvar_us", "I", 72),
    ("ssthresh", "I", 76), ("cwnd", "I", 80), ("total_retrans", "I", 100), ("pacing_rate", "Q", 104),
    ("bytes_acked", "Q", 120), ("bytes_received", "Q", 128), ("segs_out", "I", 136), ("notsent_bytes", "I", 144), ("data_segs_out", "I", 156),
    ("bytes_sent", "Q", 200), ("bytes_retrans", "Q", 208), ("total_rto", "H", 240),
)
STOP = threading.Event()


def now_ns() -> int:
    return time.monotonic_ns()


def sleep_until(t_ns: int) -> bool:
    """Sleeps until CLOCK_MONOTONIC reaches t_ns; False if asked to stop first."""
    while not STOP.is_set():
        left = t_ns - now_ns()
        if left <= 0:
            return True
        STOP.wait(min(left / 1e9, 0.5))
    return False


def tcp_info_fields(raw: bytes) -> dict:
    raw = raw.ljust(TCP_INFO_LEN, b"\0")
    return {name: struct.unpack_from("<" + fmt, raw, off)[0] for name, fmt, off in TCP_INFO_FIELDS}


# ---------------------------------------------------------------- client

_libc = ctypes.CDLL(None, use_errno=True)


def _mptcp_getsockopt(fd: int, opt: int, elem: int, count: int = 16) -> tuple[int, bytes]:
    """MPTCP_TCPINFO / MPTCP_SUBFLOW_ADDRS: (number of subflows, their elements).
    The buffer starts with struct mptcp_subflow_data, which the kernel reads, so
    it goes through libc (Python's getsockopt passes a zeroed buffer)."""
    head = 16
    buf = ctypes.create_string_buffer(head + elem * count)
    struct.pack_into("<IIII", buf, 0, head, 0, 0, elem)
    size = ctypes.c_uint32(len(buf))
    if _libc.getsockopt(fd, SOL_MPTCP, opt, buf, ctypes.byref(size)) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    _, num, _, user = struct.unpack_from("<IIII", buf, 0)
    return min(num, count), buf.raw[head:head + user * min(num, count)]


def subflow_infos(sock: socket.socket, proto: str, addrs: list[str]) -> list[tuple[int, dict]]:
    """(path index, tcp_info fields) of every subflow of the connection."""
    if proto == "tcp":
        return [(0, tcp_info_fields(sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCP_INFO_LEN)))]
    n, infos = _mptcp_getsockopt(sock.fileno(), MPTCP_TCPINFO, TCP_INFO_LEN)
    m, names = _mptcp_getsockopt(sock.fileno(), MPTCP_SUBFLOW_ADDRS, 256)
    out = []
    for i in range(min(n, m)):
        local = socket.inet_ntoa(names[i * 256 + 4:i * 256 + 8])
        if local in addrs:
            out.append((addrs.index(local), tcp_info_fields(infos[i * TCP_INFO_LEN:(i + 1) * TCP_INFO_LEN])))
    return out


def sampler(sock, spec, rows: list, lock: threading.Lock) -> None:
    """One row per subflow at every sampling instant of the scenario's grid."""
    t0, step, end = spec["t0_ns"], spec["sample_ns"], spec["end_ns"]
    k = -(-(spec["start_ns"]) // step)
    while t0 + k * step <= t0 + end and sleep_until(t0 + k * step):
        try:
            infos = subflow_infos(sock, spec["proto"], spec["subflow_addrs"])
        except OSError:
            break
        with lock:
            rows.extend([k * step, idx, info] for idx, info in infos)
        k += 1


def records(n_bytes: int, size: int = RECORD) -> bytes:
    """Whole records holding n_bytes, stamped now (the last takes any remainder)."""
    stamp = now_ns()
    count, rest = divmod(n_bytes, size)
    sizes = [size] * count
    if rest:
        if rest < HEADER.size and sizes:
            sizes[-1] += rest
        else:
            sizes.append(max(rest, HEADER.size))
    return b"".join(HEADER.pack(s, stamp) + bytes(s - HEADER.size) for s in sizes)


def restamp(data: bytes, stamp: int) -> bytes:
    """The records with every header's time set to `stamp` (a write's due time)."""
    buf, off = bytearray(data), 0
    while off < len(buf):
        size, _ = HEADER.unpack_from(buf, off)
        HEADER.pack_into(buf, off, size, stamp)
        off += size
    return bytes(buf)


SIOCOUTQNSD = 0x894B


def unsent(sock) -> int:
    """Bytes of a multipath connection written and not yet sent: those the MPTCP
    socket holds (SIOCOUTQNSD) plus those queued on its subflows (tcp_info
    notsent_bytes), where the kernel pushes data well before it can be sent."""
    import fcntl

    held = struct.unpack("i", fcntl.ioctl(sock.fileno(), SIOCOUTQNSD, b"\0" * 4))[0]
    n, infos = _mptcp_getsockopt(sock.fileno(), MPTCP_TCPINFO, TCP_INFO_LEN)
    return held + sum(struct.unpack_from("<I", infos, i * TCP_INFO_LEN + 144)[0] for i in range(n))


# The payload of one of the flow's segments (set by `client`): bulk writes are whole
# segments, so that a write the kernel sends at once leaves no short segment behind.
SEGMENT = RECORD

# Unsent bytes a multipath sender keeps at most (set by `client`): MPTCP takes
# TCP_NOTSENT_LOWAT but moves data on to its subflows' queues, where it waits
# unbounded (0.5-1 MB each at 30 Mbit/s), so send_stream checks itself.
UNSENT_BOUND: int | None = None


def send_stream(sock, total: int | None, deadline_ns: int) -> int:
    """Bulk (total None) or a file of `total` bytes, as fast as the socket takes
    them. The send buffer holds at most TCP_NOTSENT_LOWAT unsent bytes, so a
    record's stamp is within that much of its first transmission, as the
    simulator's application delay for bulk transfers (from first sent) wants."""
    sent, pending = 0, b""
    sock.setblocking(False)
    while not STOP.is_set() and now_ns() < deadline_ns and (total is None or sent < total or pending):
        if not pending:
            chunk = 8 * SEGMENT if total is None else min(8 * SEGMENT, total - sent)
            pending = records(chunk, SEGMENT)
            sent += chunk
        _, writable, _ = select.select([], [sock], [], 0.05)
        if not writable:
            continue
        if UNSENT_BOUND is not None and unsent(sock) >= UNSENT_BOUND:
            time.sleep(0.0005)  # MPTCP keeps writable beyond its unsent bound: wait here
            continue
        try:
            n = sock.send(pending)
        except BlockingIOError:
            continue
        pending = pending[n:]
    return sent - len(pending)


def send_cbr(sock, rate_bps: float, chunk: int, deadline_ns: int) -> int:
    """One write of `chunk` bytes every chunk*8/rate seconds, stamped with the time
    it is due (a write blocked by a full send buffer waits, and its delay counts)."""
    sock.setblocking(True)
    period = chunk * 8 / rate_bps * 1e9
    start, k, sent = now_ns(), 0, 0
    while not STOP.is_set():
        due = start + int(k * period)
        if due >= deadline_ns or not sleep_until(due):
            break
        data = restamp(records(chunk, size=max(chunk, HEADER.size)), due)
        sock.sendall(data)
        sent += len(data)
        k += 1
    return sent


def draw(rng, dist: dict) -> float:
    """One value of a distribution as the scenario defines it (docs/applications.md)."""
    import math

    kind = dist["kind"]
    if kind == "fixed":
        return dist["value"]
    if kind == "uniform":
        return rng.uniform(dist["min"], dist["max"])
    if kind == "exponential":
        return rng.expovariate(1 / dist["mean"])
    if kind == "lognormal":
        sigma2 = math.log(1 + dist["cv"] ** 2)
        return rng.lognormvariate(math.log(dist["mean"]) - sigma2 / 2, math.sqrt(sigma2))
    if kind == "pareto":
        scale = dist["mean"] * (dist["shape"] - 1) / dist["shape"]
        return scale * rng.paretovariate(dist["shape"])
    raise ValueError(f"unknown distribution {kind!r}")


def send_onoff(sock, app: dict, rng, deadline_ns: int) -> int:
    """Bulk while on, silent while off; each period's length drawn when it begins."""
    on, sent, t = app["start_on"], 0, now_ns()
    while t < deadline_ns and not STOP.is_set():
        length = int(draw(rng, app["on_ns"] if on else app["off_ns"]))
        end = min(deadline_ns, t + length)
        if on:
            sent += send_stream(sock, None, end)
        else:
            sleep_until(end)
        on, t = not on, end
    return sent


def send_frames(sock, app: dict, rng, deadline_ns: int) -> int:
    """VBR: one frame every 1/fps seconds, written at once and stamped with its
    due time; sizes from the trace (`sizes`) or log-normal around rate/8/fps."""
    import math

    sock.setblocking(True)
    sizes, period = app.get("sizes"), 1e9 / app["fps"]
    mean = app["rate_bps"] / 8 / app["fps"] if app.get("rate_bps") else 0
    sigma2 = math.log(1 + app["cv"] ** 2)
    start, k, sent = now_ns(), 0, 0
    while not STOP.is_set():
        if sizes is not None and k >= len(sizes) and not app["loop_trace"]:
            break
        due = start + int(k * period)
        if due >= deadline_ns or not sleep_until(due):
            break
        if sizes is not None:
            size = sizes[k % len(sizes)]
        elif app["cv"] == 0:
            size = round(mean)
        else:
            size = round(rng.lognormvariate(math.log(mean) - sigma2 / 2, math.sqrt(sigma2)))
        k += 1
        if size <= 0:
            continue
        data = restamp(records(size), due)
        sock.sendall(data)
        sent += len(data)
    return sent


def respond(sock, deadline_ns: int) -> int:
    """Web server side: every 8-byte request (u64 bytes) is answered with that
    many bytes, stamped when written."""
    sock.setblocking(True)
    sock.settimeout(0.2)
    pending, sent = b"", 0
    while not STOP.is_set() and now_ns() < deadline_ns:
        try:
            data = sock.recv(4096)
        except socket.timeout:
            continue
        if not data:
            break
        pending += data
        while len(pending) >= 8:
            (n,) = struct.unpack_from("<Q", pending)
            pending = pending[8:]
            sent += send_by(sock, records(n), deadline_ns)
    return sent


def send_by(sock, data: bytes, deadline_ns: int) -> int:
    """Writes `data` on a socket with a timeout, waiting out full send buffers until
    the deadline or the stop (a plain `sendall` gives up at the first timeout, which a
    congested link reaches: the Web server's answers then failed); returns the bytes written."""
    view = memoryview(data)
    while view and not STOP.is_set() and now_ns() < deadline_ns:
        try:
            view = view[sock.send(view):]
        except socket.timeout:
            continue
    return len(data) - len(view)


def client(spec: dict) -> dict:
    t0 = spec["t0_ns"]
    stop_ns = t0 + (spec["stop_ns"] if spec["stop_ns"] is not None else spec["end_ns"])
    end_ns = t0 + spec["end_ns"]
    result = {"rows": [], "sent_bytes": 0, "connected_ns": None, "error": None}
    if not sleep_until(t0 + spec["start_ns"]):
        return result
    global UNSENT_BOUND, SEGMENT
    SEGMENT = spec["segment"]
    proto = IPPROTO_MPTCP if spec["proto"] == "mptcp" else 0
    UNSENT_BOUND = spec["notsent_lowat"] if proto else None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, proto)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, spec["cc"].encode())
        # No Nagle for the applications the simulator models as writing with
        # TCP_NODELAY (streaming and Web servers; docs/applications.md): a write's last,
        # partial segment leaves at once. Bulk, file and on-off senders keep Linux's
        # default, as the validated testbed rows ran.
        if spec["app"]["kind"] in ("cbr", "vbr", "web"):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if spec.get("pacing"):
            sock.setsockopt(socket.SOL_SOCKET, SO_MAX_PACING_RATE, PACING_CAP)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, TCP_NOTSENT_LOWAT, spec["notsent_lowat"])
        except OSError:
            result["notsent_lowat"] = "not supported"
        sock.bind((spec["src"], 0))
        sock.connect((spec["server"], spec["port"]))
        result["connected_ns"] = now_ns() - t0
        lock = threading.Lock()
        th = threading.Thread(target=sampler, args=(sock, spec, result["rows"], lock), daemon=True)
        th.start()
        app = spec["app"]
        import random
        rng = random.Random(spec["seed"])
        if app["kind"] in ("bulk", "file"):
            result["sent_bytes"] = send_stream(sock, app.get("size_bytes"), stop_ns)
        elif app["kind"] == "cbr":
            result["sent_bytes"] = send_cbr(sock, app["rate_bps"], app["chunk_bytes"], stop_ns)
        elif app["kind"] == "vbr":
            result["sent_bytes"] = send_frames(sock, app, rng, stop_ns)
        elif app["kind"] == "onoff":
            result["sent_bytes"] = send_onoff(sock, app, rng, stop_ns)
        elif app["kind"] == "web":
            result["sent_bytes"] = respond(sock, stop_ns)
        else:
            raise ValueError(f"application {app['kind']!r} is not supported by the testbed")
        if app["kind"] not in ("bulk", "onoff", "web"):
            sock.shutdown(socket.SHUT_WR)
        sleep_until(end_ns)
        STOP.set()
        th.join(2.0)
    except OSError as e:
        result["error"] = f"{type(e).__name__}: {e}"
    finally:
        with_reset(sock)
    return result


def with_reset(sock) -> None:
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_RESET)
    except OSError:
        pass
    sock.close()


# ---------------------------------------------------------------- server

class Receiver:
    """One connection's arrivals: bytes per read and every record's delay."""

    def __init__(self, t0: int):
        self.t0 = t0
        self.reads: list[tuple[int, int]] = []   # (arrival ns after t0, bytes)
        self.delays: list[float] = []            # seconds, one per record
        self.stamps: list[int] = []              # record's write time, ns after t0
        self.buf = bytearray()

    def feed(self, data: bytes, at: int) -> None:
        self.reads.append((at - self.t0, len(data)))
        self.buf += data
        off = 0
        while len(self.buf) - off >= HEADER.size:
            size, stamp = HEADER.unpack_from(self.buf, off)
            if size < HEADER.size:
                raise ValueError(f"corrupt record header (size {size})")
            if len(self.buf) - off < size:
                break
            self.delays.append((at - stamp) / 1e9)
            self.stamps.append(stamp - self.t0)
            off += size
        del self.buf[:off]


class PageLoader:
    """Web client side of one connection: requests each page's objects (all at
    once, or one after another), times the page from its first request to its
    last byte, thinks, and requests the next page."""

    def __init__(self, conn, web: dict, port: int, t0: int):
        import random

        self.conn, self.web, self.port, self.t0 = conn, web, port, t0
        self.rng = random.Random(web["seed"])
        self.loads: list[tuple[int, float]] = []   # (request time ns after t0, load time s)
        self.waiting = 0                            # bytes still expected for the current request(s)
        self.queue: list[int] = []                  # sequential fetch: objects not yet requested
        self.page_started = None
        self.next_page_at = now_ns()
        self.pages_left = web.get("pages")

    def objects(self) -> list[int]:
        web = self.web
        if web.get("objects"):
            return list(web["objects"])
        count = max(1, round(draw(self.rng, web["object_count"])))
        return [max(1, round(draw(self.rng, web["object_bytes"]))) for _ in range(count)]

    def _request(self, sizes: list[int]) -> None:
        self.waiting += sum(max(s, HEADER.size) for s in sizes)
        self.conn.sendall(b"".join(struct.pack("<Q", s) for s in sizes))

    def tick(self) -> None:
        """Starts the next page when its think time is over."""
        if self.page_started is not None or self.pages_left == 0 or now_ns() < self.next_page_at:
            return
        self.page_started = now_ns()
        objs = self.objects()
        if self.web.get("fetch") == "sequential":
            self.queue = objs[1:]
            self._request(objs[:1])
        else:
            self._request(objs)

    def received(self, n: int) -> None:
        self.waiting -= n
        if self.waiting > 0 or self.page_started is None:
            return
        if self.queue:
            self._request([self.queue.pop(0)])
            return
        done = now_ns()
        self.loads.append((self.page_started - self.t0, (done - self.page_started) / 1e9))
        self.page_started = None
        if self.pages_left is not None:
            self.pages_left -= 1
        self.next_page_at = done + int(draw(self.rng, self.web["think_ns"]))


def server(spec: dict) -> None:
    listeners = {}
    for port in spec["ports"]:
        lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP)
        lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lst.bind(("0.0.0.0", port))
        lst.listen(8)
        lst.setblocking(False)
        listeners[lst.fileno()] = (lst, port)
    print("ready", flush=True)
    t0 = int(sys.stdin.readline())   # the scenario's time zero, once the emulator runs
    conns: dict[int, tuple[socket.socket, Receiver, int]] = {}
    per_port: dict[int, list[Receiver]] = {p: [] for p in spec["ports"]}
    web = {int(p): w for p, w in spec.get("web", {}).items()}
    loaders: dict[int, PageLoader] = {}
    finished: list[PageLoader] = []
    errors = []
    poller = select.poll()
    for fd in listeners:
        poller.register(fd, select.POLLIN)
    poller.register(sys.stdin.fileno(), select.POLLIN)
    running = True
    while running:
        for loader in loaders.values():
            loader.tick()
        for fd, _ in poller.poll(5 if loaders else 200):
            if fd == sys.stdin.fileno():
                running = False
            elif fd in listeners:
                lst, port = listeners[fd]
                try:
                    conn, _ = lst.accept()
                except BlockingIOError:
                    continue
                conn.setblocking(False)
                rcv = Receiver(t0)
                if port in web:
                    loaders[conn.fileno()] = PageLoader(conn, web[port], port, t0)
                per_port[port].append(rcv)
                conns[conn.fileno()] = (conn, rcv, port)
                poller.register(conn.fileno(), select.POLLIN)
            elif fd in conns:
                conn, rcv, port = conns[fd]
                try:
                    data = conn.recv(1 << 20)
                except BlockingIOError:
                    continue
                except OSError as e:
                    data = b""
                    errors.append(f"port {port}: {e}")
                if data:
                    try:
                        rcv.feed(data, now_ns())
                        if fd in loaders:
                            loaders[fd].received(len(data))
                    except ValueError as e:
                        errors.append(f"port {port}: {e}")
                        data = b""
                    except OSError as e:
                        errors.append(f"port {port}: request failed: {e}")
                if not data:
                    poller.unregister(fd)
                    del conns[fd]
                    if fd in loaders:
                        finished.append(loaders.pop(fd))
                    with_reset(conn)
    for conn, _, _ in conns.values():
        with_reset(conn)
    pages = {}
    for loader in [*finished, *loaders.values()]:
        pages.setdefault(str(loader.port), []).extend(loader.loads)
    out = {str(p): [{"reads": r.reads, "delays": r.delays, "stamps": r.stamps} for r in rs]
           for p, rs in per_port.items()}
    with open(spec["out"], "w") as f:
        json.dump({"ports": out, "pages": pages, "errors": errors}, f)


# ---------------------------------------------------------------- calibration

def udp_send(spec: dict) -> None:
    """Datagrams of `size` bytes from `src` to `dst` at `rate_bps` (0: as fast as
    the socket takes them) for `seconds`: a load that does not react to loss, to
    measure the emulator's loss, rate and timing on their own."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((spec["src"], 0))
    payload = bytes(spec["size"] - 28)
    gap = spec["size"] * 8 / spec["rate_bps"] * 1e9 if spec["rate_bps"] else 0
    start = now_ns()
    end, k, sent = start + int(spec["seconds"] * 1e9), 0, 0
    while now_ns() < end:
        if gap:
            due = start + int(k * gap)
            if due > now_ns():
                time.sleep((due - now_ns()) / 1e9)
        try:
            sock.sendto(payload, (spec["dst"], 9))
            sent += 1
        except OSError:
            time.sleep(0.0005)
        k += 1
    print(json.dumps({"sent": sent}), flush=True)


def udp_sink(spec: dict) -> None:
    """Counts datagrams arriving on port 9, by arrival time, until stdin closes."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("0.0.0.0", 9))
    sock.settimeout(0.1)
    print("ready", flush=True)
    arrivals = []
    poller = select.poll()
    poller.register(sys.stdin.fileno(), select.POLLIN)
    while not poller.poll(0):
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        arrivals.append((now_ns(), len(data) + 28))
    with open(spec["out"], "w") as f:
        json.dump(arrivals, f)


def main() -> None:
    role, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        spec = json.load(f)
    if role in ("server", "udp-send", "udp-sink"):
        {"server": server, "udp-send": udp_send, "udp-sink": udp_sink}[role](spec)
        return
    import signal
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    result = client(spec)
    with open(spec["out"], "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
