/* mpcc_lia: the lia core as a BPF tcp_congestion_ops (see docs/kernel.md). */
#define MPCC_ALGO lia
#include "../core/lia.h"
#include "glue.bpf.h"

MPCC_OPS(mpcc_lia, "mpcc_lia");
