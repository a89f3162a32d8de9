/* Unit tests of the integer cores: the reference vectors of the papers' and
 * the out-of-tree kernel's arithmetic (in their real-valued "ideal" form, which
 * is what the simulator implements), plus Reno equivalence for one subflow.
 * Prints "N passed, N failed" and exits non-zero on a failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "../core/lia.h"
#include "../core/olia.h"
#include "../core/balia.h"
#include "../core/wvegas.h"
#include "../core/noda.h"
#include "../core/mpveno.h"
#include "../core/mpmtp.h"

static int passed, failed;

static double seg(mpcc_u64 q) { return (double)q / MPCC_ONE; }
static mpcc_u64 fx(double v) { return (mpcc_u64)(v * MPCC_ONE + 0.5); }

static void near(const char *what, double got, double want, double tol)
{
	if (fabs(got - want) <= tol) {
		passed++;
	} else {
		failed++;
		printf("FAIL %s: got %.6f want %.6f (tol %g)\n", what, got, want, tol);
	}
}

/* paths[i] = (cwnd, srtt in ms) for i < n; the rest free. */
static void set_paths(struct mpcc_path *p, int n, const double (*v)[2])
{
	memset(p, 0, sizeof(struct mpcc_path) * MPCC_MAX_SUBFLOWS);
	for (int i = 0; i < n; i++) {
		p[i].owner = i + 1;
		p[i].cwnd = fx(v[i][0]);
		p[i].srtt_us = p[i].rtt_us = p[i].min_rtt_us = (mpcc_u32)(v[i][1] * 1000);
	}
}

static void win_from(struct mpcc_win *w, const struct mpcc_path *p)
{
	w->cwnd = p->cwnd;
	w->ssthresh = p->cwnd;
	w->srtt_us = p->srtt_us;
	w->rtt_us = p->rtt_us;
	w->min_rtt_us = p->min_rtt_us;
}

static void test_lia(void)
{
	/* L1..L4 (ideal): per-segment increase 1/N. */
	static const struct { int n; double v[2][2]; double want; const char *name; } c[] = {
		{2, {{10, 100}, {10, 100}}, 40.0, "L1"},
		{2, {{40, 10}, {20, 50}}, 48.40, "L2"},
		{2, {{10, 100}, {10, 200}}, 22.5, "L3"},
		{2, {{10, 200}, {10, 100}}, 22.5, "L3'"},
		{1, {{100, 100}}, 100.0, "L4"},
	};
	struct mpcc_path p[MPCC_MAX_SUBFLOWS];
	for (unsigned k = 0; k < sizeof c / sizeof c[0]; k++) {
		set_paths(p, c[k].n, c[k].v);
		for (int r = 0; r < c[k].n; r++) {
			struct lia_state s;
			char what[32];
			win_from(&s.w, &p[r]);
			snprintf(what, sizeof what, "lia %s r=%d", c[k].name, r);
			near(what, seg(lia_denominator(&s, p)), c[k].want, 0.01);
		}
	}
	/* The 1/w_r cap: a big window on a slow path next to a fast one. */
	static const double cap[2][2] = {{10, 10}, {50, 1000}};
	set_paths(p, 2, cap);
	struct lia_state s;
	win_from(&s.w, &p[1]);
	near("lia cap 1/w", seg(lia_denominator(&s, p)), 50.0, 1e-6);
	win_from(&s.w, &p[0]);
	near("lia fast path", seg(lia_denominator(&s, p)), 11.025, 1e-3);
}

static double olia_inc1024(const struct mpcc_path *p, int r, double l1, double l2)
{
	struct olia_state s;
	win_from(&s.w, &p[r]);
	s.l1 = fx(l1);
	s.l2 = fx(l2);
	return 1024.0 * (double)olia_increase(&s, p, MPCC_ONE) / MPCC_ONE;
}

