/* mpcc_noda: the noda core as a BPF tcp_congestion_ops (see docs/kernel.md). */
#define MPCC_ALGO noda
#include "../core/noda.h"
#include "glue.bpf.h"

MPCC_OPS(mpcc_noda, "mpcc_noda");
