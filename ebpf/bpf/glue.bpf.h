/* The struct_ops glue shared by every mpcc controller: it turns the kernel's
 * tcp_congestion_ops callbacks into the core's events and keeps the coupling
 * state in a per-connection map.
 *
 * Before including this file a program defines MPCC_ALGO (the core's prefix,
 * e.g. lia) and includes that core. Coupling (kernel-side concurrency): each
 * subflow runs its callbacks under its own socket lock, so two subflows of one
 * connection may run at once on two CPUs. Every subflow therefore owns one slot
 * of the connection's map entry, claimed with a compare-and-swap, and only it
 * writes there; the acting subflow reads its siblings' slots (a possibly stale
 * snapshot) to compute the aggregate and writes only its own socket. The slot is
 * freed in release(), and the last subflow to leave deletes the entry.
 *
 * A core whose state does not fit icsk_ca_priv beside the glue's fields (MPMTP)
 * defines MPCC_STATE_IN_SK_STORAGE: its state then lives in a socket-storage map,
 * created at init for MPTCP subflows only and freed by the kernel with the
 * socket; a subflow whose storage could not be created runs Reno. A core that
 * keeps the smoothed RTT of a loss defines MPCC_LOSS_SRTT: ssthresh() hands it
 * the kernel's srtt, which already includes the triggering ACK's sample. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char _license[] SEC("license") = "GPL";

#define MPCC_CAT(a, b) a##b
#define MPCC_XCAT(a, b) MPCC_CAT(a, b)
#define CORE(fn) MPCC_XCAT(MPCC_ALGO, fn)
#define STATE struct MPCC_XCAT(MPCC_ALGO, _state)
#define CONNS MPCC_XCAT(conns_, MPCC_ALGO)

/* Linux's CA states and events used here (values of the kernel's enums). */
#define CA_OPEN 0
#define CA_EVENT_LOSS_ID 5  /* CA_EVENT_LOSS */
#define INFINITE_SSTHRESH 0x7fffffff
/* Like reno and cubic, selectable by any socket and as a namespace's default. */
#define CONG_NON_RESTRICTED 0x1

extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

/* One coupled connection: its MPTCP token (for display) and one slot per subflow. */
struct mpcc_conn {
	__u64 msk;
	__u32 token;
	__u32 pad;
	struct mpcc_path slots[MPCC_MAX_SUBFLOWS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct mpcc_conn);
} CONNS SEC(".maps");

/* A zeroed entry to insert from (a struct mpcc_conn does not fit the BPF stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mpcc_conn);
} MPCC_XCAT(blank_, MPCC_ALGO) SEC(".maps");

#ifdef MPCC_STATE_IN_SK_STORAGE
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, STATE);
} MPCC_XCAT(mpcc_st_, MPCC_ALGO) SEC(".maps");
#endif

/* The per-subflow private area (icsk_ca_priv, zeroed by the kernel before init). */
struct mpcc_priv {
#ifndef MPCC_STATE_IN_SK_STORAGE
	STATE st;
#endif
	__u64 msk;         /* connection key, 0 = not attached */
	__u32 slot;        /* slot index + 1, 0 = none */
	__u32 round_end;   /* snd_nxt when the current round began */
	__u32 last_rtt_us; /* the RTT sample of the ACK being processed */
	__u32 mptcp;       /* 1: an MPTCP subflow */
};

_Static_assert(sizeof(struct mpcc_priv) <= 13 * sizeof(__u64), "icsk_ca_priv holds 104 bytes");