static void test_olia(void)
{
	struct mpcc_path p[MPCC_MAX_SUBFLOWS];
	static const double o1[2][2] = {{10, 100}, {5, 100}};
	set_paths(p, 2, o1);
	near("olia O1 A", olia_inc1024(p, 0, 0, 0), -5.69, 0.01);
	near("olia O1 B", olia_inc1024(p, 1, 0, 0), 125.16, 0.01);
	static const double o2[2][2] = {{30, 20}, {12, 40}};
	set_paths(p, 2, o2);
	p[0].interloss = fx(50000);
	p[1].interloss = fx(400000);
	near("olia O2 A", olia_inc1024(p, 0, 50000, 10000), 6.64, 0.01);
	near("olia O2 B", olia_inc1024(p, 1, 400000, 100000), 45.04, 0.01);
	p[0].interloss = fx(400000);
	p[1].interloss = fx(50000);
	near("olia O3 A", olia_inc1024(p, 0, 400000, 100000), 23.70, 0.01);
	near("olia O3 B", olia_inc1024(p, 1, 50000, 10000), 2.37, 0.01);
	static const double o4[1][2] = {{10, 100}};
	set_paths(p, 1, o4);
	near("olia O4", olia_inc1024(p, 0, 0, 0), 102.4, 0.01);
}

static void balia_case(const char *name, const double (*v)[2], int r, double ai, double ssthresh)
{
	struct mpcc_path p[MPCC_MAX_SUBFLOWS];
	struct balia_state s;
	struct mpcc_ack ev = {MPCC_ONE, 0, 0, 0, 0, 1, 0};
	char what[48];
	set_paths(p, 2, v);
	if (v[1][0] == 0)
		p[1].owner = 0;
	mpcc_u64 w0 = p[r].cwnd;
	win_from(&s.w, &p[r]);
	balia_on_ack(&s, p, r, &ev);
	snprintf(what, sizeof what, "balia %s r=%d ai", name, r);
	near(what, 1.0 / seg(s.w.cwnd - w0), ai, ai * 1e-4);
	set_paths(p, 2, v);
	if (v[1][0] == 0)
		p[1].owner = 0;
	win_from(&s.w, &p[r]);
	balia_on_congestion(&s, p, r, MPCC_LOSS);
	snprintf(what, sizeof what, "balia %s r=%d ssthresh", name, r);
	near(what, seg(s.w.ssthresh), ssthresh, 1e-4);
}

static void test_balia(void)
{
	static const double b1[2][2] = {{10, 100}, {10, 100}};
	static const double b2[2][2] = {{20, 20}, {10, 80}};
	static const double b3[2][2] = {{300, 10}, {60, 40}};
	static const double b4[2][2] = {{10, 100}, {0, 0}};
	/* B1..B4 (ideal ai = 1 / per-ACK increase, and the ideal decrease). */
	balia_case("B1", b1, 0, 40.0, 5.0);
	balia_case("B2", b2, 0, 25.3125, 10.0);
	balia_case("B2", b2, 1, 75.0, 2.5);
	balia_case("B3", b3, 0, 330.75, 150.0);
	balia_case("B3", b3, 1, 525.0, 15.0);
	balia_case("B4", b4, 0, 10.0, 5.0);
}

static void wvegas_case(const char *name, double cwnd, mpcc_u32 base, mpcc_u32 mean, mpcc_u32 qd,
			double other_w, mpcc_u32 other_rtt, double want)
{
	struct mpcc_path p[MPCC_MAX_SUBFLOWS];
	struct wvegas_state s;
	memset(p, 0, sizeof p);
	wvegas_init(&s, fx(cwnd));
	s.w.ssthresh = fx(2);
	s.base_us = base;
	s.queue_delay = qd;
	p[0].owner = 1;
	if (other_w > 0) {
		p[1].owner = 2;
		p[1].rate = mpcc_muldiv(fx(other_w), 1ULL << 16, other_rtt);
	}
	wvegas_round(&s, p, 0, mean);
	near(name, seg(s.w.cwnd), want, 1e-3);
}

static void test_wvegas(void)
{
	/* W1..W3 with the paper's real-valued weights: alpha 5.5 and 8.9. */
	wvegas_case("wvegas W1", 20, 10001, 12001, 1500, 30, 22001, 21.0);
	/* W2: no queueing delay, so no drain (the kernel's zero-queue halving is a quirk). */
	wvegas_case("wvegas W2", 20, 10001, 10001, 0, 0, 0, 21.0);
	wvegas_case("wvegas W3", 40, 10001, 15001, 2000, 10, 30001, 39.0 * 10001 / 30002);
}

