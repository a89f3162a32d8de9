"""Build, load, unload and inspect the mpcc BPF congestion controllers.

Loading goes through `bpftool struct_ops register`: it creates the struct_ops
map, which registers the controller with the kernel, and bpftool's exit leaves
it registered (the kernel holds the map) until `bpftool struct_ops unregister`.
The connection map of each program is found again by its name (`conns_<algo>`).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from .requirements import missing_requirement

# Controller name -> the simulator's algorithm it implements.
PROGRAMS = {
    "mpcc_lia": "lia",
    "mpcc_olia": "olia",
    "mpcc_balia": "balia",
    "mpcc_wvegas": "wvegas",
    "mpcc_noda": "noda_ito",
    "mpcc_mpveno": "mpveno",
    "mpcc_mpmtp": "mpmtp",
}

AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


class KernelError(ValueError):
    """A kernel-side failure to report as one line (the CLI exits with 2)."""


def ebpf_dir() -> Path:
    env = os.environ.get("MPCC_EBPF_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "ebpf"


def object_path(name: str) -> Path:
    return ebpf_dir() / "build" / f"{name}.bpf.o"


def _check_name(name: str) -> None:
    if name not in PROGRAMS:
        raise KernelError(f'unknown controller "{name}"; known: {", ".join(PROGRAMS)}')


def _run(cmd: list[str], what: str) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr or proc.stdout).splitlines() if ln.strip()]
        tail = lines[-1] if lines else f"exit code {proc.returncode}"
        raise KernelError(f"{what}: {tail}")
    return proc.stdout


def build(name: str | None = None) -> None:
    """Builds the BPF objects (all, or one) with the ebpf/ Makefile."""
    target = [f"build/{name}.bpf.o"] if name else ["bpf"]
    _run(["make", "-s", "-C", str(ebpf_dir()), *target], "building the BPF programs failed")


def available() -> list[str]:
    """The kernel's available congestion controllers."""
    try:
        return AVAILABLE.read_text().split()
    except OSError:
        return []


def loaded() -> list[str]:
    """mpcc controllers registered with the running kernel."""
    return [n for n in available() if n in PROGRAMS]


def _require(tools: bool = True) -> None:
    missing = missing_requirement(tools=tools)
    if missing:
        raise KernelError(missing)


def load(name: str) -> None:
    _check_name(name)
    _require()
    if name in loaded():
        return
    if not object_path(name).exists():
        build(name)
    _run(["bpftool", "struct_ops", "register", str(object_path(name))], f"loading {name} failed")
    if name not in loaded():
        raise KernelError(f"{name} was registered but does not show in {AVAILABLE}")


def unload(name: str) -> None:
    _check_name(name)
    _require()
    if name not in loaded():
        raise KernelError(f"{name} is not loaded")
    try:
        _run(["bpftool", "struct_ops", "unregister", "name", name], f"unloading {name} failed")
    except KernelError:
        if name in loaded():
            raise


def list_programs() -> list[dict]:
    """Every controller: whether its object is built and whether it is loaded."""
    live = set(loaded())
    return [
        {"name": n, "algorithm": a, "built": object_path(n).exists(), "loaded": n in live}
        for n, a in PROGRAMS.items()
    ]


def _map_dump(map_name: str) -> list[dict]:
    """The entries of the newest map called `map_name`: an unloaded controller's
    maps live on (under the same name) while a socket still uses it, and the
    loaded one's were created last."""
    shown = json.loads(_run(["bpftool", "-j", "map", "show"], "listing BPF maps failed") or "[]")
    ids = [m["id"] for m in shown if m.get("name") == map_name]
    if not ids:
        return []
    out = _run(["bpftool", "-j", "map", "dump", "id", str(max(ids))], f"reading map {map_name} failed")
    data = json.loads(out or "[]")
    return data if isinstance(data, list) else []


def status(names: list[str] | None = None) -> list[dict]:
    """Coupled connections per loaded controller, read from its connection map:
    [{"controller", "msk", "token", "subflows": [{"slot", "cwnd", "srtt_us"}]}]."""
    _require(tools=False)
    conns = []
    for name in names or loaded():
        algo = name.removeprefix("mpcc_")
        for entry in _map_dump(f"conns_{algo}"):
            value = entry.get("formatted", {}).get("value") or entry.get("value")
            if not isinstance(value, dict):
                continue
            subflows = []
            for i, slot in enumerate(value.get("slots", [])):
                if int(slot.get("owner", 0)):
                    subflows.append(
                        {"slot": i, "cwnd": int(slot["cwnd"]) / 2**32, "srtt_us": int(slot["srtt_us"])}
                    )
            conns.append(
                {"controller": name, "msk": int(value.get("msk", 0)), "token": int(value.get("token", 0)),
                 "subflows": subflows}
            )
    return conns