static __always_inline struct mpcc_priv *priv_of(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* The core's state of this subflow; 0 when it lives in socket storage and
 * there is none (not created, or creation failed). */
static __always_inline STATE *state_of(struct sock *sk, struct mpcc_priv *pv, int create)
{
#ifdef MPCC_STATE_IN_SK_STORAGE
	return bpf_sk_storage_get(&MPCC_XCAT(mpcc_st_, MPCC_ALGO), sk, 0,
				  create ? BPF_SK_STORAGE_GET_F_CREATE : 0);
#else
	return &pv->st;
#endif
}

static __always_inline int after32(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

/* The MPTCP connection (msk) this subflow belongs to, 0 if none. */
static __always_inline __u64 msk_of(struct sock *sk)
{
	struct inet_connection_sock *icsk = (void *)sk;
	struct mptcp_subflow_context *ctx;
	struct sock *conn;

	if (!((struct tcp_sock *)sk)->is_mptcp)
		return 0;
	ctx = (void *)icsk->icsk_ulp_data;
	if (!ctx)
		return 0;
	conn = BPF_CORE_READ(ctx, conn);
	return (__u64)conn;
}

/* Finds or creates this subflow's connection entry and claims a slot in it. */
static __always_inline struct mpcc_conn *attach(struct sock *sk, struct mpcc_priv *pv)
{
	struct mpcc_conn *c;
	__u64 key = pv->msk;
	__u32 zero = 0;
	int i;

	if (!key) {
		key = msk_of(sk);
		if (!key)
			return 0;
		pv->msk = key;
	}
	c = bpf_map_lookup_elem(&CONNS, &key);
	if (!c) {
		struct mpcc_conn *blank = bpf_map_lookup_elem(&MPCC_XCAT(blank_, MPCC_ALGO), &zero);
		if (!blank)
			return 0;
		bpf_map_update_elem(&CONNS, &key, blank, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&CONNS, &key);
		if (!c)
			return 0;
		c->msk = key;
		c->token = BPF_CORE_READ((struct mptcp_sock *)key, token);
		/* A slot held in an entry the last sibling deleted is gone: claim anew. */
		pv->slot = 0;
	}
	if (pv->slot)
		return c;
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++) {
		if (__sync_val_compare_and_swap(&c->slots[i].owner, 0, (__u64)sk) == 0) {
			pv->slot = i + 1;
			return c;
		}
	}
	return 0; /* more subflows than slots: this one stays uncoupled (Reno) */
}

/* The core's window follows the kernel's where the stack changed it (PRR,
 * recovery exit, timeout, undo); the fraction is kept when they agree. */
static __always_inline void sync_from_kernel(struct tcp_sock *tp, struct mpcc_win *w)
{
	__u64 cwnd = tp->snd_cwnd, ss = tp->snd_ssthresh;
	if ((w->cwnd >> MPCC_W_SHIFT) != cwnd)
		w->cwnd = cwnd << MPCC_W_SHIFT;
	if (ss >= INFINITE_SSTHRESH)
		w->ssthresh = MPCC_INF;
	else if ((w->ssthresh >> MPCC_W_SHIFT) != ss)
		w->ssthresh = ss << MPCC_W_SHIFT;
}

static __always_inline void sync_to_kernel(struct tcp_sock *tp, const struct mpcc_win *w)
{
	__u64 cwnd = w->cwnd >> MPCC_W_SHIFT;
	if (cwnd < 1)
		cwnd = 1;
	if (cwnd > tp->snd_cwnd_clamp)
		cwnd = tp->snd_cwnd_clamp;
	tp->snd_cwnd = cwnd;
	if (w->ssthresh < MPCC_INF)
		tp->snd_ssthresh = w->ssthresh >> MPCC_W_SHIFT;
}

/* The subflow's slot and entry, attaching on first use; 0 for plain TCP. */
static __always_inline struct mpcc_conn *coupled(struct sock *sk, struct mpcc_priv *pv, int *self)
{
	struct mpcc_conn *c;
	if (!pv->mptcp)
		return 0;
	c = attach(sk, pv);
	if (!c || !pv->slot || pv->slot > MPCC_MAX_SUBFLOWS)
		return 0;
	*self = (pv->slot - 1) & (MPCC_MAX_SUBFLOWS - 1);
	return c;
}

static __always_inline int cwnd_limited(struct tcp_sock *tp)
{
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited);
}

SEC("struct_ops/mpcc_init")
void BPF_PROG(mpcc_init, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct mpcc_priv *pv = priv_of(sk);
	STATE *st;

	pv->round_end = tp->snd_nxt;
	pv->mptcp = tp->is_mptcp ? 1 : 0;
#ifdef MPCC_STATE_IN_SK_STORAGE
	if (!pv->mptcp)
		return;
#endif
	st = state_of(sk, pv, 1);
	if (!st) {
		pv->mptcp = 0;
		return;
	}
	CORE(_init)(st, (__u64)tp->snd_cwnd << MPCC_W_SHIFT);
	if (pv->mptcp) {
		int self;
		coupled(sk, pv, &self);
	}
}