static void test_noda(void)
{
	struct mpcc_path p[MPCC_MAX_SUBFLOWS];
	struct noda_state s;
	struct mpcc_ack ev = {MPCC_ONE, 20000, 20000, 20000, 0, 1, 0};
	memset(p, 0, sizeof p);
	p[0].owner = 1;
	noda_init(&s, fx(10));
	s.w.ssthresh = fx(10);
	/* RecentRTT 20 ms below MeanRTT 25 ms: +1/(2w). */
	s.recent = 20000;
	s.mean = 25000ULL << NODA_MEAN_SHIFT;
	noda_on_ack(&s, p, 0, &ev);
	near("noda grow 1/(2w)", seg(s.w.cwnd), 10.05, 1e-4);
	/* At or above the mean: -1/w. */
	s.w.cwnd = fx(10);
	s.mean = 20000ULL << NODA_MEAN_SHIFT;
	noda_on_ack(&s, p, 0, &ev);
	near("noda shrink 1/w", seg(s.w.cwnd), 9.9, 1e-4);
	/* A round boundary folds the round minimum into the mean with weight 0.2. */
	s.round_min = 30000;
	ev.round_start = 1;
	noda_on_ack(&s, p, 0, &ev);
	near("noda mean", (double)s.mean / (double)(1ULL << NODA_MEAN_SHIFT), 22000.0, 0.01);
	noda_on_congestion(&s, p, 0, MPCC_LOSS);
	near("noda loss beta 1/2", seg(s.w.ssthresh), seg(p[0].cwnd), 1e-9);
}

static void test_mpveno(void)
{
	struct mpcc_path p[MPCC_MAX_SUBFLOWS];
	struct mpveno_state s;
	/* N1: backlog 5.71 >= 3 (congestive): halving. N2: 0.95 < 3: cut w/5. */
	memset(p, 0, sizeof p);
	p[0].owner = 1;
	mpveno_init(&s, fx(20));
	s.o.w.srtt_us = 14001;
	s.o.w.rtt_us = 14001;
	s.o.w.min_rtt_us = 10001;
	mpveno_publish(&s, &p[0]);
	mpveno_on_congestion(&s, p, 0, MPCC_LOSS);
	near("mpveno N1", seg(s.o.w.ssthresh), 10.0, 1e-6);
	mpveno_init(&s, fx(20));
	s.o.w.srtt_us = 10501;
	s.o.w.rtt_us = 10501;
	s.o.w.min_rtt_us = 10001;
	mpveno_publish(&s, &p[0]);
	mpveno_on_congestion(&s, p, 0, MPCC_LOSS);
	near("mpveno N2", seg(s.o.w.ssthresh), 16.0, 1e-6);
}

/* The fixed-point helpers MPMTP needs, against exact host arithmetic. */
static void test_fixed(void)
{
	static const mpcc_u64 cubes[][2] = {
		{0, 0}, {1, 1}, {7, 1}, {8, 2}, {26, 2}, {27, 3}, {999999, 99}, {1000000, 100},
		{1ULL << 63, 1ULL << 21}, {~0ULL, 2642245}, /* 2642245^3 < 2^64 <= 2642246^3 */
	};
	for (unsigned i = 0; i < sizeof cubes / sizeof cubes[0]; i++) {
		char what[48];
		snprintf(what, sizeof what, "icbrt(%llu)", cubes[i][0]);
		near(what, (double)mpcc_icbrt(cubes[i][0]), (double)cubes[i][1], 0);
	}
	/* Cube root of fixed-point values from 10^-6 to 10^6 (of the value the
	 * fixed point holds: 10^-6 itself is 4295 units). */
	double worst = 0;
	for (double v = 1e-6; v < 1e6; v *= 1.37) {
		double got = seg(mpcc_cbrt(fx(v))), want = cbrt(seg(fx(v)));
		worst = fmax(worst, fabs(got - want) / want);
	}
	near("cbrt relative error < 2^-19", worst < 1.0 / (1 << 19), 1, 0);
	/* mul_q is the exact 128-bit product shifted; div_q keeps >= 32 bits. */
	static const mpcc_u64 ab[][2] = {
		{0xffffffffffffffffULL, 0xffffffffffffffffULL}, {0x123456789abcdefULL, 0xfedcba987654321ULL},
		{3ULL << 40, 5ULL << 20}, {1ULL << 32, 1ULL << 32}, {12345, 67890},
	};
	int exact = 1, close = 1;
	for (unsigned i = 0; i < sizeof ab / sizeof ab[0]; i++) {
		unsigned __int128 prod = (unsigned __int128)ab[i][0] * ab[i][1];
		unsigned __int128 want = prod >> 40;
		mpcc_u64 got = mpcc_mul_q(ab[i][0], ab[i][1], 40);
		exact &= want >> 64 ? got == ~0ULL : got == (mpcc_u64)want;
		if (ab[i][1] && (((unsigned __int128)ab[i][0] << 32) / ab[i][1]) >> 64 == 0) {
			double w = (double)(((unsigned __int128)ab[i][0] << 32) / ab[i][1]);
			close &= fabs((double)mpcc_div_q(ab[i][0], ab[i][1], 32) - w) <= w * 0x1p-31 + 1;
		}
	}
	near("mul_q exact (saturating)", exact, 1, 0);
	near("div_q within 2^-31", close, 1, 0);
	/* k = (C (4 - beta) / (4 beta))^(1/3) beta for C = 0.4, beta = 0.3. */
	near("mpmtp k", (double)MPMTP_K / MPCC_ONE, cbrt(0.4 * 3.7 / 1.2) * 0.3, 1e-9);
}

