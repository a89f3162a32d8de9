//! Capacity from a mahimahi packet-delivery trace.
//!
//! Format (mahimahi's): one line per delivery opportunity, holding the integer
//! millisecond at which the link may deliver `bytes_per_opportunity` bytes
//! (1500 by default, an MTU). Timestamps are non-decreasing; repeated lines are
//! several opportunities in the same millisecond. The trace repeats with a
//! period equal to its last timestamp: cycle c offers the opportunities
//! c * last + t_i, so a line at 0 ms and the last line coincide at each seam.
//!
//! Consumption (as mahimahi serves its queue): an opportunity is a byte budget
//! available at one instant. A packet takes bytes from the earliest opportunity
//! at or after its start and, if larger than what is left, from the following
//! ones; it is serialised at the opportunity that supplies its last byte.
//! Bytes left in a partly used opportunity serve the next packet if it starts
//! at or before that instant, and are lost otherwise (an idle link wastes
//! opportunities, as in mahimahi).

use mpcc_core::params::{need, param, Info, Unit};
use mpcc_core::{Nanos, NS_PER_MS};

/// The registry entry (listed in `capacity/mod.rs`).
pub const INFO: Info = Info::new(
    "trace",
    "mahimahi packet-delivery trace file (one millisecond timestamp per line)",
    "docs/links.md#capacity-over-time",
    &[
        param("path", f64::NAN, 0.0, 0.0, "the trace file (relative to the scenario's folder)"),
        param("bytes_per_opportunity", 1500.0, 1.0, 1e6, "bytes delivered per line of the trace"),
    ],
)
.with_units(&[("path", Unit::File("mahimahi")), ("bytes_per_opportunity", Unit::Size)])
.with_rule(|p| need(p, &["path"]));

/// `rate_at` of a trace is the mean over this window centred on the time asked.
pub const RATE_WINDOW: Nanos = 100 * NS_PER_MS;

#[derive(Clone, Debug)]
pub struct Trace {
    /// Opportunity times within one cycle, nanoseconds, sorted; the last equals `period`.
    times: Vec<Nanos>,
    period: Nanos,
    bytes_per_opportunity: u32,
    /// The next opportunity to use: cycle, index into `times`, bytes left in it.
    cycle: u64,
    idx: usize,
    left: u32,
}

impl Trace {
    pub fn from_file(path: &str, bytes_per_opportunity: u32) -> Result<Self, String> {
        let text = mpcc_core::files::read_regular(path, mpcc_core::files::MAX_TRACE_BYTES)
            .map_err(|e| format!("mahimahi trace: {e}"))?;
        Self::parse(&text, path, bytes_per_opportunity)
    }

    /// Parses trace text; `name` (usually the file path) prefixes every error.
    pub fn parse(text: &str, name: &str, bytes_per_opportunity: u32) -> Result<Self, String> {
        if bytes_per_opportunity == 0 {
            return Err(format!("{name}: capacity.trace.bytes_per_opportunity must be >= 1 byte, got 0"));
        }
        let mut times = Vec::new();
        let mut prev_ms = 0u64;
        for (n, line) in text.lines().enumerate() {
            let s = line.trim();
            if s.is_empty() {
                continue;
            }
            let lineno = n + 1;
            let ms: u64 = match s.parse() {
                Ok(v) => v,
                Err(_) => {
                    // The line itself is not quoted: the path may name a file that is not a trace.
                    return Err(format!("{name} line {lineno}: not a non-negative integer millisecond timestamp"));
                }
            };
            if ms < prev_ms {
                return Err(format!(
                    "{name} line {lineno}: timestamp {ms} ms is before the previous line's {prev_ms} ms; \
                     timestamps must be non-decreasing"
                ));
            }
            let ns = ms
                .checked_mul(NS_PER_MS)
                .ok_or_else(|| format!("{name} line {lineno}: timestamp {ms} ms is too large"))?;
            prev_ms = ms;
            times.push(ns);
        }
        let Some(&period) = times.last() else {
            return Err(format!("{name}: the trace holds no timestamps (it is empty or blank)"));
        };
        if period == 0 {
            return Err(format!(
                "{name}: the last timestamp is 0 ms; the trace repeats with a period equal to its last \
                 timestamp, which must be > 0"
            ));
        }
        times.shrink_to_fit();
        Ok(Trace { times, period, bytes_per_opportunity, cycle: 0, idx: 0, left: bytes_per_opportunity })
    }

    /// Opportunities per cycle.
    pub fn opportunities(&self) -> usize {
        self.times.len()
    }

    pub fn period(&self) -> Nanos {
        self.period
    }

    #[inline]
    fn time_of(&self, cycle: u64, idx: usize) -> Nanos {
        cycle * self.period + self.times[idx]
    }

    /// The first opportunity at or after `t` (the earlier cycle's opportunities
    /// at a seam come first, so none is skipped).
    #[inline]
    fn first_at_or_after(&self, t: Nanos) -> (u64, usize) {
        if t == 0 {
            return (0, 0);
        }
        let cycle = (t - 1) / self.period;
        let off = t - cycle * self.period; // in (0, period]; times.last() == period
        (cycle, self.times.partition_point(|&x| x < off))
    }

    /// Opportunities strictly before `t` since time 0.
    #[inline]
    fn count_before(&self, t: Nanos) -> u64 {
        if t == 0 {
            return 0;
        }
        let (cycle, idx) = self.first_at_or_after(t);
        cycle * self.times.len() as u64 + idx as u64
    }

