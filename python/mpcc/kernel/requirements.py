"""What the running machine lacks for mpcc's kernel controllers, as one phrase."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

# MPCC_BTF overrides the BTF file (the tests point it at one without struct_ops).
BTF = Path(os.environ.get("MPCC_BTF", "/sys/kernel/btf/vmlinux"))
MPTCP_SYSCTL = Path("/proc/sys/net/mptcp/enabled")
TOOLS = ("clang", "bpftool")


def _struct_ops_tcp() -> bool:
    """True when the kernel's BTF describes BPF struct_ops for tcp_congestion_ops."""
    try:
        data = BTF.read_bytes()
    except OSError:
        return False
    return b"bpf_struct_ops_tcp_congestion_ops" in data


def missing_requirement(tools: bool = True, mptcp: bool = False) -> str | None:
    """The first missing requirement, or None when all are there.

    Root, the kernel's BTF, BPF struct_ops for TCP congestion control and (when
    `tools`) clang and bpftool are always needed; MPTCP only for the testbed.
    """
    if os.geteuid() != 0:
        return "root is required to load BPF congestion controllers"
    if not BTF.exists():
        return f"the kernel has no BTF ({BTF} is missing)"
    if not _struct_ops_tcp():
        return "the kernel has no BPF struct_ops for tcp_congestion_ops"
    if mptcp:
        try:
            if MPTCP_SYSCTL.read_text().strip() != "1":
                return "MPTCP is disabled (net.mptcp.enabled is not 1)"
        except OSError:
            return "the kernel has no MPTCP (net.mptcp.enabled is missing)"
    if tools:
        for tool in TOOLS:
            if not shutil.which(tool):
                return f"{tool} is not installed (Debian: apt-get install clang libbpf-dev bpftool)"
    return None