SEC("struct_ops/mpcc_cong_avoid")
void BPF_PROG(mpcc_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct mpcc_priv *pv = priv_of(sk);
	struct mpcc_conn *c;
	struct mpcc_ack ev = {};
	STATE *st = 0;
	int self = 0;

	c = coupled(sk, pv, &self);
	if (c)
		st = state_of(sk, pv, 0);
	if (!st) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	sync_from_kernel(tp, CORE(_win)(st));
	ev.acked = (__u64)acked << MPCC_W_SHIFT;
	ev.rtt_us = pv->last_rtt_us;
	pv->last_rtt_us = 0;
	ev.srtt_us = tp->srtt_us >> 3;
	ev.min_rtt_us = tp->rtt_min.s[0].v == ~0U ? 0 : tp->rtt_min.s[0].v;
	if (after32(ack, pv->round_end)) {
		ev.round_start = 1;
		pv->round_end = tp->snd_nxt;
	}
	ev.may_grow = cwnd_limited(tp);
	CORE(_on_ack)(st, c->slots, self, &ev);
	sync_to_kernel(tp, CORE(_win)(st));
}

SEC("struct_ops/mpcc_ssthresh")
__u32 BPF_PROG(mpcc_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct mpcc_priv *pv = priv_of(sk);
	struct mpcc_conn *c;
	STATE *st = 0;
	__u64 ss;
	int self = 0;

	c = coupled(sk, pv, &self);
	if (c)
		st = state_of(sk, pv, 0);
	if (!st)
		return tcp_reno_ssthresh(sk);
	sync_from_kernel(tp, CORE(_win)(st));
#ifdef MPCC_LOSS_SRTT
	if (tp->srtt_us)
		CORE(_win)(st)->srtt_us = mpcc_clamp_rtt(tp->srtt_us >> 3);
#endif
	CORE(_on_congestion)(st, c->slots, self, MPCC_LOSS);
	ss = CORE(_win)(st)->ssthresh >> MPCC_W_SHIFT;
	return ss < 2 ? 2 : ss;
}

SEC("struct_ops/mpcc_set_state")
void BPF_PROG(mpcc_set_state, struct sock *sk, __u8 new_state)
{
	struct mpcc_priv *pv = priv_of(sk);
	struct inet_connection_sock *icsk = (void *)sk;
	STATE *st;

	/* The old state is still visible here: a return to Open ends recovery. */
	if (new_state == CA_OPEN && BPF_CORE_READ_BITFIELD(icsk, icsk_ca_state) != CA_OPEN && pv->mptcp) {
		st = state_of(sk, pv, 0);
		if (st)
			CORE(_on_recovery_exit)(st);
	}
}

SEC("struct_ops/mpcc_cwnd_event")
void BPF_PROG(mpcc_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
}

SEC("struct_ops/mpcc_pkts_acked")
void BPF_PROG(mpcc_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct mpcc_priv *pv = priv_of(sk);
	if (sample->rtt_us > 0)
		pv->last_rtt_us = sample->rtt_us;
}

SEC("struct_ops/mpcc_undo_cwnd")
__u32 BPF_PROG(mpcc_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC("struct_ops/mpcc_release")
void BPF_PROG(mpcc_release, struct sock *sk)
{
	struct mpcc_priv *pv = priv_of(sk);
	struct mpcc_conn *c;
	__u64 key = pv->msk;
	int i, live = 0;

	if (!key || !pv->slot || pv->slot > MPCC_MAX_SUBFLOWS)
		return;
	c = bpf_map_lookup_elem(&CONNS, &key);
	if (!c)
		return;
	i = (pv->slot - 1) & (MPCC_MAX_SUBFLOWS - 1);
	c->slots[i].cwnd = 0;
	c->slots[i].srtt_us = 0;
	c->slots[i].rate = 0;
	c->slots[i].interloss = 0;
	c->slots[i].delivered = 0;
	c->slots[i].losses = 0;
	c->slots[i].alpha_mean = 0;
	c->slots[i].owner = 0;
	pv->slot = 0;
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++)
		live += c->slots[i].owner != 0;
	if (!live)
		bpf_map_delete_elem(&CONNS, &key);
}

#define MPCC_OPS(var, cc_name)                                   \
	SEC(".struct_ops")                                       \
	struct tcp_congestion_ops var = {                        \
		.init = (void *)mpcc_init,                       \
		.release = (void *)mpcc_release,                 \
		.ssthresh = (void *)mpcc_ssthresh,               \
		.cong_avoid = (void *)mpcc_cong_avoid,           \
		.set_state = (void *)mpcc_set_state,             \
		.cwnd_event = (void *)mpcc_cwnd_event,           \
		.pkts_acked = (void *)mpcc_pkts_acked,           \
		.undo_cwnd = (void *)mpcc_undo_cwnd,             \
		.flags = CONG_NON_RESTRICTED,                    \
		.name = cc_name,                                 \
	}