    #[inline]
    fn step(&mut self) {
        self.idx += 1;
        if self.idx == self.times.len() {
            self.idx = 0;
            self.cycle += 1;
        }
        self.left = self.bytes_per_opportunity;
    }

    #[inline]
    pub fn tx_end(&mut self, start: Nanos, bytes: u32) -> Nanos {
        if self.left == 0 {
            self.step();
        }
        if self.time_of(self.cycle, self.idx) < start {
            // The link idled past the cursor: those opportunities are gone.
            (self.cycle, self.idx) = self.first_at_or_after(start);
            self.left = self.bytes_per_opportunity;
        }
        let mut need = bytes;
        loop {
            let take = need.min(self.left);
            self.left -= take;
            need -= take;
            if need == 0 {
                return self.time_of(self.cycle, self.idx);
            }
            self.step();
        }
    }

    pub fn bits_between(&self, t0: Nanos, t1: Nanos) -> f64 {
        let n = self.count_before(t1) - self.count_before(t0);
        n as f64 * self.bytes_per_opportunity as f64 * 8.0
    }

    /// Mean rate over a cycle.
    pub fn nominal_bps(&self) -> f64 {
        self.times.len() as f64 * self.bytes_per_opportunity as f64 * 8.0 / (self.period as f64 * 1e-9)
    }

    pub fn rate_at(&self, t: Nanos) -> f64 {
        let t0 = t.saturating_sub(RATE_WINDOW / 2);
        self.bits_between(t0, t0 + RATE_WINDOW) / (RATE_WINDOW as f64 * 1e-9)
    }
}

#[cfg(test)]
mod tests {
    use crate::Capacity;
    use mpcc_core::NS_PER_MS;

    const MS: u64 = NS_PER_MS;

    fn trace(text: &str) -> Capacity {
        Capacity::from_mahimahi_str(text, "trace.txt", 1500).unwrap()
    }

    fn err(text: &str) -> String {
        Capacity::from_mahimahi_str(text, "trace.txt", 1500).unwrap_err()
    }

    #[test]
    fn parse_errors_name_file_and_line() {
        assert_eq!(err("1\n2\n\n3\n4\n5\nabc\n"), "trace.txt line 7: not a non-negative integer millisecond timestamp");
        assert!(err("1\n-3\n").starts_with("trace.txt line 2: not"));
        assert!(err("1\n2.5\n").starts_with("trace.txt line 2:"));
        assert!(err("5\n7\n6\n").starts_with("trace.txt line 3: timestamp 6 ms is before"));
        assert!(err("").contains("trace.txt: the trace holds no timestamps"));
        assert!(err("\n  \n").contains("no timestamps"));
        assert!(err("0\n0\n").contains("last timestamp is 0 ms"));
        assert!(Capacity::from_mahimahi_str("1", "t", 0).unwrap_err().contains("bytes_per_opportunity"));
        let missing = Capacity::from_mahimahi_file("/nonexistent/dir/cell.up", 1500).unwrap_err();
        assert!(missing.contains("'/nonexistent/dir/cell.up'"), "{missing}");
    }

    #[test]
    fn tx_end_on_a_small_trace() {
        // Opportunities at 1, 1, 3, 4 ms; period 4 ms (then 5, 5, 7, 8, ...).
        let mut c = trace("1\n1\n3\n4\n");
        assert_eq!(c.tx_end(0, 1500), MS); // first opportunity at 1 ms
        assert_eq!(c.tx_end(MS, 1500), MS); // the second one in the same ms
        assert_eq!(c.tx_end(MS, 1000), 3 * MS);
        assert_eq!(c.tx_end(3 * MS, 500), 3 * MS); // rest of the 3 ms budget
                                                   // 3000 bytes: the 4 ms opportunity and the first of cycle 1 (5 ms).
        assert_eq!(c.tx_end(3 * MS, 3000), 5 * MS);
        // The link idles: the unused 5 ms and 7 ms opportunities are lost.
        assert_eq!(c.tx_end(7 * MS + 1, 100), 8 * MS);
        assert_eq!(c.tx_end(8 * MS, 1400), 8 * MS);
        assert_eq!(c.tx_end(8 * MS, 1), 9 * MS);
    }

    #[test]
    fn seam_keeps_both_opportunities() {
        // Lines at 0 and 2 ms: period 2 ms, so 2 ms holds cycle 0's last and cycle 1's first.
        let mut c = trace("0\n2\n");
        assert_eq!(c.tx_end(0, 1500), 0);
        assert_eq!(c.tx_end(MS, 1500), 2 * MS);
        assert_eq!(c.tx_end(2 * MS, 1500), 2 * MS);
        assert_eq!(c.tx_end(2 * MS, 1500), 4 * MS);
        assert_eq!(c.bits_between(0, 2 * MS), 12_000.0);
        assert_eq!(c.bits_between(0, 2 * MS + 1), 36_000.0);
    }

    #[test]
    fn bits_between_counts_opportunities_across_cycles() {
        let mut c = trace("1\n1\n3\n4\n");
        assert_eq!(c.bits_between(0, MS), 0.0);
        assert_eq!(c.bits_between(0, MS + 1), 24_000.0);
        assert_eq!(c.bits_between(0, 4 * MS + 1), 48_000.0);
        // 100 cycles carry 400 opportunities.
        assert_eq!(c.bits_between(0, 400 * MS + 1), 400.0 * 12_000.0);
        assert_eq!(c.bits_between(5 * MS, 9 * MS), 4.0 * 12_000.0);
        // Mean rate: 4 opportunities per 4 ms = 12 Mb/s.
        assert!((c.rate_at(200 * MS) - 12e6).abs() < 1e-6);
    }
}
