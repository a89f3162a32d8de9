/* Replays a congestion-control event record written by the simulator
 * (`mpcc run --record-cc FILE`, format in crates/mpcc-sim/src/cc_record.rs)
 * through the integer C core of the same algorithm, the code the BPF programs
 * run, and prints both window trajectories:
 *
 *     replay FILE        one line per event: "kind sf rust_cwnd c_cwnd"
 *
 * Each core keeps its own windows (they are never reset to the Rust values), so
 * the comparison shows how far integer arithmetic drifts from floating point
 * over a whole run. Exit code 2 on bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../core/lia.h"
#include "../core/olia.h"
#include "../core/balia.h"
#include "../core/wvegas.h"
#include "../core/noda.h"
#include "../core/mpveno.h"
#include "../core/mpmtp.h"

enum algo { LIA, OLIA, BALIA, WVEGAS, NODA, MPVENO, MPMTP };

union state {
	struct lia_state lia;
	struct olia_state olia;
	struct balia_state balia;
	struct wvegas_state wvegas;
	struct noda_state noda;
	struct mpveno_state mpveno;
	struct mpmtp_state mpmtp;
};

static struct mpcc_path paths[MPCC_MAX_SUBFLOWS];
static union state st[MPCC_MAX_SUBFLOWS];

static int parse_algo(const char *name, enum algo *a)
{
	static const struct { const char *name; enum algo a; } known[] = {
		{"lia", LIA}, {"olia", OLIA}, {"balia", BALIA},
		{"wvegas", WVEGAS}, {"noda_ito", NODA}, {"mpveno", MPVENO},
		{"mpmtp", MPMTP},
	};
	for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(known[i].name, name)) {
			*a = known[i].a;
			return 1;
		}
	return 0;
}

static mpcc_u64 fx(double v)
{
	if (!(v < (double)(MPCC_INF >> MPCC_W_SHIFT)))
		return MPCC_INF;
	return (mpcc_u64)llround(v * (double)MPCC_ONE);
}

static struct mpcc_win *win(enum algo a, int sf)
{
	switch (a) {
	case LIA: return lia_win(&st[sf].lia);
	case OLIA: return olia_win(&st[sf].olia);
	case BALIA: return balia_win(&st[sf].balia);
	case WVEGAS: return wvegas_win(&st[sf].wvegas);
	case NODA: return noda_win(&st[sf].noda);
	case MPVENO: return mpveno_win(&st[sf].mpveno);
	default: return mpmtp_win(&st[sf].mpmtp);
	}
}

static void add(enum algo a, int sf, double cwnd, double ssthresh)
{
	mpcc_u64 w = fx(cwnd);
	switch (a) {
	case LIA: lia_init(&st[sf].lia, w); break;
	case OLIA: olia_init(&st[sf].olia, w); break;
	case BALIA: balia_init(&st[sf].balia, w); break;
	case WVEGAS: wvegas_init(&st[sf].wvegas, w); break;
	case NODA: noda_init(&st[sf].noda, w); break;
	case MPVENO: mpveno_init(&st[sf].mpveno, w); break;
	case MPMTP: mpmtp_init(&st[sf].mpmtp, w); break;
	}
	win(a, sf)->ssthresh = fx(ssthresh);
	paths[sf].owner = (mpcc_u64)sf + 1;
	mpcc_publish_win(&paths[sf], win(a, sf));
}

static void ack(enum algo a, int sf, const struct mpcc_ack *ev)
{
	switch (a) {
	case LIA: lia_on_ack(&st[sf].lia, paths, sf, ev); break;
	case OLIA: olia_on_ack(&st[sf].olia, paths, sf, ev); break;
	case BALIA: balia_on_ack(&st[sf].balia, paths, sf, ev); break;
	case WVEGAS: wvegas_on_ack(&st[sf].wvegas, paths, sf, ev); break;
	case NODA: noda_on_ack(&st[sf].noda, paths, sf, ev); break;
	case MPVENO: mpveno_on_ack(&st[sf].mpveno, paths, sf, ev); break;
	case MPMTP: mpmtp_on_ack(&st[sf].mpmtp, paths, sf, ev); break;
	}
}

static void congestion(enum algo a, int sf, int kind)
{
	switch (a) {
	case LIA: lia_on_congestion(&st[sf].lia, paths, sf, kind); break;
	case OLIA: olia_on_congestion(&st[sf].olia, paths, sf, kind); break;
	case BALIA: balia_on_congestion(&st[sf].balia, paths, sf, kind); break;
	case WVEGAS: wvegas_on_congestion(&st[sf].wvegas, paths, sf, kind); break;
	case NODA: noda_on_congestion(&st[sf].noda, paths, sf, kind); break;
	case MPVENO: mpveno_on_congestion(&st[sf].mpveno, paths, sf, kind); break;
	case MPMTP: mpmtp_on_congestion(&st[sf].mpmtp, paths, sf, kind); break;
	}
}

static void recovery_exit(enum algo a, int sf)
{
	switch (a) {
	case LIA: lia_on_recovery_exit(&st[sf].lia); break;
	case OLIA: olia_on_recovery_exit(&st[sf].olia); break;
	case BALIA: balia_on_recovery_exit(&st[sf].balia); break;
	case WVEGAS: wvegas_on_recovery_exit(&st[sf].wvegas); break;
	case NODA: noda_on_recovery_exit(&st[sf].noda); break;
	case MPVENO: mpveno_on_recovery_exit(&st[sf].mpveno); break;
	case MPMTP: mpmtp_on_recovery_exit(&st[sf].mpmtp); break;
	}
}

static mpcc_u32 us(double ns)
{
	double v = ns / 1000.0 + 0.5;
	return v >= (double)MPCC_MAX_RTT_US ? MPCC_MAX_RTT_US : (mpcc_u32)v;
}

static int fail(long line, const char *what)
{
	fprintf(stderr, "replay: line %ld: %s\n", line, what);
	return 2;
}

int main(int argc, char **argv)
{
	char buf[512], name[64], kind;
	enum algo a = LIA;
	long line = 0;
	int have_header = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: replay FILE\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	while (fgets(buf, sizeof buf, f)) {
		int sf;
		double now, rust_cwnd, rust_ss;
		line++;
		if (buf[0] == '#') {
			char *p = strstr(buf, " cc=");
			if (!p || sscanf(p + 4, "%63[^ \n]", name) != 1 || !parse_algo(name, &a))
				return fail(line, "header names no algorithm the C cores implement");
			have_header = 1;
			continue;
		}
		if (!have_header)
			return fail(line, "missing '# mpcc-cc-record' header");
		if (sscanf(buf, "%c %d", &kind, &sf) != 2 || sf < 0 || sf >= MPCC_MAX_SUBFLOWS)
			return fail(line, "bad event or subflow id");
		if (kind == 'N') {
			if (sscanf(buf, "N %d %lf %lf", &sf, &rust_cwnd, &rust_ss) != 3)
				return fail(line, "bad N line");
			add(a, sf, rust_cwnd, rust_ss);
		} else if (kind == 'A') {
			double acked, rtt, srtt, min_rtt;
			int flags;
			struct mpcc_ack ev;
			if (sscanf(buf, "A %d %lf %lf %lf %lf %lf %d %lf %lf", &sf, &now, &acked, &rtt, &srtt, &min_rtt,
				   &flags, &rust_cwnd, &rust_ss) != 9)
				return fail(line, "bad A line");
			memset(&ev, 0, sizeof ev);
			ev.acked = fx(acked);
			ev.rtt_us = us(rtt);
			ev.srtt_us = us(srtt);
			ev.min_rtt_us = us(min_rtt);
			ev.round_start = (flags & 2) != 0;
			ev.may_grow = !(flags & 1) && !(flags & 4) && acked > 0;
			ack(a, sf, &ev);
		} else if (kind == 'C') {
			char k;
			double srtt = 0;
			int n = sscanf(buf, "C %d %lf %c %lf %lf %lf", &sf, &now, &k, &rust_cwnd, &rust_ss, &srtt);
			if (n != 5 && n != 6)
				return fail(line, "bad C line");
			/* MPMTP keeps the event's smoothed RTT (this ACK's sample
			 * included), as the BPF glue passes the kernel's. */
			if (a == MPMTP && srtt > 0)
				win(a, sf)->srtt_us = us(srtt);
			congestion(a, sf, k == 'T' ? MPCC_TIMEOUT : k == 'E' ? MPCC_ECN : MPCC_LOSS);
		} else if (kind == 'X') {
			if (sscanf(buf, "X %d %lf %lf %lf", &sf, &now, &rust_cwnd, &rust_ss) != 4)
				return fail(line, "bad X line");
			recovery_exit(a, sf);
		} else {
			return fail(line, "unknown event kind");
		}
		if (kind != 'N')
			printf("%c %d %.6f %.6f\n", kind, sf, rust_cwnd,
			       (double)win(a, sf)->cwnd / (double)MPCC_ONE);
	}
	fclose(f);
	return 0;
}
