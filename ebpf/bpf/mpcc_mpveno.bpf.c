/* mpcc_mpveno: the mpveno core as a BPF tcp_congestion_ops (see docs/kernel.md). */
#define MPCC_ALGO mpveno
#include "../core/mpveno.h"
#include "glue.bpf.h"

MPCC_OPS(mpcc_mpveno, "mpcc_mpveno");
