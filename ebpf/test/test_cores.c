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
	RENO_CHECK(lia);
	RENO_CHECK(olia);
	RENO_CHECK(balia);
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
