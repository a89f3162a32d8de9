/* mpcc_balia: the balia core as a BPF tcp_congestion_ops (see docs/kernel.md). */
#define MPCC_ALGO balia
#include "../core/balia.h"
#include "glue.bpf.h"

MPCC_OPS(mpcc_balia, "mpcc_balia");
