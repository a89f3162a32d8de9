/* BALIA, Balanced Linked Adaptation (Peng, Walid, Hwang, Low, "Multipath TCP:
 * analysis, design, and implementation", IEEE/ACM Transactions on Networking,
 * 2016), precise form: with x = w / rtt and a_r = x_max / x_r, per acked segment
 * subflow r grows by (x_r / rtt_r) / (sum x)^2 * (1 + a_r)(4 + a_r) / 10, and on a
 * loss its window drops by w_r / 2 * min(a_r, 1.5). */
#ifndef MPCC_CORE_BALIA_H
#define MPCC_CORE_BALIA_H
#include "fixed.h"

struct balia_state {
	struct mpcc_win w;
};

MPCC_INLINE void balia_init(struct balia_state *s, mpcc_u64 init_cwnd)
{
	mpcc_win_init(&s->w, init_cwnd);
}

MPCC_INLINE struct mpcc_win *balia_win(struct balia_state *s) { return &s->w; }

MPCC_INLINE void balia_publish(const struct balia_state *s, struct mpcc_path *p)
{
	mpcc_publish_win(p, &s->w);
}

/* a_r = x_max / x_r in fixed point (1 when this subflow has no RTT yet). */
MPCC_INLINE mpcc_u64 balia_a(const struct balia_state *s, const struct mpcc_path *paths, mpcc_u64 *sum)
{
	mpcc_u64 x_max = 0, x_me;
	int i;
	*sum = 0;
	if (!s->w.srtt_us)
		return MPCC_ONE;
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++) {
		const struct mpcc_path *p = &paths[i];
		if (!mpcc_eligible(p))
			continue;
		*sum += mpcc_muldiv(p->cwnd, s->w.srtt_us, p->srtt_us);
		x_max = mpcc_max(x_max, mpcc_rate(p));
	}
	x_me = mpcc_muldiv(s->w.cwnd, 1ULL << 16, s->w.srtt_us);
	if (!x_me)
		return MPCC_ONE;
	return mpcc_max(mpcc_muldiv(x_max, MPCC_ONE, x_me), MPCC_ONE);
}

MPCC_INLINE void balia_on_ack(struct balia_state *s, struct mpcc_path *paths, int self, const struct mpcc_ack *ev)
{
	mpcc_u64 left, sum, a, f, n;
	mpcc_observe(&s->w, ev);
	left = mpcc_ca_segments(&s->w, ev);
	balia_publish(s, &paths[self]);
	if (left) {
		a = balia_a(s, paths, &sum);
		if (!s->w.srtt_us) {
			n = s->w.cwnd;
			f = MPCC_ONE;
		} else {
			n = mpcc_muldiv(sum, sum, s->w.cwnd);
			f = mpcc_muldiv(MPCC_ONE + a, 4 * MPCC_ONE + a, 10 * MPCC_ONE);
		}
		s->w.cwnd += mpcc_muldiv(left, f, n);
	}
	balia_publish(s, &paths[self]);
}

MPCC_INLINE void balia_on_congestion(struct balia_state *s, struct mpcc_path *paths, int self, int kind)
{
	mpcc_u64 sum, a = balia_a(s, paths, &sum);
	mpcc_u64 cut = mpcc_min(a, 3 * MPCC_ONE / 2) / 2;
	mpcc_reduce_to(&s->w, kind, mpcc_muldiv(s->w.cwnd, MPCC_ONE - cut, MPCC_ONE));
	balia_publish(s, &paths[self]);
}

MPCC_INLINE void balia_on_recovery_exit(struct balia_state *s) { (void)s; }

#endif
