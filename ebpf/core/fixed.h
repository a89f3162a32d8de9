/* Integer arithmetic shared by every mpcc congestion-control core.
 *
 * The cores are plain C with no kernel types, so the same code runs in a BPF
 * struct_ops program and in the userspace replay harness. Windows are kept in
 * fixed point (MPCC_W_SHIFT fractional bits) because the coupled increases are
 * fractions of a segment per ACK; the kernel's integer snd_cwnd is the floor.
 * BPF has no 128-bit type and no floating point, and division by zero yields 0
 * there, so every division below is guarded and every product is kept in 64 bits.
 */
#ifndef MPCC_CORE_FIXED_H
#define MPCC_CORE_FIXED_H

typedef unsigned long long mpcc_u64;
typedef long long mpcc_s64;
typedef unsigned int mpcc_u32;

#define MPCC_W_SHIFT 32
#define MPCC_ONE (1ULL << MPCC_W_SHIFT)
/* "No threshold yet" (Linux's TCP_INFINITE_SSTHRESH), far above any window. */
#define MPCC_INF (1ULL << 62)
/* Slots in a connection entry: the most subflows one connection couples. */
#define MPCC_MAX_SUBFLOWS 8
/* Bounds that keep every product below 2^64 (documented in docs/kernel.md). */
#define MPCC_MAX_CWND (1ULL << 20)      /* segments */
#define MPCC_MAX_RTT_US (1U << 24)      /* about 16.7 s */

#ifndef MPCC_INLINE
#define MPCC_INLINE static inline __attribute__((always_inline))
#endif
/* The arithmetic helpers are separate functions in BPF: the verifier checks a
 * global function once instead of once per path through every caller, which
 * keeps the coupled loops far below its instruction budget. */
#if defined(__bpf__)
#define MPCC_HELPER __attribute__((noinline))
#else
#define MPCC_HELPER static inline
#endif

MPCC_INLINE mpcc_u64 mpcc_min(mpcc_u64 a, mpcc_u64 b) { return a < b ? a : b; }
MPCC_INLINE mpcc_u64 mpcc_max(mpcc_u64 a, mpcc_u64 b) { return a > b ? a : b; }

/* Index of the highest set bit plus one (0 for 0), without a loop. */
MPCC_HELPER unsigned mpcc_bits(mpcc_u64 x)
{
	unsigned n = 0;
	if (x >= 1ULL << 32) { n += 32; x >>= 32; }
	if (x >= 1ULL << 16) { n += 16; x >>= 16; }
	if (x >= 1ULL << 8) { n += 8; x >>= 8; }
	if (x >= 1ULL << 4) { n += 4; x >>= 4; }
	if (x >= 1ULL << 2) { n += 2; x >>= 2; }
	if (x >= 1ULL << 1) { n += 1; x >>= 1; }
	return n + (unsigned)x;
}

/* a * b / c. When a * b would not fit in 64 bits, the wider factor and c lose
 * the same low bits first (a relative error below 2^-20 for the magnitudes the
 * cores use); a zero divisor gives 0, as BPF division does. */
MPCC_HELPER mpcc_u64 mpcc_muldiv(mpcc_u64 a, mpcc_u64 b, mpcc_u64 c)
{
	unsigned over;
	if (c == 0 || a == 0 || b == 0)
		return 0;
	over = mpcc_bits(a) + mpcc_bits(b);
	if (over > 64) {
		over -= 64;
		if (over > 63)
			over = 63;
		if (mpcc_bits(a) >= mpcc_bits(b))
			a >>= over;
		else
			b >>= over;
		c >>= over;
		if (c == 0)
			return MPCC_INF;
	}
	return a * b / c;
}

/* (a * b) >> q from the exact 128-bit product (four 32x32 partial products),
 * saturated at 2^64 - 1. Unlike mpcc_muldiv it keeps every bit of both factors,
 * which chains of fixed-point factors (MPMTP) need. q < 64. */
MPCC_HELPER mpcc_u64 mpcc_mul_q(mpcc_u64 a, mpcc_u64 b, unsigned q)
{
	mpcc_u64 al = a & 0xffffffffULL, ah = a >> 32, bl = b & 0xffffffffULL, bh = b >> 32;
	mpcc_u64 ll = al * bl, lh = al * bh, hl = ah * bl;
	mpcc_u64 mid = (ll >> 32) + (lh & 0xffffffffULL) + (hl & 0xffffffffULL);
	mpcc_u64 lo = (ll & 0xffffffffULL) | (mid << 32);
	mpcc_u64 hi = ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);

	q &= 63;
	if (q == 0)
		return hi ? ~0ULL : lo;
	if (hi >> q)
		return ~0ULL;
	return (hi << (64 - q)) | (lo >> q);
}

/* (a << q) / b: the whole part exactly, the fraction from the remainder with b
 * cut to its top 64 - q bits (relative error below 2^-(63 - q)). Saturates at
 * 2^64 - 1; a zero divisor gives 0, as BPF division does. q < 64. */
