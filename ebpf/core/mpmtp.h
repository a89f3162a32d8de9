/* MPMTP, multipath multimedia transport protocol (S. Lee, K. Chung; see
 * docs/algorithms/mpmtp.md, whose readings of the paper this follows exactly,
 * with the simulator's default parameters). Per acked segment in congestion
 * avoidance subflow r grows by delta B_r alpha_r / w_r; a loss cuts beta w_r
 * (beta = 0.3) and sets w_max = w_r.
 * - alpha_r: concave below w_max, c (w - w_max)^2 + 1 with
 *   c = ((1 - beta) w_max - 1) / (beta w_max)^2, capped at w; convex at or above
 *   w_max, 1 on entry and +1 per round, capped at w; times the linear factor
 *   L = (hi - lo) / ((hi - lo) + (w - 1)(srtt - lo)) in [1/w, 1] once a round's
 *   minimum RTT lo exceeds the base RTT by 1/8 (hi: srtt at the last loss); the
 *   product shape * L floored at 1 (Eq. 11: 1 < alpha_r < w_r).
 * - B_r from the loss rates p = losses / delivered: b_hi = 1 - (p_max - p_min) /
 *   p_avg at p_max, b_lo = 2 - p_min / p_avg at p_min (both floored at 0.1), and
 *   the hyperbola through both in between.
 * - delta, common to all subflows (Eq. 30 as derived in mpmtp.md):
 *   k max_r(w_r^2 / (abar_r B_r rtt_r^(1/3))) / (sum x)^(4/3), k = (C (4 - beta) /
 *   (4 beta))^(1/3) beta, C = 0.4, abar_r the applied alpha's (L included, floored
 *   at 1) mean per acked segment over r's last loss cycle; at most 10.
 * With Y_r = (sum x) rtt_r = sum_i w_i rtt_r / rtt_i, each term of the max is
 * (w_r / Y_r) (w_r / Y_r^(1/3)) rtt_r / (abar_r B_r): every factor stays near
 * its own scale, so the 4/3 power never leaves 64 bits. */
#ifndef MPCC_CORE_MPMTP_H
#define MPCC_CORE_MPMTP_H
#include "fixed.h"

#define MPMTP_NO_RTT 0xffffffffU
/* beta = 3/10: the window keeps 7/10 at a loss. */
#define MPMTP_KEEP_NUM 7
#define MPMTP_CUT_NUM 3
#define MPMTP_BETA_DEN 10
/* k = (37/30)^(1/3) * 0.3 (C = 0.4, beta = 0.3) with 32 fractional bits;
 * test_cores.c checks it against libm's cbrt. */
#define MPMTP_K 1381787541ULL
#define MPMTP_DELTA_MAX (10 * MPCC_ONE)
/* b_floor = 0.1. */
#define MPMTP_B_FLOOR 429496730ULL
/* Loss rates carry 40 fractional bits (rates of 10^-6 keep 20 significant bits). */
#define MPMTP_P_SHIFT 40

struct mpmtp_state {
	struct mpcc_win w;
	mpcc_u64 w_max;       /* window at the last loss, 0 before the first */
	mpcc_u64 alpha_cvx;   /* convex alpha, fixed point */
	mpcc_u64 delivered;   /* segments delivered since the start */
	mpcc_u64 alpha_mean;  /* last cycle's mean alpha per acked segment, fixed point */
	mpcc_u64 alpha_sum;   /* this cycle: sum of alpha * acked, 16 fractional bits */
	mpcc_u64 alpha_acked; /* this cycle: acked segments, 16 fractional bits */
	mpcc_u32 losses;
	mpcc_u32 in_convex;
	mpcc_u32 rise_us;     /* round-minimum RTT at the rise, 0 = no rise this epoch */
	mpcc_u32 loss_rtt_us; /* srtt at the last loss, 0 = none */
	mpcc_u32 round_min;   /* this round's minimum RTT, MPMTP_NO_RTT = none */
	mpcc_u32 pad;
};

