"""Bulk-transfer endpoints for the namespace testbed, run as a script inside a
network namespace (no mpcc imports, so it runs under `ip netns exec`).

    bulk.py server PORT SECONDS         accept MPTCP and TCP; print bytes per peer as JSON
    bulk.py client ADDR PORT SECONDS PROTO CC [SRC]
                                        PROTO mptcp|tcp; send for SECONDS with controller CC
    bulk.py many ADDR PORT COUNT CC     COUNT short MPTCP connections, 16 kB each
"""

import json
import struct
import socket
import sys
import threading
import time

IPPROTO_MPTCP = 262
TCP_CONGESTION = 13
CHUNK = b"\0" * 65536
# Close with a reset: an orphaned socket still sending a full buffer would keep
# its namespace, and the controller it uses, alive for minutes after the test.
LINGER_RESET = struct.pack("ii", 1, 0)


def server(port: int, seconds: float) -> None:
    lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lst.bind(("0.0.0.0", port))
    lst.listen(64)
    lst.settimeout(0.2)
    counts: dict[str, int] = {}
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def drain(conn, key):
        conn.settimeout(0.5)
        while time.monotonic() < deadline:
            try:
                data = conn.recv(1 << 20)
            except socket.timeout:
                continue
            except OSError:
                break
            if not data:
                break
            with lock:
                counts[key] = counts.get(key, 0) + len(data)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_RESET)
        conn.close()

    print("ready", flush=True)
    threads = []
    n = 0
    while time.monotonic() < deadline:
        try:
            conn, peer = lst.accept()
        except socket.timeout:
            continue
        n += 1
        key = f"{peer[0]}:{peer[1]}"
        t = threading.Thread(target=drain, args=(conn, key), daemon=True)
        t.start()
        threads.append(t)
    for t in threads:
        t.join(1.0)
    with lock:
        print(json.dumps({"connections": n, "bytes": counts}), flush=True)


def client(addr: str, port: int, seconds: float, proto: str, cc: str, src: str | None) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP if proto == "mptcp" else 0)
    sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
    if src:
        sock.bind((src, 0))
    sock.connect((addr, port))
    local = sock.getsockname()
    print(json.dumps({"local": f"{local[0]}:{local[1]}"}), flush=True)
    end = time.monotonic() + seconds
    sent = 0
    sock.settimeout(1.0)
    while time.monotonic() < end:
        try:
            sent += sock.send(CHUNK)
        except socket.timeout:
            continue
        except OSError:
            break
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_RESET)
    sock.close()
    print(json.dumps({"sent": sent}), flush=True)


def many(addr: str, port: int, count: int, cc: str) -> None:
    for _ in range(count):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, IPPROTO_MPTCP)
        sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, cc.encode())
        sock.connect((addr, port))
        sock.sendall(CHUNK[:16384])
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_RESET)
        sock.close()
    print(json.dumps({"connections": count}), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "many":
        many(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "server":
        server(int(sys.argv[2]), float(sys.argv[3]))
    else:
        client(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6],
               sys.argv[7] if len(sys.argv) > 7 else None)
