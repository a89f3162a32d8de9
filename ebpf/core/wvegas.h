/* wVegas, weighted Vegas (Cao, Xu, Fu, "Delay-based congestion control for
 * multipath TCP", IEEE ICNP 2012). Once per round on subflow r, with rtt the
 * round's mean RTT and base the smallest RTT seen: diff = w (rtt - base) / rtt;
 * alpha_r = max(alpha_min, total_alpha * x_r / sum x), x = w / rtt of each
 * subflow's last round; w += 1 below alpha_r, w -= 1 above; a queueing delay at
 * least twice the smallest one since the last drain multiplies w by
 * base / (2 rtt). Slow start ends when diff > gamma. Loss: Reno halving. */
#ifndef MPCC_CORE_WVEGAS_H
#define MPCC_CORE_WVEGAS_H
#include "fixed.h"

#define WVEGAS_TOTAL_ALPHA 10
#define WVEGAS_ALPHA_MIN 2
#define WVEGAS_GAMMA 1

struct wvegas_state {
	struct mpcc_win w;
	mpcc_u64 rtt_sum;      /* microseconds, this round */
	mpcc_u64 alpha;        /* fixed point, packets */
	mpcc_u64 rate;         /* w / mean rtt of the last round, 0 = none */
	mpcc_u32 base_us;      /* lifetime minimum RTT, 0 = none */
	mpcc_u32 rtt_cnt;
	mpcc_u32 queue_delay;  /* smallest positive queueing delay since the last drain */
	mpcc_u32 pad;
};

MPCC_INLINE void wvegas_init(struct wvegas_state *s, mpcc_u64 init_cwnd)
{
	mpcc_win_init(&s->w, init_cwnd);
	s->rtt_sum = 0;
	s->alpha = WVEGAS_ALPHA_MIN * MPCC_ONE;
	s->rate = 0;
	s->base_us = 0;
	s->rtt_cnt = 0;
	s->queue_delay = 0;
	s->pad = 0;
}

MPCC_INLINE struct mpcc_win *wvegas_win(struct wvegas_state *s) { return &s->w; }

MPCC_INLINE void wvegas_publish(const struct wvegas_state *s, struct mpcc_path *p)
{
	mpcc_publish_win(p, &s->w);
	p->rate = s->rate;
}

MPCC_INLINE void wvegas_round(struct wvegas_state *s, struct mpcc_path *paths, int self, mpcc_u32 rtt)
{
	mpcc_u64 w = s->w.cwnd, base = s->base_us, diff, total = 0;
	mpcc_u32 q;
	int i;

	if (!rtt || !base)
		return;
	diff = rtt > base ? mpcc_muldiv(w, rtt - base, rtt) : 0;
	s->rate = mpcc_muldiv(w, 1ULL << 16, rtt);
	paths[self].rate = s->rate;
	if (s->w.cwnd < s->w.ssthresh) {
		if (diff > WVEGAS_GAMMA * MPCC_ONE) {
			s->w.cwnd = mpcc_max(mpcc_min(s->w.cwnd, mpcc_muldiv(w, base, rtt) + MPCC_ONE), 2 * MPCC_ONE);
			s->w.ssthresh = s->w.cwnd;
		}
		return;
	}
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++)
		if (paths[i].owner)
			total += paths[i].rate;
	if (total)
		s->alpha = mpcc_max(mpcc_muldiv(s->rate, WVEGAS_TOTAL_ALPHA * MPCC_ONE, total),
				    WVEGAS_ALPHA_MIN * MPCC_ONE);
	if (diff > s->alpha)
		s->w.cwnd -= MPCC_ONE;
	else if (diff < s->alpha)
		s->w.cwnd += MPCC_ONE;
	q = rtt > base ? rtt - (mpcc_u32)base : 0;
	if (q) {
		if (!s->queue_delay || q < s->queue_delay)
			s->queue_delay = q;
		if (q >= 2 * s->queue_delay) {
			s->w.cwnd = mpcc_muldiv(s->w.cwnd, base, 2ULL * rtt);
			s->queue_delay = 0;
		}
	}
	s->w.cwnd = mpcc_max(s->w.cwnd, 2 * MPCC_ONE);
	/* Linux's current ssthresh: remember 3/4 of the window. */
	s->w.ssthresh = mpcc_max(mpcc_min(s->w.ssthresh, s->w.cwnd), s->w.cwnd * 3 / 4);
}

MPCC_INLINE void wvegas_on_ack(struct wvegas_state *s, struct mpcc_path *paths, int self, const struct mpcc_ack *ev)
{
	mpcc_observe(&s->w, ev);
	if (ev->rtt_us) {
		mpcc_u32 r = mpcc_clamp_rtt(ev->rtt_us);
		s->base_us = !s->base_us || r < s->base_us ? r : s->base_us;
		s->rtt_sum += r;
		s->rtt_cnt++;
	}
	wvegas_publish(s, &paths[self]);
	if (!ev->may_grow || !ev->acked)
		return;
	if (ev->round_start) {
		mpcc_u64 sum = s->rtt_sum;
		mpcc_u32 cnt = s->rtt_cnt;
		s->rtt_sum = 0;
		s->rtt_cnt = 0;
		if (cnt > 2) {
			mpcc_u64 w0 = s->w.cwnd;
			wvegas_round(s, paths, self, (mpcc_u32)(sum / cnt));
			if (s->w.cwnd < s->w.ssthresh && s->w.cwnd >= w0)
				mpcc_slow_start(&s->w.cwnd, s->w.ssthresh, ev->acked);
		} else {
			/* Too few samples: this ACK is handled as Reno. */
			mpcc_u64 left = mpcc_slow_start(&s->w.cwnd, s->w.ssthresh, ev->acked);
			if (left)
				s->w.cwnd += mpcc_frac(left, s->w.cwnd);
		}
	} else {
		/* Mid-round: slow start only; congestion avoidance moves once per round. */
		mpcc_slow_start(&s->w.cwnd, s->w.ssthresh, ev->acked);
	}
	wvegas_publish(s, &paths[self]);
}

MPCC_INLINE void wvegas_on_congestion(struct wvegas_state *s, struct mpcc_path *paths, int self, int kind)
{
	mpcc_halve(&s->w, kind);
	s->rtt_sum = 0;
	s->rtt_cnt = 0;
	s->queue_delay = 0;
	if (kind == MPCC_TIMEOUT)
		s->rate = 0;
	wvegas_publish(s, &paths[self]);
}

/* Linux re-enables Vegas on the return to Open with alpha reset. */
MPCC_INLINE void wvegas_on_recovery_exit(struct wvegas_state *s)
{
	s->alpha = WVEGAS_ALPHA_MIN * MPCC_ONE;
}

#endif