MPCC_INLINE void mpmtp_init(struct mpmtp_state *s, mpcc_u64 init_cwnd)
{
	mpcc_win_init(&s->w, init_cwnd);
	s->w_max = 0;
	s->alpha_cvx = MPCC_ONE;
	s->delivered = 0;
	s->alpha_mean = MPCC_ONE;
	s->alpha_sum = 0;
	s->alpha_acked = 0;
	s->losses = 0;
	s->in_convex = 0;
	s->rise_us = 0;
	s->loss_rtt_us = 0;
	s->round_min = MPMTP_NO_RTT;
	s->pad = 0;
}

MPCC_INLINE struct mpcc_win *mpmtp_win(struct mpmtp_state *s) { return &s->w; }

MPCC_INLINE void mpmtp_publish(const struct mpmtp_state *s, struct mpcc_path *p)
{
	mpcc_publish_win(p, &s->w);
	p->delivered = s->delivered;
	p->losses = s->losses;
	p->alpha_mean = s->alpha_mean;
}

/* The concave or convex alpha (without L); enters the convex profile at w_max. */
MPCC_INLINE mpcc_u64 mpmtp_shape(struct mpmtp_state *s)
{
	mpcc_u64 w = s->w.cwnd, w_max = s->w_max, a_max, span, ratio, a;

	if (!w_max)
		return MPCC_ONE;
	if (w < w_max) {
		s->in_convex = 0;
		a_max = w_max * MPMTP_KEEP_NUM / MPMTP_BETA_DEN;
		span = w_max * MPMTP_CUT_NUM / MPMTP_BETA_DEN;
		ratio = mpcc_div_q(w_max - w, span, MPCC_W_SHIFT);
		a = a_max > MPCC_ONE ? a_max - MPCC_ONE : 0;
		a = mpcc_mul_q(a, mpcc_mul_q(ratio, ratio, MPCC_W_SHIFT), MPCC_W_SHIFT) + MPCC_ONE;
		return mpcc_min(a, mpcc_max(w, MPCC_ONE));
	}
	if (!s->in_convex) {
		s->in_convex = 1;
		s->alpha_cvx = MPCC_ONE;
	}
	return s->alpha_cvx;
}

/* L: 1 until the RTT rise, then from 1 at the rise RTT down to 1/w at the RTT of
 * the last loss (the hyperbola through both, solved for its two constants). */
MPCC_INLINE mpcc_u64 mpmtp_linear(const struct mpmtp_state *s)
{
	mpcc_u32 cur = s->w.srtt_us, lo = s->rise_us, hi = s->loss_rtt_us;
	mpcc_u64 w = mpcc_max(s->w.cwnd, MPCC_ONE), l_min, den, l;

	if (!lo || cur <= lo)
		return MPCC_ONE;
	l_min = mpcc_div_q(MPCC_ONE, w, MPCC_W_SHIFT);
	if (hi <= lo)
		return l_min;
	den = MPCC_ONE + mpcc_mul_q(w - MPCC_ONE, mpcc_div_q(cur - lo, hi - lo, MPCC_W_SHIFT), MPCC_W_SHIFT);
	l = mpcc_div_q(MPCC_ONE, den, MPCC_W_SHIFT);
	return l < l_min ? l_min : l > MPCC_ONE ? MPCC_ONE : l;
}

MPCC_INLINE mpcc_u64 mpmtp_loss_rate(const struct mpcc_path *p)
{
	return mpcc_div_q(p->losses, p->delivered, MPMTP_P_SHIFT);
}

/* B at loss rate p given the extremes: b_hi at hi, b_lo at lo, and in between
 * b1 / (b2 + p) through both, written as b_hi b_lo / (b_hi (1 - f) + b_lo f)
 * with f = (p - lo) / (hi - lo): all terms positive, no signed arithmetic. */
MPCC_HELPER mpcc_u64 mpmtp_b_at(mpcc_u64 p, mpcc_u64 lo, mpcc_u64 hi, mpcc_u64 b_hi, mpcc_u64 b_lo)
{
	mpcc_u64 f, den, b;

	if (p >= hi)
		return b_hi;
	if (p <= lo || b_hi == b_lo)
		return b_lo;
	f = mpcc_div_q(p - lo, hi - lo, MPCC_W_SHIFT);
	den = mpcc_mul_q(b_hi, MPCC_ONE - f, MPCC_W_SHIFT) + mpcc_mul_q(b_lo, f, MPCC_W_SHIFT);
	b = mpcc_div_q(mpcc_mul_q(b_hi, b_lo, MPCC_W_SHIFT), den, MPCC_W_SHIFT);
	return mpcc_max(mpcc_min(b, mpcc_max(b_hi, b_lo)), mpcc_min(b_hi, b_lo));
}

