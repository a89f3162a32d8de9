"""Tao & Yan: CDD-MPTCP, control of the delay difference between subflows.
Pending: its scenarios need MPTCP connections (issue 3)."""

from ..reproduce import Paper
from . import MULTIPATH_PENDING

PAPER = Paper(
    name="cdd",
    title="Tao & Yan: CDD-MPTCP, controlling the delay difference",
    reference="Tao, Yan: CDD-MPTCP (seeds/003; summary in shared/docs/seeds.md, section 4).",
    summary="Two paths of 4 and 2 Mbit/s, a 100-MSS receive buffer, a long transfer: goodput and "
    "receive-buffer occupancy over time, CDD against standard MPTCP.",
    pending=MULTIPATH_PENDING,
    planned_claims=(
        "CDD's goodput is close to the 6 Mbit/s aggregate and stable.",
        "Standard MPTCP's goodput at times falls to the slow path's rate.",
        "CDD's receive-buffer occupancy stays near 100 packets; MPTCP's is much larger.",
    ),
)
