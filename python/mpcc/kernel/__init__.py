"""mpcc's coupled congestion controllers on the running Linux kernel, as eBPF
struct_ops `tcp_congestion_ops` (see docs/kernel.md).

`programs` builds, loads, unloads and inspects them through Debian's clang and
bpftool; `requirements` names what a machine lacks; `testbed` is the
two-namespace MPTCP testbed the real-kernel tests use.
"""

from .programs import PROGRAMS, KernelError, available, build, list_programs, load, loaded, status, unload
from .lock import machine_lock
from .requirements import missing_requirement

__all__ = [
    "PROGRAMS",
    "KernelError",
    "available",
    "build",
    "list_programs",
    "load",
    "loaded",
    "machine_lock",
    "missing_requirement",
    "status",
    "unload",
]