/* The loss-rate extremes and the two end values of B over the subflows that
 * delivered something; returns 0 when B is 1 for everyone (fewer than two such
 * subflows, or equal rates). */
struct mpmtp_balance {
	mpcc_u64 lo, hi, b_hi, b_lo;
};

MPCC_INLINE int mpmtp_balance_of(const struct mpcc_path *paths, struct mpmtp_balance *bal)
{
	mpcc_u64 lo = ~0ULL, hi = 0, sum = 0, avg, r;
	int i, n = 0;

	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++) {
		const struct mpcc_path *q = &paths[i];
		mpcc_u64 p;
		if (!q->owner || !q->delivered)
			continue;
		p = mpmtp_loss_rate(q);
		lo = mpcc_min(lo, p);
		hi = mpcc_max(hi, p);
		sum += p;
		n++;
	}
	if (n < 2 || hi <= lo || !sum)
		return 0;
	avg = sum / (mpcc_u64)n;
	r = mpcc_div_q(hi - lo, avg, MPCC_W_SHIFT);
	bal->b_hi = r >= MPCC_ONE ? MPMTP_B_FLOOR : mpcc_max(MPCC_ONE - r, MPMTP_B_FLOOR);
	r = mpcc_div_q(lo, avg, MPCC_W_SHIFT);
	bal->b_lo = r >= 2 * MPCC_ONE ? MPMTP_B_FLOOR : mpcc_max(2 * MPCC_ONE - r, MPMTP_B_FLOOR);
	bal->lo = lo;
	bal->hi = hi;
	return 1;
}

MPCC_INLINE mpcc_u64 mpmtp_balance(const struct mpcc_path *p, const struct mpmtp_balance *bal, int on)
{
	if (!on || !p->delivered)
		return MPCC_ONE;
	return mpmtp_b_at(mpmtp_loss_rate(p), bal->lo, bal->hi, bal->b_hi, bal->b_lo);
}

/* One subflow's term of delta's max, srtt in microseconds, y = Y_r:
 * (w / y) (w / y^(1/3)) srtt / (abar B), srtt in seconds. */
MPCC_HELPER mpcc_u64 mpmtp_term(mpcc_u64 w, mpcc_u64 y, mpcc_u64 srtt_us, mpcc_u64 abar, mpcc_u64 b)
{
	mpcc_u64 u, v, t, secs;

	u = mpcc_div_q(w, y, MPCC_W_SHIFT);
	v = mpcc_div_q(w, mpcc_cbrt(y), MPCC_W_SHIFT);
	t = mpcc_mul_q(u, v, MPCC_W_SHIFT);
	secs = mpcc_div_q(srtt_us, 1000000, MPCC_W_SHIFT);
	t = mpcc_mul_q(t, secs, MPCC_W_SHIFT);
	t = mpcc_div_q(t, abar ? abar : MPCC_ONE, MPCC_W_SHIFT);
	return mpcc_div_q(t, b ? b : MPCC_ONE, MPCC_W_SHIFT);
}

/* The common fairness factor delta (1 when no subflow has an RTT). */
MPCC_INLINE mpcc_u64 mpmtp_delta(const struct mpcc_path *paths)
{
	struct mpmtp_balance bal = {0, 0, 0, 0};
	mpcc_u64 rates = 0, best = 0, d;
	int i, on;

	/* sum x in segments per microsecond, 48 fractional bits. */
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++)
		if (mpcc_eligible(&paths[i]))
			rates += mpcc_div_q(paths[i].cwnd, paths[i].srtt_us, 16);
	if (!rates)
		return MPCC_ONE;
	on = mpmtp_balance_of(paths, &bal);
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++) {
		const struct mpcc_path *p = &paths[i];
		mpcc_u64 y, t;
		if (!mpcc_eligible(p))
			continue;
		y = mpcc_mul_q(rates, p->srtt_us, 16);
		t = mpmtp_term(p->cwnd, y, p->srtt_us, p->alpha_mean, mpmtp_balance(p, &bal, on));
		best = mpcc_max(best, t);
	}
	d = mpcc_mul_q(best, MPMTP_K, MPCC_W_SHIFT);
	if (!d)
		return MPCC_ONE;
	return mpcc_min(d, MPMTP_DELTA_MAX);
}