/* One MPMTP subflow: cwnd w, srtt in ms, in congestion avoidance. */
static void mpmtp_one(struct mpmtp_state *s, struct mpcc_path *p, double w, double srtt_ms)
{
	memset(p, 0, sizeof(struct mpcc_path) * MPCC_MAX_SUBFLOWS);
	mpmtp_init(s, fx(w));
	s->w.ssthresh = fx(2);
	s->w.srtt_us = s->w.rtt_us = s->w.min_rtt_us = (mpcc_u32)(srtt_ms * 1000);
	p[0].owner = 1;
	mpmtp_publish(s, &p[0]);
}

/* The paper's Eq. 30 for one subflow (mpmtp.md): delta = k rtt w^(2/3) / abar. */
static double mpmtp_delta1(double w, double rtt_s, double abar)
{
	return cbrt(0.4 * 3.7 / 1.2) * 0.3 * rtt_s * pow(w, 2.0 / 3.0) / abar;
}

static void test_mpmtp(void)
{
	struct mpcc_path p[MPCC_MAX_SUBFLOWS];
	struct mpmtp_state s;
	struct mpcc_ack ev = {MPCC_ONE, 100000, 100000, 100000, 0, 1, 0};

	/* Decrease beta = 0.3 and w_max; the concave alpha falls from
	 * alpha_max = 0.7 w_max at the epoch start to 1 at w_max (Eqs. 10-12). */
	mpmtp_one(&s, p, 100, 100);
	mpmtp_on_congestion(&s, p, 0, MPCC_LOSS);
	near("mpmtp loss: cwnd 0.7 w", seg(s.w.cwnd), 70, 1e-6);
	near("mpmtp loss: w_max", seg(s.w_max), 100, 0);
	near("mpmtp loss: RTT_max = srtt", s.loss_rtt_us, 100000, 0);
	near("mpmtp concave alpha(70) = 70", seg(mpmtp_shape(&s)), 70, 1e-6);
	s.w.cwnd = fx(85); /* c = 69 / 900: alpha = 69 * 225 / 900 + 1 */
	near("mpmtp concave alpha(85)", seg(mpmtp_shape(&s)), 69.0 / 4 + 1, 1e-6);
	s.w.cwnd = fx(99.999);
	near("mpmtp concave alpha(w_max-)", seg(mpmtp_shape(&s)), 1, 1e-6);
	/* One ACK at 85: w += delta B alpha / w with B = 1 (one path) and delta
	 * from Eq. 30 with abar = 1 (no finished cycle yet). */
	s.w.cwnd = fx(85);
	mpmtp_on_ack(&s, p, 0, &ev);
	near("mpmtp increase delta alpha / w", seg(s.w.cwnd), 85 + mpmtp_delta1(85, 0.1, 1) * 18.25 / 85, 1e-6);
	mpmtp_one(&s, p, 10, 100);
	mpmtp_on_congestion(&s, p, 0, MPCC_TIMEOUT);
	near("mpmtp timeout: cwnd 1, ssthresh 7", seg(s.w.cwnd) + seg(s.w.ssthresh), 8, 1e-6);

	/* Convex profile at w >= w_max: alpha 1 on entry, +1 per round, capped at w. */
	mpmtp_one(&s, p, 50, 100);
	s.w_max = fx(50);
	near("mpmtp convex entry", seg(mpmtp_shape(&s)), 1, 0);
	ev.round_start = 1;
	mpmtp_on_ack(&s, p, 0, &ev);
	mpmtp_on_ack(&s, p, 0, &ev);
	near("mpmtp convex two rounds", seg(s.alpha_cvx), 3, 0);
	s.w.cwnd = fx(2.5);
	mpmtp_on_ack(&s, p, 0, &ev);
	near("mpmtp convex cap at w", seg(s.alpha_cvx), 2.5, 1e-9);
	ev.round_start = 0;

	/* Linear factor from (RTT_min, 1) to (RTT_max, 1/w): rise at 120 ms, loss
	 * at 200 ms, w = 20 (the Rust controller's test values). */
	mpmtp_one(&s, p, 20, 120);
	s.w_max = fx(30);
	s.rise_us = 120000;
	s.loss_rtt_us = 200000;
	near("mpmtp L(RTT_min) = 1", seg(mpmtp_linear(&s)), 1, 1e-9);
	s.w.srtt_us = 200000;
	near("mpmtp L(RTT_max) = 1/w", seg(mpmtp_linear(&s)), 0.05, 1e-9);
	s.w.srtt_us = 160000;
	double l2 = (0.05 * 0.2 - 0.12) / 0.95;
	near("mpmtp L on the hyperbola", seg(mpmtp_linear(&s)), (l2 + 0.12) / (l2 + 0.16), 1e-8);
	s.w.srtt_us = 300000;
	near("mpmtp L beyond RTT_max", seg(mpmtp_linear(&s)), 0.05, 1e-9);

	/* Eq. 11's floor: at RTT_max near w_max, shape * L = 1/w; alpha stays 1 and
	 * the cycle mean counts that 1. */
	mpmtp_one(&s, p, 99, 200);
	s.w_max = fx(100);
	s.rise_us = 120000;
	s.loss_rtt_us = 200000;
	{
		struct mpcc_ack f = {MPCC_ONE, 200000, 200000, 100000, 0, 1, 0};
		mpmtp_on_ack(&s, p, 0, &f);
	}
	near("mpmtp alpha floored at 1", seg(s.w.cwnd), 99 + mpmtp_delta1(99, 0.2, 1) / 99, 1e-6);
	near("mpmtp cycle mean of the floored alpha", (double)s.alpha_sum / s.alpha_acked, 1, 1e-6);

	/* RTT rise: a finished round's minimum above 9/8 of the base RTT (100 ms). */
	mpmtp_one(&s, p, 20, 100);
	s.w_max = fx(30);
	struct mpcc_ack r = {MPCC_ONE, 105000, 100000, 100000, 0, 1, 0};
	mpmtp_on_ack(&s, p, 0, &r);
	r.round_start = 1;
	mpmtp_on_ack(&s, p, 0, &r); /* round min 105 < 112.5 */
	r.round_start = 0;
	r.rtt_us = 115000;
	mpmtp_on_ack(&s, p, 0, &r);
	r.round_start = 1;
	mpmtp_on_ack(&s, p, 0, &r); /* 105 (this round began with it) < 112.5 */
	near("mpmtp no rise at 105 ms", s.rise_us, 0, 0);
	r.round_start = 0;
	mpmtp_on_ack(&s, p, 0, &r);
	r.round_start = 1;
	mpmtp_on_ack(&s, p, 0, &r); /* 115 > 112.5 */
	near("mpmtp rise at 115 ms", s.rise_us, 115000, 0);

	/* B (Eqs. 18-21): p = 1 %, 2 %, 1.5 %, mean 1.5 %: 4/3 on the least lossy,
	 * 1 - 0.01/0.015 = 1/3 on the lossiest, the hyperbola b1 / (b2 + p) between. */
	static const double lossy[3][2] = {{1000, 10}, {1000, 20}, {1000, 15}};
	struct mpmtp_balance bal;
	memset(p, 0, sizeof p);
	for (int i = 0; i < 3; i++) {
		p[i].owner = i + 1;
		p[i].delivered = (mpcc_u64)lossy[i][0];
		p[i].losses = (mpcc_u32)lossy[i][1];
	}
	int on = mpmtp_balance_of(p, &bal);
	double bh = 1.0 / 3, bl = 4.0 / 3, b2 = (bl * 0.01 - bh * 0.02) / (bh - bl);
	near("mpmtp B lossiest", seg(mpmtp_balance(&p[1], &bal, on)), bh, 1e-8);
	near("mpmtp B least lossy", seg(mpmtp_balance(&p[0], &bal, on)), bl, 1e-8);
	near("mpmtp B between", seg(mpmtp_balance(&p[2], &bal, on)), bh * (b2 + 0.02) / (b2 + 0.015), 1e-8);
	p[1].losses = 200; /* 1 - (0.2 - 0.01) / 0.075 < 0: floored at 0.1 */
	on = mpmtp_balance_of(p, &bal);
	near("mpmtp B floor", seg(mpmtp_balance(&p[1], &bal, on)), 0.1, 1e-9);
	p[1].losses = 10;
	p[2].losses = 10;
	near("mpmtp B = 1 at equal rates", mpmtp_balance_of(p, &bal), 0, 0);

	/* delta (Eq. 30): one path w = 100, rtt 100 ms; two paths of 50 on one
	 * bottleneck give a quarter of it; a cycle mean alpha of 4 divides by 4;
	 * clamped at 10 (w = 10^5). */
	mpmtp_one(&s, p, 100, 100);
	double one = mpmtp_delta1(100, 0.1, 1);
	near("mpmtp delta one path", seg(mpmtp_delta(p)), one, 1e-6);
	p[0].alpha_mean = fx(4);
	near("mpmtp delta abar 4", seg(mpmtp_delta(p)), one / 4, 1e-6);
	static const double two[2][2] = {{50, 100}, {50, 100}};
	set_paths(p, 2, two);
	p[0].alpha_mean = p[1].alpha_mean = MPCC_ONE;
	near("mpmtp delta two paths", seg(mpmtp_delta(p)), one / 4, 1e-6);
	static const double huge[1][2] = {{100000, 100}};
	set_paths(p, 1, huge);
	p[0].alpha_mean = MPCC_ONE;
	near("mpmtp delta clamp 10", seg(mpmtp_delta(p)), 10, 0);

	/* abar: the concave alpha's mean per acked segment over the last cycle. */
	mpmtp_one(&s, p, 100, 100);
	mpmtp_on_congestion(&s, p, 0, MPCC_LOSS);
	near("mpmtp abar 1 after an empty cycle", seg(s.alpha_mean), 1, 0);
	s.w.cwnd = fx(70);
	mpmtp_on_ack(&s, p, 0, &ev); /* alpha(70) = 70 */
	s.w.cwnd = fx(99);           /* alpha(99) = 69 / 900 + 1 */
	mpmtp_on_ack(&s, p, 0, &ev);
	mpmtp_on_congestion(&s, p, 0, MPCC_LOSS);
	near("mpmtp abar two acks", seg(s.alpha_mean), (70 + 69.0 / 900 + 1) / 2, 1e-4);
}

/* One subflow of every core grows like Reno: acked / cwnd per ACK in CA. */
#define RENO_CHECK(algo)                                                         \
	do {                                                                     \
		struct mpcc_path p[MPCC_MAX_SUBFLOWS];                           \
		struct algo##_state s;                                           \
		struct mpcc_ack ev = {MPCC_ONE, 50000, 50000, 50000, 0, 1, 0};   \
		double w = 10;                                                   \
		memset(p, 0, sizeof p);                                          \
		p[0].owner = 1;                                                  \
		algo##_init(&s, fx(10));                                         \
		*(mpcc_u64 *)((char *)&s + 8) = fx(5); /* ssthresh */            \
		for (int i = 0; i < 200; i++) {                                  \
			algo##_on_ack(&s, p, 0, &ev);                            \
			w += 1.0 / w;                                            \
		}                                                                \
		near(#algo " one subflow is Reno", seg(p[0].cwnd), w, 1e-3);     \
	} while (0)

int main(void)
{
	test_lia();
	test_olia();
	test_balia();
	test_wvegas();
	test_noda();
	test_mpveno();
	test_fixed();
	test_mpmtp();
	RENO_CHECK(lia);
	RENO_CHECK(olia);
	RENO_CHECK(balia);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
