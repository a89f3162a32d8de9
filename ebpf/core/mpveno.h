/* MPVeno, multipath TCP Veno (T.-A. Le, "Improving the Performance of Multipath
 * Congestion Control over Wireless Networks"; TCP Veno: C. P. Fu, S. C. Liew,
 * IEEE JSAC 2003; see docs/algorithms/mpveno.md). Subflow r estimates its backlog
 * n_r = w_r (1 - base_r / rtt_r) and compares it with max(1, theta_r * beta),
 * theta_r = x_r / sum x. The increase is OLIA's, on every ACK below the threshold
 * and every second ACK at or above it; a loss cuts w/5 below it (random loss)
 * and w/2 otherwise. */
#ifndef MPCC_CORE_MPVENO_H
#define MPCC_CORE_MPVENO_H
#include "olia.h"

#define MPVENO_BETA 3

struct mpveno_state {
	struct olia_state o;
	mpcc_u32 skip;  /* the next congestive ACK is skipped */
	mpcc_u32 pad;
};

MPCC_INLINE void mpveno_init(struct mpveno_state *s, mpcc_u64 init_cwnd)
{
	olia_init(&s->o, init_cwnd);
	s->skip = 0;
	s->pad = 0;
}

MPCC_INLINE struct mpcc_win *mpveno_win(struct mpveno_state *s) { return &s->o.w; }

MPCC_INLINE void mpveno_publish(const struct mpveno_state *s, struct mpcc_path *p)
{
	olia_publish(&s->o, p);
}

MPCC_INLINE int mpveno_congestive(const struct mpveno_state *s, const struct mpcc_path *paths)
{
	const struct mpcc_win *w = &s->o.w;
	mpcc_u64 backlog = 0, sum = 0, me = 0, thr;
	int i;
	if (w->rtt_us && w->min_rtt_us && w->rtt_us > w->min_rtt_us)
		backlog = mpcc_muldiv(w->cwnd, w->rtt_us - w->min_rtt_us, w->rtt_us);
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++)
		sum += mpcc_rate(&paths[i]);
	if (w->srtt_us)
		me = mpcc_muldiv(w->cwnd, 1ULL << 16, w->srtt_us);
	thr = sum ? mpcc_muldiv(me, MPVENO_BETA * MPCC_ONE, sum) : MPVENO_BETA * MPCC_ONE;
	return backlog >= mpcc_max(thr, MPCC_ONE);
}

MPCC_INLINE void mpveno_on_ack(struct mpveno_state *s, struct mpcc_path *paths, int self, const struct mpcc_ack *ev)
{
	mpcc_u64 left;
	mpcc_observe(&s->o.w, ev);
	s->o.l2 += ev->acked;
	left = mpcc_ca_segments(&s->o.w, ev);
	mpveno_publish(s, &paths[self]);
	if (left) {
		int grow = 1;
		if (mpveno_congestive(s, paths)) {
			s->skip = !s->skip;
			grow = s->skip; /* every second ACK only */
		}
		if (grow)
			olia_apply(&s->o.w, olia_increase(&s->o, paths, left));
	}
	mpveno_publish(s, &paths[self]);
}

MPCC_INLINE void mpveno_on_congestion(struct mpveno_state *s, struct mpcc_path *paths, int self, int kind)
{
	int congestive = mpveno_congestive(s, paths);
	mpcc_u64 w = s->o.w.cwnd;
	olia_record_loss(&s->o);
	mpcc_reduce_to(&s->o.w, kind, congestive ? w >> 1 : w * 4 / 5);
	mpveno_publish(s, &paths[self]);
}

MPCC_INLINE void mpveno_on_recovery_exit(struct mpveno_state *s) { (void)s; }

#endif
