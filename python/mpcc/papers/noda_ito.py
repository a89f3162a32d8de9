"""Noda & Ito: MPTCP congestion control that suppresses RTT fluctuation.
Pending: its scenarios need MPTCP connections (issue 3)."""

from ..reproduce import Paper
from . import MULTIPATH_PENDING

PAPER = Paper(
    name="noda_ito",
    title="Noda & Ito: MPTCP congestion control suppressing RTT fluctuation",
    reference="Noda, Ito: multipath TCP congestion control that suppresses QoS (RTT) fluctuation "
    "(seeds/000; summary in shared/docs/seeds.md, section 1).",
    summary="Two paths, background TCP load, Env1-6; RTT variance and mean throughput of the proposal "
    "against LIA, OLIA and wVegas with 95 % confidence intervals.",
    pending=MULTIPATH_PENDING,
    planned_claims=(
        "The proposal has the lowest RTT variance in all six environments.",
        "Its mean throughput is lower than the others' in Env1, 4 and 5.",
        "Its mean throughput is not lower than the others' in Env2, 3 and 6.",
    ),
)