MPCC_INLINE void mpmtp_on_ack(struct mpmtp_state *s, struct mpcc_path *paths, int self, const struct mpcc_ack *ev)
{
	struct mpmtp_balance bal = {0, 0, 0, 0};
	mpcc_u64 left, shape, a, b, d, inc;

	mpcc_observe(&s->w, ev);
	s->delivered += (ev->acked + (MPCC_ONE >> 1)) >> MPCC_W_SHIFT;
	if (ev->round_start) {
		/* RTT rise: the finished round's minimum above 9/8 of the base RTT. */
		if (s->w_max && !s->rise_us && s->round_min != MPMTP_NO_RTT &&
		    (mpcc_u64)s->round_min * 8 > (mpcc_u64)s->w.min_rtt_us * 9)
			s->rise_us = s->round_min;
		s->round_min = MPMTP_NO_RTT;
		if (s->in_convex)
			s->alpha_cvx = mpcc_min(s->alpha_cvx + MPCC_ONE, mpcc_max(s->w.cwnd, MPCC_ONE));
	}
	if (ev->rtt_us) {
		mpcc_u32 r = mpcc_clamp_rtt(ev->rtt_us);
		if (r < s->round_min)
			s->round_min = r;
	}
	left = mpcc_ca_segments(&s->w, ev);
	mpmtp_publish(s, &paths[self]);
	if (!left)
		return;
	shape = mpmtp_shape(s);
	/* Eq. 11: 1 <= alpha = shape * L <= w; the cycle mean is of this alpha. */
	a = mpcc_max(mpcc_mul_q(shape, mpmtp_linear(s), MPCC_W_SHIFT), MPCC_ONE);
	b = mpmtp_balance_of(paths, &bal);
	b = mpmtp_balance(&paths[self], &bal, (int)b);
	d = mpmtp_delta(paths);
	s->alpha_sum += mpcc_mul_q(a, left, 48);
	s->alpha_acked += left >> 16;
	if (s->alpha_sum >> 62) {
		/* Far beyond any real cycle; halving both keeps the mean. */
		s->alpha_sum >>= 1;
		s->alpha_acked >>= 1;
	}
	inc = mpcc_mul_q(mpcc_mul_q(mpcc_mul_q(d, b, MPCC_W_SHIFT), a, MPCC_W_SHIFT), left, MPCC_W_SHIFT);
	s->w.cwnd += mpcc_div_q(inc, s->w.cwnd, MPCC_W_SHIFT);
	mpmtp_publish(s, &paths[self]);
}

/* A loss, ECN or timeout. The caller leaves the smoothed RTT of the moment in
 * s->w.srtt_us (the glue from the kernel's, the replay from the record): it is
 * the RTT at which the linear profile reaches 1/w in the next epoch. */
MPCC_INLINE void mpmtp_on_congestion(struct mpmtp_state *s, struct mpcc_path *paths, int self, int kind)
{
	s->losses++;
	if (s->alpha_acked)
		s->alpha_mean = mpcc_div_q(s->alpha_sum, s->alpha_acked, MPCC_W_SHIFT);
	s->alpha_sum = 0;
	s->alpha_acked = 0;
	s->w_max = s->w.cwnd;
	s->loss_rtt_us = s->w.srtt_us;
	s->rise_us = 0;
	s->in_convex = 0;
	mpcc_reduce_to(&s->w, kind, s->w.cwnd * MPMTP_KEEP_NUM / MPMTP_BETA_DEN);
	mpmtp_publish(s, &paths[self]);
}

MPCC_INLINE void mpmtp_on_recovery_exit(struct mpmtp_state *s) { (void)s; }

#endif