MPCC_HELPER mpcc_u64 mpcc_div_q(mpcc_u64 a, mpcc_u64 b, unsigned q)
{
	mpcc_u64 whole, rem;
	unsigned nb, s = 0;

	if (b == 0)
		return 0;
	q &= 63;
	whole = a / b;
	rem = a % b;
	if (q && (whole >> (64 - q)))
		return ~0ULL;
	nb = mpcc_bits(b);
	if (nb > 64 - q)
		s = nb - (64 - q);
	return (whole << q) + ((rem >> s) << q) / (b >> s);
}

/* Integer cube root: the largest y with y^3 <= x. Digit-by-digit, one binary
 * digit of y per step from the top (x has 22 groups of three bits): keep y and
 * x - y^3 scaled to the bits consumed so far, and take the next digit when
 * (2y + 1)^3 - (2y)^3 = 12y^2 + 6y + 1 still fits under the next group. The
 * step is branch-free (x >> s and b stay below 2^63, so the sign of their
 * difference decides): a branch would give the BPF verifier 2^22 paths. */
MPCC_HELPER mpcc_u64 mpcc_icbrt(mpcc_u64 x)
{
	mpcc_u64 y = 0, b, take;
	int s;

	for (s = 63; s >= 0; s -= 3) {
		y <<= 1;
		b = 3 * y * (y + 1) + 1;
		take = (~((x >> s) - b)) >> 63;
		x -= (b << s) & (0 - take);
		y += take;
	}
	return y;
}

/* Cube root of a fixed-point value, fixed point in and out: with x = v 2^32,
 * cbrt(v) 2^32 = cbrt(x 2^64) = icbrt(x 2^j) 2^((64 - j) / 3) for j = 1 mod 3.
 * j is the largest such shift that keeps x 2^j in 64 bits, so the integer root
 * has 21 significant bits (relative error below 2^-20) at any magnitude; only
 * x >= 2^63 sheds two low bits first (j = -2). */
MPCC_HELPER mpcc_u64 mpcc_cbrt(mpcc_u64 x)
{
	unsigned room, j;

	if (x == 0)
		return 0;
	room = 64 - mpcc_bits(x);
	if (room == 0)
		return mpcc_icbrt(x >> 2) << 22;
	j = room - (room + 2) % 3;
	return mpcc_icbrt(x << j) << ((64 - j) / 3);
}

/* One acknowledgement as the cores see it (the transport measures, the core
 * decides). Windows and segment counts in MPCC_ONE units, times in microseconds. */
struct mpcc_ack {
	mpcc_u64 acked;      /* segments newly delivered, fixed point */
	mpcc_u32 rtt_us;     /* this ACK's RTT sample, 0 = none */
	mpcc_u32 srtt_us;    /* smoothed RTT after the sample, 0 = none */
	mpcc_u32 min_rtt_us; /* the subflow's minimum RTT, 0 = none */
	mpcc_u32 round_start;/* first ACK of a new round trip */
	mpcc_u32 may_grow;   /* not in recovery, window-limited, delivered data */
	mpcc_u32 pad;
};

enum mpcc_congestion { MPCC_LOSS = 0, MPCC_ECN = 1, MPCC_TIMEOUT = 2 };

/* What each subflow publishes in its slot of the connection entry for its
 * siblings. Only the owner writes a slot; readers tolerate a stale value. */
struct mpcc_path {
	mpcc_u64 owner;      /* 0: free slot */
	mpcc_u64 cwnd;       /* fixed point */
	mpcc_u64 interloss;  /* OLIA family: segments between losses, fixed point */
	mpcc_u64 rate;       /* wVegas: cwnd / mean RTT of the last round, 0 = none */
	mpcc_u32 srtt_us;    /* 0: no RTT yet, left out of the coupling sums */
	mpcc_u32 rtt_us;
	mpcc_u32 min_rtt_us;
	mpcc_u32 losses;     /* MPMTP: loss events since the subflow started */
	mpcc_u64 delivered;  /* MPMTP: segments delivered since it started */
	mpcc_u64 alpha_mean; /* MPMTP: last loss cycle's mean alpha, fixed point */
};

/* The window state every core keeps for its own subflow. */
struct mpcc_win {
	mpcc_u64 cwnd;      /* fixed point */
	mpcc_u64 ssthresh;  /* fixed point, MPCC_INF until the first loss */
	mpcc_u32 srtt_us;
	mpcc_u32 rtt_us;
	mpcc_u32 min_rtt_us;
	mpcc_u32 pad;
};

MPCC_INLINE void mpcc_win_init(struct mpcc_win *w, mpcc_u64 init_cwnd)
{
	w->cwnd = init_cwnd;
	w->ssthresh = MPCC_INF;
	w->srtt_us = 0;
	w->rtt_us = 0;
	w->min_rtt_us = 0;
	w->pad = 0;
}

