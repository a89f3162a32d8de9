/* mpcc_wvegas: the wvegas core as a BPF tcp_congestion_ops (see docs/kernel.md). */
#define MPCC_ALGO wvegas
#include "../core/wvegas.h"
#include "glue.bpf.h"

MPCC_OPS(mpcc_wvegas, "mpcc_wvegas");
