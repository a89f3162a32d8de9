/* Noda & Ito's RTT-fluctuation-suppressing MPTCP congestion control (K. Noda,
 * Y. Ito, "Proposal of Novel MPTCP Congestion Control to Suppress QoS
 * Fluctuation for WebQoE Improvement"; see docs/algorithms/noda_ito.md). Per subflow, no coupling term. Per round the
 * subflow takes RecentRTT (minimum RTT of the last round) and
 * MeanRTT = 0.8 MeanRTT + 0.2 RecentRTT; in congestion avoidance, per acked
 * segment, w += 1/(2w) while RecentRTT - BaseRTT < MeanRTT - BaseRTT, else
 * w -= 1/w (floored at one segment). Loss: w *= 1 - beta, beta = 1/2. */
#ifndef MPCC_CORE_NODA_H
#define MPCC_CORE_NODA_H
#include "fixed.h"

#define NODA_NO_RTT 0xffffffffU
/* MeanRTT is kept with 38 fractional bits of a microsecond, about the
 * resolution of a double holding seconds: with a flat RTT the EWMA reaches
 * RecentRTT (and the rule flips from grow to shrink) after about as many rounds
 * as the simulator's floating-point EWMA does. */
#define NODA_MEAN_SHIFT 38

struct noda_state {
	struct mpcc_win w;
	mpcc_u64 mean;      /* MeanRTT, microseconds << NODA_MEAN_SHIFT, 0 = none */
	mpcc_u32 round_min; /* this round's minimum RTT, NODA_NO_RTT = none */
	mpcc_u32 recent;    /* RecentRTT, 0 until a round completes */
};

MPCC_INLINE void noda_init(struct noda_state *s, mpcc_u64 init_cwnd)
{
	mpcc_win_init(&s->w, init_cwnd);
	s->mean = 0;
	s->round_min = NODA_NO_RTT;
	s->recent = 0;
}

MPCC_INLINE struct mpcc_win *noda_win(struct noda_state *s) { return &s->w; }

MPCC_INLINE void noda_publish(const struct noda_state *s, struct mpcc_path *p)
{
	mpcc_publish_win(p, &s->w);
}

/* 0.8 mean + 0.2 recent, written as a step toward recent (4 * mean would overflow). */
MPCC_INLINE mpcc_u64 noda_smooth(mpcc_u64 mean, mpcc_u32 recent)
{
	mpcc_u64 r = (mpcc_u64)recent << NODA_MEAN_SHIFT, d;
	if (!mean)
		return r;
	if (mean >= r) {
		d = mean - r;
		return r + (d / 5) * 4 + (d % 5) * 4 / 5;
	}
	d = r - mean;
	return r - ((d / 5) * 4 + (d % 5) * 4 / 5);
}

MPCC_INLINE void noda_on_ack(struct noda_state *s, struct mpcc_path *paths, int self, const struct mpcc_ack *ev)
{
	mpcc_u64 left, mean_q, w;
	mpcc_u32 recent;

	mpcc_observe(&s->w, ev);
	if (ev->round_start && s->round_min != NODA_NO_RTT) {
		s->recent = s->round_min;
		s->round_min = NODA_NO_RTT;
		s->mean = noda_smooth(s->mean, s->recent);
	}
	if (ev->rtt_us) {
		mpcc_u32 r = mpcc_clamp_rtt(ev->rtt_us);
		if (r < s->round_min)
			s->round_min = r;
	}
	left = mpcc_ca_segments(&s->w, ev);
	if (left) {
		/* During the first round RecentRTT is the running minimum. */
		recent = s->recent ? s->recent : s->round_min;
		if (recent != NODA_NO_RTT) {
			if (!s->mean)
				s->mean = noda_smooth(s->mean, recent);
			mean_q = s->mean;
			w = s->w.cwnd;
			/* Queueing < MeanQueueing  <=>  RecentRTT < MeanRTT (same base). */
			if (((mpcc_u64)recent << NODA_MEAN_SHIFT) < mean_q)
				s->w.cwnd = w + mpcc_frac(left, 2 * w);
			else {
				mpcc_u64 d = mpcc_frac(left, w);
				s->w.cwnd = w > d + MPCC_ONE ? w - d : MPCC_ONE;
			}
		}
	}
	noda_publish(s, &paths[self]);
}

MPCC_INLINE void noda_on_congestion(struct noda_state *s, struct mpcc_path *paths, int self, int kind)
{
	mpcc_reduce_to(&s->w, kind, s->w.cwnd >> 1);
	noda_publish(s, &paths[self]);
}

MPCC_INLINE void noda_on_recovery_exit(struct noda_state *s) { (void)s; }

#endif