MPCC_INLINE mpcc_u32 mpcc_clamp_rtt(mpcc_u32 us)
{
	return us > MPCC_MAX_RTT_US ? MPCC_MAX_RTT_US : us;
}

/* The RTT view of an ACK; a missing smoothed RTT falls back to the sample. */
MPCC_INLINE void mpcc_observe(struct mpcc_win *w, const struct mpcc_ack *ev)
{
	if (ev->rtt_us)
		w->rtt_us = mpcc_clamp_rtt(ev->rtt_us);
	if (ev->srtt_us)
		w->srtt_us = mpcc_clamp_rtt(ev->srtt_us);
	else if (w->rtt_us)
		w->srtt_us = w->rtt_us;
	if (ev->min_rtt_us)
		w->min_rtt_us = mpcc_clamp_rtt(ev->min_rtt_us);
	else if (w->rtt_us && (!w->min_rtt_us || w->rtt_us < w->min_rtt_us))
		w->min_rtt_us = w->rtt_us;
}

/* Slow start with appropriate byte counting: grows cwnd by the delivered
 * segments up to ssthresh and returns what is left for congestion avoidance. */
MPCC_INLINE mpcc_u64 mpcc_slow_start(mpcc_u64 *cwnd, mpcc_u64 ssthresh, mpcc_u64 acked)
{
	mpcc_u64 room;
	if (*cwnd >= ssthresh)
		return acked;
	room = ssthresh - *cwnd;
	if (acked <= room) {
		*cwnd += acked;
		return 0;
	}
	*cwnd = ssthresh;
	return acked - room;
}

/* The segments of an ACK left for the congestion-avoidance increase. */
MPCC_INLINE mpcc_u64 mpcc_ca_segments(struct mpcc_win *w, const struct mpcc_ack *ev)
{
	if (!ev->may_grow || !ev->acked)
		return 0;
	return mpcc_slow_start(&w->cwnd, w->ssthresh, ev->acked);
}

/* cwnd grows by left / n segments (n fixed point, n >= the window for Reno). */
MPCC_INLINE mpcc_u64 mpcc_frac(mpcc_u64 left, mpcc_u64 n)
{
	return mpcc_muldiv(left, MPCC_ONE, n);
}

/* The ssthresh floor of Linux (2 segments) and the window after a signal:
 * ssthresh after a loss or ECN, one segment after a timeout. */
MPCC_INLINE void mpcc_reduce_to(struct mpcc_win *w, int kind, mpcc_u64 ssthresh)
{
	if (ssthresh < 2 * MPCC_ONE)
		ssthresh = 2 * MPCC_ONE;
	w->ssthresh = ssthresh;
	w->cwnd = kind == MPCC_TIMEOUT ? MPCC_ONE : ssthresh;
}

MPCC_INLINE void mpcc_halve(struct mpcc_win *w, int kind)
{
	mpcc_reduce_to(w, kind, w->cwnd >> 1);
}

/* The slot view of a window (the fields every core publishes). */
MPCC_INLINE void mpcc_publish_win(struct mpcc_path *p, const struct mpcc_win *w)
{
	p->cwnd = w->cwnd;
	p->srtt_us = w->srtt_us;
	p->rtt_us = w->rtt_us;
	p->min_rtt_us = w->min_rtt_us;
}

MPCC_INLINE int mpcc_eligible(const struct mpcc_path *p)
{
	return p->owner && p->srtt_us;
}

/* Sum over eligible subflows of cwnd_i * rtt_ref / srtt_i: with rtt_ref the
 * reference subflow's RTT, (sum_i w_i / rtt_i)^2 = (s / rtt_ref)^2, and one
 * subflow gives s = w exactly. */
MPCC_INLINE mpcc_u64 mpcc_scaled_sum(const struct mpcc_path *paths, mpcc_u32 rtt_ref)
{
	mpcc_u64 s = 0;
	int i;
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++) {
		const struct mpcc_path *p = &paths[i];
		if (mpcc_eligible(p))
			s += mpcc_muldiv(p->cwnd, rtt_ref, p->srtt_us);
	}
	return s;
}

/* cwnd / srtt^2 on a common scale, for comparisons only. */
MPCC_HELPER mpcc_u64 mpcc_w_over_rtt2(mpcc_u64 w, mpcc_u32 srtt)
{
	return mpcc_muldiv(mpcc_muldiv(w, 1ULL << 20, srtt), 1ULL << 20, srtt);
}

/* cwnd / srtt on a common scale (segments per microsecond, 2^-40 units). */
MPCC_INLINE mpcc_u64 mpcc_rate(const struct mpcc_path *p)
{
	return mpcc_eligible(p) ? mpcc_muldiv(p->cwnd, 1ULL << 16, p->srtt_us) : 0;
}

MPCC_INLINE int mpcc_live_subflows(const struct mpcc_path *paths)
{
	int i, n = 0;
	for (i = 0; i < MPCC_MAX_SUBFLOWS; i++)
		n += paths[i].owner != 0;
	return n;
}

#endif
