/* mpcc_olia: the olia core as a BPF tcp_congestion_ops (see docs/kernel.md). */
#define MPCC_ALGO olia
#include "../core/olia.h"
#include "glue.bpf.h"

MPCC_OPS(mpcc_olia, "mpcc_olia");
