"""S. Lee & K. Chung: MPMTP, multipath congestion control for high-quality streaming.
Pending: its scenarios need MPTCP connections (issue 3)."""

from ..reproduce import Paper
from . import MULTIPATH_PENDING

PAPER = Paper(
    name="mpmtp",
    title="Lee & Chung: MPMTP, multipath congestion control for streaming",
    reference="S. Lee, K. Chung: MPMTP (seeds/002; summary in shared/docs/seeds.md, section 3).",
    summary="Congested link, bandwidth increase, load balancing, comparison with MPCubic, uncoupled, "
    "COUPLED and LIA, CUBIC fairness, and the binomial schemes' loss counts.",
    pending=MULTIPATH_PENDING,
    planned_claims=(
        "MPMTP ramps up faster than MPCubic after background traffic leaves, with no burst losses (Fig. 18).",
        "With the load-balancing factor the lossier subflow's loss rate falls (Fig. 19, Table 2).",
        "MPMTP has AIMD-like losses and the highest throughput of the compared schemes (Fig. 20).",
        "A 2-subflow MPMTP and one CUBIC flow have similar total windows; the two subflows are equal (Fig. 21/22).",
        "The binomial schemes lose more packets than MPTCP (Table 1: 384, MPSQRT 6460, MPIAD 1544).",
        "MPMTP ramps 33 % faster than MPCubic with 39 % fewer losses.",
    ),
)
