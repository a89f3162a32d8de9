/* OLIA, Opportunistic Linked Increases (Khalili, Gast, Popovic, Le Boudec,
 * "MPTCP is not Pareto-optimal: performance issues and a possible solution",
 * IEEE/ACM Transactions on Networking, 2013), precise form: per acked segment
 * subflow r grows by (w_r / rtt_r^2) / (sum_p w_p / rtt_p)^2 + eps_r / w_r, with
 * eps moving window from the largest-window paths to the best paths (largest
 * interloss / rtt^2) that are not largest. Decrease: Reno's halving. */
#ifndef MPCC_CORE_OLIA_H
#define MPCC_CORE_OLIA_H
#include "fixed.h"

struct olia_state {
	struct mpcc_win w;
	mpcc_u64 l1;  /* segments delivered between the last two losses */
	mpcc_u64 l2;  /* segments delivered since the last loss */
};

MPCC_INLINE void olia_init(struct olia_state *s, mpcc_u64 init_cwnd)
{
	mpcc_win_init(&s->w, init_cwnd);
	s->l1 = 0;
	s->l2 = 0;
}

MPCC_INLINE mpcc_u64 olia_interloss(const struct olia_state *s)
{
	return mpcc_max(s->l1, s->l2);
}

MPCC_INLINE struct mpcc_win *olia_win(struct olia_state *s) { return &s->w; }

MPCC_INLINE void olia_publish(const struct olia_state *s, struct mpcc_path *p)
{
	mpcc_publish_win(p, &s->w);
	p->interloss = olia_interloss(s);
}

MPCC_INLINE void olia_record_loss(struct olia_state *s)
{
	if (s->l2) {
		s->l1 = s->l2;
		s->l2 = 0;
	}
}

/* The window change for `left` acked segments, signed, fixed point. */
MPCC_INLINE mpcc_s64 olia_increase(const struct olia_state *s, const struct mpcc_path *paths, mpcc_u64 left)
{
	mpcc_u64 sum = 0, max_w = 0, best = 0, me_key, n_bm = 0, n_m = 0, n = 0, inc, eps;
	mpcc_u32 me_rtt = s->w.srtt_us;
	int i, any = 0, in_m;

	if (!me_rtt)
		return (mpcc_s64)mpcc_frac(left, s->w.cwnd);
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++) {
		const struct mpcc_path *p = &paths[i];
		mpcc_u64 key;
		n += p->owner != 0;
		if (!mpcc_eligible(p))
			continue;
		sum += mpcc_muldiv(p->cwnd, me_rtt, p->srtt_us);
		max_w = mpcc_max(max_w, p->cwnd);
		key = mpcc_w_over_rtt2(p->interloss, p->srtt_us);
		if (!any || key > best)
			best = key;
		any = 1;
	}
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++) {
		const struct mpcc_path *p = &paths[i];
		if (!mpcc_eligible(p))
			continue;
		if (p->cwnd == max_w)
			n_m++;
		else if (mpcc_w_over_rtt2(p->interloss, p->srtt_us) == best)
			n_bm++;
	}
	inc = mpcc_frac(left, mpcc_muldiv(sum, sum, s->w.cwnd));
	if (!n_bm || !n)
		return (mpcc_s64)inc;
	in_m = s->w.cwnd == max_w;
	me_key = mpcc_w_over_rtt2(olia_interloss(s), me_rtt);
	if (in_m) {
		eps = mpcc_muldiv(left, MPCC_ONE, s->w.cwnd * n * n_m);
		return (mpcc_s64)inc - (mpcc_s64)eps;
	}
	if (me_key == best)
		return (mpcc_s64)(inc + mpcc_muldiv(left, MPCC_ONE, s->w.cwnd * n * n_bm));
	return (mpcc_s64)inc;
}

MPCC_INLINE void olia_apply(struct mpcc_win *w, mpcc_s64 delta)
{
	mpcc_s64 c = (mpcc_s64)w->cwnd + delta;
	w->cwnd = c < (mpcc_s64)MPCC_ONE ? MPCC_ONE : (mpcc_u64)c;
}

MPCC_INLINE void olia_on_ack(struct olia_state *s, struct mpcc_path *paths, int self, const struct mpcc_ack *ev)
{
	mpcc_u64 left;
	mpcc_observe(&s->w, ev);
	s->l2 += ev->acked;
	left = mpcc_ca_segments(&s->w, ev);
	olia_publish(s, &paths[self]);
	if (left)
		olia_apply(&s->w, olia_increase(s, paths, left));
	olia_publish(s, &paths[self]);
}

MPCC_INLINE void olia_on_congestion(struct olia_state *s, struct mpcc_path *paths, int self, int kind)
{
	olia_record_loss(s);
	mpcc_halve(&s->w, kind);
	olia_publish(s, &paths[self]);
}

MPCC_INLINE void olia_on_recovery_exit(struct olia_state *s) { (void)s; }

#endif
