"""Se-Yong Park (PhD thesis): application-level delay of MPTCP (TSC, R-TSC, subflow
population control). Pending: needs MPTCP connections (issue 3) and the delay
controls. Its single-path model check (Eq. 3.9) runs today in the `tcp` entry."""

from ..reproduce import Paper
from . import MULTIPATH_PENDING

PAPER = Paper(
    name="park",
    title="Park (thesis): application-level delay of MPTCP",
    reference="S.-Y. Park, PhD thesis (seeds/004; summary in shared/docs/seeds.md, section 5).",
    summary="TSC against conventional MPTCP (delay, cost, utilization), the RTT model and R-TSC, and "
    "receiver-side CoDel population control of subflows on one path.",
    pending=MULTIPATH_PENDING + "; also the delay controls (TSC, R-TSC, population control)",
    planned_claims=(
        "Conventional MPTCP: only 24 % (uncoupled) / 18 % (coupled) of packets meet the delay requirement; "
        "95th percentile about 2 s.",
        "TSC keeps delays within the bound and trades cost for delay.",
        "Eq. 3.9 predicts a single Reno flow's rate (Fig. 3.4) - checked today by the tcp entry.",
        "R-TSC shortens application delay over LIA with round-robin and lowest-RTT-first scheduling.",
        "One CUBIC flow through CoDel under-utilizes the link; 20 subflows have multi-second delays.",
        "Population control keeps delay under about 0.6 s (static) / 1 s (dynamic) with near-full "
        "utilization over 80 % of the time.",
    ),
)
