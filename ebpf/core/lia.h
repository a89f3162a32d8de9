/* LIA, Linked Increases (Raiciu, Handley, Wischik, RFC 6356 "Coupled Congestion
 * Control for Multipath Transport Protocols", 2011), in its precise form: per
 * acked segment in congestion avoidance subflow r grows by
 * min(alpha / w_total, 1 / w_r) = 1 / max(N_r, w_r), with
 * N_r = (sum_i w_i rtt_b / rtt_i)^2 / w_b and b the subflow maximising
 * w / rtt^2. The decrease is Reno's halving. One subflow gives N = w: Reno. */
#ifndef MPCC_CORE_LIA_H
#define MPCC_CORE_LIA_H
#include "fixed.h"

struct lia_state {
	struct mpcc_win w;
};

MPCC_INLINE void lia_init(struct lia_state *s, mpcc_u64 init_cwnd)
{
	mpcc_win_init(&s->w, init_cwnd);
}

MPCC_INLINE struct mpcc_win *lia_win(struct lia_state *s) { return &s->w; }

MPCC_INLINE void lia_publish(const struct lia_state *s, struct mpcc_path *p)
{
	mpcc_publish_win(p, &s->w);
}

/* N_r in fixed point; paths[self] must hold this subflow's current view. */
MPCC_INLINE mpcc_u64 lia_denominator(const struct lia_state *s, const struct mpcc_path *paths)
{
	mpcc_u64 best_key = 0, w_b = 0, sum, n;
	mpcc_u32 rtt_b = 0;
	int i, found = 0;

	if (!s->w.srtt_us)
		return s->w.cwnd;
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++) {
		const struct mpcc_path *p = &paths[i];
		mpcc_u64 key;
		if (!mpcc_eligible(p))
			continue;
		key = mpcc_w_over_rtt2(p->cwnd, p->srtt_us);
		if (!found || key > best_key) {
			found = 1;
			best_key = key;
			w_b = p->cwnd;
			rtt_b = p->srtt_us;
		}
	}
	if (!found || !w_b)
		return s->w.cwnd;
	sum = mpcc_scaled_sum(paths, rtt_b);
	n = mpcc_muldiv(sum, sum, w_b);
	return n > s->w.cwnd ? n : s->w.cwnd;
}

MPCC_INLINE void lia_on_ack(struct lia_state *s, struct mpcc_path *paths, int self, const struct mpcc_ack *ev)
{
	mpcc_u64 left;
	mpcc_observe(&s->w, ev);
	left = mpcc_ca_segments(&s->w, ev);
	lia_publish(s, &paths[self]);
	if (left)
		s->w.cwnd += mpcc_frac(left, lia_denominator(s, paths));
	lia_publish(s, &paths[self]);
}

MPCC_INLINE void lia_on_congestion(struct lia_state *s, struct mpcc_path *paths, int self, int kind)
{
	mpcc_halve(&s->w, kind);
	lia_publish(s, &paths[self]);
}

MPCC_INLINE void lia_on_recovery_exit(struct lia_state *s) { (void)s; }

#endif
