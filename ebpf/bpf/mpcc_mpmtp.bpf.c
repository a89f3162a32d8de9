/* mpcc_mpmtp: the mpmtp core as a BPF tcp_congestion_ops (see docs/kernel.md).
 * Its per-subflow state (104 bytes) does not fit icsk_ca_priv beside the glue's
 * fields, so it lives in socket storage; a loss keeps the kernel's srtt. */
#define MPCC_ALGO mpmtp
#define MPCC_STATE_IN_SK_STORAGE
#define MPCC_LOSS_SRTT
#include "../core/mpmtp.h"
#include "glue.bpf.h"

MPCC_OPS(mpcc_mpmtp, "mpcc_mpmtp");
