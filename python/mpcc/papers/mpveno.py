"""T.-A. Le: MPVeno, multipath TCP Veno for wireless losses.
Pending: its scenarios need MPTCP connections (issue 3)."""

from ..reproduce import Paper
from . import MULTIPATH_PENDING

PAPER = Paper(
    name="mpveno",
    title="Le: MPVeno, multipath TCP Veno for wireless losses",
    reference="T.-A. Le: MPVeno (seeds/001; summary in shared/docs/seeds.md, section 2).",
    summary="Congestion balance, fairness, goodput against random loss on wireless paths, and friendliness "
    "of MPVeno against OLIA, MPTCPW, wMPTCPW, LIA.",
    pending=MULTIPATH_PENDING,
    planned_claims=(
        "MPTCPW moves traffic to the lightly loaded long path; wMPTCPW does not (Fig. 2/3a).",
        "A 2-path MPVeno and one TCP Veno sharing a bottleneck send about the same amount of data (Fig. 3b/4).",
        "Under random loss MPVeno's goodput exceeds OLIA's, MPTCPW's is highest (Fig. 3c/5).",
        "A larger beta gives MPVeno more goodput under random loss (Fig. 5).",
        "On wired paths MPTCPW takes more than OLIA; MPVeno shares fairly with OLIA (Fig. 3d/6).",
    ),
)
