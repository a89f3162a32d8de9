//! `cbr` and `vbr`: a stream of frames written at their generation times, and the
//! receiver's player, whose stalls the summary reports. Frame sizes are fixed
//! (CBR), replayed from a trace, or log-normal (VBR).

use super::dist::lognormal;
use super::{check_pos, default, write, AppEnv, Application};
use super::{MAX_RATE, MAX_TIME};
use crate::conn::{AppTiming, DataSender};
use mpcc_core::params::{need, param, Args, Info, ParamInfo, Problem, Unit};
use mpcc_core::{Nanos, Rng};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::VecDeque;

// The player's parameters, shared by both streams.
const STARTUP: ParamInfo =
    param("startup_ns", 1e9, 0.0, MAX_TIME, "play-back starts this long after the stream starts");
const REBUFFER: ParamInfo = param(
    "rebuffer_ns",
    f64::NAN,
    0.0,
    MAX_TIME,
    "after a stall, play-back resumes once this much media is buffered (unset: startup)",
);
const PLAYER_UNITS: [(&str, Unit); 2] = [("startup_ns", Unit::Duration), ("rebuffer_ns", Unit::Duration)];

// Registry entries (listed in `APPS`, mod.rs).
pub const CBR: Info = Info::new(
    "cbr",
    "constant bit-rate stream (`rate`, `chunk`) played back at the receiver; stalls are reported",
    super::DOC,
    &[
        param("rate_bps", f64::NAN, 1.0, MAX_RATE, "the stream's rate"),
        param("chunk_bytes", f64::NAN, 1.0, 1e9, "bytes per write (unset: one MSS)"),
        STARTUP,
        REBUFFER,
    ],
)
.with_units(&[("rate_bps", Unit::Rate), ("chunk_bytes", Unit::Size), PLAYER_UNITS[0], PLAYER_UNITS[1]])
.with_rule(cbr_rule);

/// A write per chunk must not come more often than once per ns.
fn cbr_rule(p: &Args) -> Result<(), Problem> {
    need(p, &["rate_bps"])?;
    let (rate, chunk) = (p.get("rate_bps"), p.get("chunk_bytes"));
    if chunk * 8e9 / rate < 1.0 {
        return Err(Problem::at(
            "rate_bps",
            format!("{rate} bit/s is too high for chunks of {chunk} bytes; allowed: below chunk * 8 Gbit/s (one write per ns)"),
        ));
    }
    Ok(())
}

pub const VBR: Info = Info::new(
    "vbr",
    "frames at `fps`, sizes from a `trace` file or log-normal around `rate` (`cv`); played back",
    super::DOC,
    &[
        param("fps", f64::NAN, 0.0, 10_000.0, "frames per second").above_min(),
        param("trace", f64::NAN, 0.0, 0.0, "frame-size file, one size in bytes per line (or rate)"),
        param("loop_trace", 1.0, 0.0, 1.0, "replay the trace from the start when it ends (false: the stream ends)"),
        param("rate_bps", f64::NAN, 1.0, MAX_RATE, "mean rate of log-normal frame sizes (or trace)"),
        param("cv", 0.5, 0.0, 10.0, "coefficient of variation of the frame sizes (with rate)"),
        STARTUP,
        REBUFFER,
    ],
)
.with_units(&[
    ("fps", Unit::Number),
    ("trace", Unit::File("frames")),
    ("loop_trace", Unit::Flag),
    ("rate_bps", Unit::Rate),
    PLAYER_UNITS[0],
    PLAYER_UNITS[1],
])
.with_rule(vbr_rule);

fn vbr_rule(p: &Args) -> Result<(), Problem> {
    need(p, &["fps"])?;
    if p.given("trace") == p.given("rate_bps") {
        let msg =
            "give exactly one of trace = \"frames.txt\" (frame sizes) or rate = \"2Mbps\" (log-normal frame sizes)";
        return Err(Problem::at("trace", msg));
    }
    if p.given("trace") && p.given("cv") {
        return Err(Problem::at("cv", "only with rate (the frame-size model); a trace gives the frame sizes"));
    }
    if p.given("rate_bps") && p.given("loop_trace") {
        return Err(Problem::at("loop_trace", "only with trace"));
    }
    Ok(())
}

/// `kind = "cbr"`: `rate_bps` handed over as one write of `chunk_bytes` every
/// `chunk_bytes * 8 / rate_bps` seconds.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CbrConfig {
    pub rate_bps: f64,
    /// Bytes per write (None: one MSS).
    #[serde(default)]
    pub chunk_bytes: Option<u32>,
    /// Play-back starts this long after the stream starts.
    #[serde(default = "startup")]
    pub startup_ns: u64,
    /// After a stall, play-back resumes once this much media is buffered (None: `startup_ns`).
    #[serde(default)]
    pub rebuffer_ns: Option<u64>,
}

/// `kind = "vbr"`: one frame per `1 / fps` seconds, sizes from `trace` (one size in
/// bytes per line) or log-normal around `rate_bps / 8 / fps` with `cv`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VbrConfig {
    pub fps: f64,
    #[serde(default)]
    pub rate_bps: Option<f64>,
    #[serde(default = "cv")]
    pub cv: f64,
    #[serde(default)]
    pub trace: Option<String>,
    /// Replay the trace from the start when it ends (false: the stream ends).
    #[serde(default = "loop_trace")]
    pub loop_trace: bool,
    #[serde(default = "startup")]
    pub startup_ns: u64,
    #[serde(default)]
    pub rebuffer_ns: Option<u64>,
}

fn startup() -> u64 {
    default(&CBR, "startup_ns") as u64
}
fn cv() -> f64 {
    default(&VBR, "cv")
}
fn loop_trace() -> bool {
    default(&VBR, "loop_trace") != 0.0
}

enum Source {
    /// Every frame has this many bytes.
    Fixed(u64),
    /// Frame sizes from a trace, replayed from `next` (looping or not).
    Trace { sizes: Vec<u64>, next: usize, looping: bool },
    /// Log-normal frame sizes.
    Model { mean: f64, cv: f64 },
}

pub struct Stream {
    source: Source,
    start: Nanos,
    period_ns: f64,
    /// Index of the next frame.
    k: u64,
    cap: u64,
    blocked: u64,
    stopped: bool,
    player: Player,
    /// When the next frame is written.
    next: Option<Nanos>,
    rng: Rng,
    count_from: Nanos,
}

impl Stream {
    pub fn cbr(c: &CbrConfig, env: AppEnv) -> Result<Stream, String> {
        let f = env.field;
        let rate = check_pos(f("app.rate_bps"), c.rate_bps, "a positive rate, bit/s")?;
        let chunk = c.chunk_bytes.unwrap_or(env.mss);
        if chunk == 0 {
            return Err(format!("{}: 0; allowed: 1 byte or more", f("app.chunk_bytes")));
        }
        let period = chunk as f64 * 8e9 / rate;
        if period < 1.0 {
            return Err(format!(
                "{}: {rate}; allowed: below chunk_bytes * 8e9 bit/s (one write per ns)",
                f("app.rate_bps")
            ));
        }
        let rebuffer = c.rebuffer_ns.unwrap_or(c.startup_ns);
        Ok(Self::new(Source::Fixed(chunk as u64), period, c.startup_ns, rebuffer, env))
    }

    pub fn vbr(c: &VbrConfig, env: AppEnv) -> Result<Stream, String> {
        let f = env.field;
        if !(c.fps.is_finite() && c.fps > 0.0 && c.fps <= 10_000.0) {
            return Err(format!("{}: {}; allowed: above 0, at most 10000 frames per second", f("app.fps"), c.fps));
        }
        let source = match (&c.trace, c.rate_bps) {
            (Some(path), None) => Source::Trace { sizes: read_frame_trace(path)?, next: 0, looping: c.loop_trace },
            (None, Some(rate)) => {
                let rate = check_pos(f("app.rate_bps"), rate, "a positive rate, bit/s")?;
                if !(c.cv.is_finite() && (0.0..=10.0).contains(&c.cv)) {
                    return Err(format!("{}: {}; allowed: [0, 10]", f("app.cv"), c.cv));
                }
                Source::Model { mean: rate / 8.0 / c.fps, cv: c.cv }
            }
            _ => {
                return Err(format!(
                    "{}: allowed: exactly one of trace (a frame-size file) and rate_bps",
                    f("app.trace")
                ))
            }
        };
        let rebuffer = c.rebuffer_ns.unwrap_or(c.startup_ns);
        Ok(Self::new(source, 1e9 / c.fps, c.startup_ns, rebuffer, env))
    }

    fn new(source: Source, period_ns: f64, startup: Nanos, rebuffer: Nanos, env: AppEnv) -> Stream {
        Stream {
            source,
            start: 0,
            period_ns,
            k: 0,
            cap: env.send_buf.unwrap_or(u64::MAX),
            blocked: 0,
            stopped: false,
            player: Player::new(startup, rebuffer, env.count_from),
            next: None,
            rng: env.rng,
            count_from: env.count_from,
        }
    }

    fn frame_time(&self, k: u64) -> Nanos {
        self.start + (k as f64 * self.period_ns).round() as Nanos
    }

    /// The next frame's size (None: a non-looping trace ended).
    fn frame_bytes(&mut self) -> Option<u64> {
        match &mut self.source {
            Source::Fixed(b) => Some(*b),
            Source::Trace { sizes, next, looping } => {
                if *next == sizes.len() {
                    if !*looping {
                        return None;
                    }
                    *next = 0;
                }
                *next += 1;
                Some(sizes[*next - 1])
            }
            Source::Model { mean, cv } => Some(lognormal(&mut self.rng, *mean, *cv).round() as u64),
        }
    }
}

impl Application for Stream {
    fn start(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        // Hand-over times are stamped when written, not when first sent.
        timing.external = true;
        data.app_limit = 0;
        self.start = now;
        self.next = Some(now);
    }

    #[inline]
    fn poll_at(&self) -> Option<Nanos> {
        self.next
    }

    /// Writes the frame due now.
    fn on_timer(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        self.next = None;
        if self.stopped {
            return;
        }
        let Some(bytes) = self.frame_bytes() else {
            self.stopped = true;
            self.player.on_end(now);
            return;
        };
        let w = write(data, timing, self.cap, now, bytes);
        if now >= self.count_from {
            self.blocked += bytes - w;
        }
        self.k += 1;
        let next = self.frame_time(self.k);
        let end = data.sizes.as_ref().map_or(0, |z| z.written);
        self.player.on_frame(now, end, Some(next));
        self.next = Some(next);
    }

    #[inline]
    fn on_delivered(&mut self, now: Nanos, delivered: u64) {
        self.player.on_delivered(now, delivered);
    }

    fn stop(&mut self, now: Nanos, _data: &mut DataSender) {
        self.stopped = true;
        self.player.on_end(now);
    }

    fn summary(&self, m: &mut Map<String, Value>, to: Nanos, num: impl Fn(f64) -> Value) {
        let (n, t) = self.player.totals(to);
        m.insert("stalls".into(), json!(n));
        m.insert("stall_s".into(), num(t as f64 * 1e-9));
        m.insert("app_blocked_bytes".into(), json!(self.blocked));
    }

    fn playback_buffer_ns(&self, now: Nanos) -> Option<Nanos> {
        Some(self.player.buffered_ns(now))
    }

    fn writes(&self) -> bool {
        true
    }
}

/// The receiver's player: frame `k`, generated at `gen_k`, is due at
/// `gen_k + shift`, where `shift` starts at the start-up delay and grows by every
/// stall. A frame not complete (all its bytes delivered in order) when due starts
/// a stall; play-back resumes once `rebuffer` of media from the stalled frame on
/// is complete, or at once if the stream has ended.
#[derive(Clone, Debug)]
pub struct Player {
    rebuffer: Nanos,
    /// Frames written and not yet complete: (stream offset of their end, generation time).
    frames: VecDeque<(u64, Nanos)>,
    delivered: u64,
    shift: Nanos,
    /// Generation time of the next frame (None: the stream has ended).
    next_gen: Option<Nanos>,
    /// The current stall: (start, generation time of the stalled frame).
    stall: Option<(Nanos, Nanos)>,
    count_from: Nanos,
    pub stalls: u64,
    pub stall_ns: u64,
}

impl Player {
    pub fn new(startup: Nanos, rebuffer: Nanos, count_from: Nanos) -> Player {
        Player {
            rebuffer,
            frames: VecDeque::with_capacity(64),
            delivered: 0,
            shift: startup,
            next_gen: None,
            stall: None,
            count_from,
            stalls: 0,
            stall_ns: 0,
        }
    }

    /// A frame ending at stream offset `end` was written at `now`; the next one
    /// comes at `next_gen` (None: none).
    pub fn on_frame(&mut self, now: Nanos, end: u64, next_gen: Option<Nanos>) {
        self.frames.push_back((end, now));
        self.next_gen = next_gen;
        self.advance(now);
    }

    /// The stream ended (no more frames).
    pub fn on_end(&mut self, now: Nanos) {
        self.next_gen = None;
        self.advance(now);
    }

    /// `delivered` bytes have reached the application in order by `now`.
    #[inline]
    pub fn on_delivered(&mut self, now: Nanos, delivered: u64) {
        self.delivered = delivered;
        self.advance(now);
    }

    fn advance(&mut self, now: Nanos) {
        while let Some(&(end, gen)) = self.frames.front() {
            if end > self.delivered {
                break;
            }
            if self.stall.is_none() {
                let due = gen + self.shift;
                if now > due {
                    // Detected late, at completion: the stall began when it was due.
                    self.stall = Some((due, gen));
                    self.stalls += (due >= self.count_from) as u64;
                }
            }
            self.frames.pop_front();
        }
        if let Some((start, gen)) = self.stall {
            let buffered_to = self.frames.front().map(|f| f.1).or(self.next_gen);
            if buffered_to.is_none_or(|t| t >= gen + self.rebuffer) {
                self.stall_ns += now.saturating_sub(start.max(self.count_from));
                self.shift += now - start;
                self.stall = None;
            }
        }
    }

    /// Media buffered at `now`, ns: from the play-out position to the first
    /// frame not yet complete (0 while stalled or once the stream has ended).
    pub fn buffered_ns(&self, now: Nanos) -> Nanos {
        if self.stall.is_some() {
            return 0;
        }
        let avail = self.frames.front().map(|f| f.1).or(self.next_gen);
        avail.map_or(0, |a| a.saturating_sub(now.saturating_sub(self.shift)))
    }

    /// (stalls, stall time) up to `to`, counting a stall under way at `to`.
    pub fn totals(&self, to: Nanos) -> (u64, Nanos) {
        let open = match (self.stall, self.frames.front()) {
            (Some((start, _)), _) => Some((start, false)),
            (None, Some(&(_, gen))) if gen + self.shift < to => Some((gen + self.shift, true)),
            _ => None,
        };
        match open {
            Some((start, new)) if start < to => {
                let counted = (new && start >= self.count_from) as u64;
                (self.stalls + counted, self.stall_ns + to.saturating_sub(start.max(self.count_from)))
            }
            _ => (self.stalls, self.stall_ns),
        }
    }
}

/// Reads a frame-size trace: one size in bytes per line; blank lines and lines
/// starting with `#` are skipped. Errors name the file and the line.
pub fn read_frame_trace(path: &str) -> Result<Vec<u64>, String> {
    let text = mpcc_core::files::read_regular(path, mpcc_core::files::MAX_TRACE_BYTES)?;
    let mut sizes = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        match t.parse::<u64>() {
            Ok(b) => sizes.push(b),
            Err(_) => return Err(format!("{path}:{}: not a frame size; allowed: a whole number of bytes", i + 1)),
        }
    }
    if sizes.iter().all(|&b| b == 0) {
        return Err(format!("{path}: no frame sizes (or all zero); allowed: one size in bytes per line"));
    }
    Ok(sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    #[test]
    fn player_stalls_hand_computed() {
        // A frame of 10 bytes every 100 ms, start-up 250 ms, rebuffer 200 ms.
        let mut p = Player::new(250 * MS, 200 * MS, 0);
        let frame = |p: &mut Player, k: u64, last: bool| {
            p.on_frame(k * 100 * MS, (k + 1) * 10, (!last).then_some((k + 1) * 100 * MS))
        };
        for k in 0..3 {
            frame(&mut p, k, false);
        }
        p.on_delivered(240 * MS, 30); // frames 0-2, due 250, 350, 450 ms: in time
        assert_eq!(p.buffered_ns(240 * MS), 300 * MS, "frames 0-2 buffered, play-back not started");
        assert_eq!(p.buffered_ns(400 * MS), 150 * MS, "playing frame 1 half-way");
        frame(&mut p, 3, false);
        frame(&mut p, 4, false);
        assert_eq!(p.totals(450 * MS), (0, 0));
        assert_eq!(p.totals(600 * MS), (1, 50 * MS), "frame 3 was due at 550 ms: a stall under way");
        frame(&mut p, 5, true);
        // Frame 3 completes at 700 ms; resuming needs media [300, 500) ms: frame 4 too.
        p.on_delivered(700 * MS, 40);
        assert_eq!(p.stalls, 1);
        assert!(p.stall.is_some());
        p.on_delivered(800 * MS, 50);
        assert_eq!((p.stalls, p.stall_ns, p.shift), (1, 250 * MS, 500 * MS));
        p.on_delivered(990 * MS, 60); // frame 5 now due at 500 + 500 ms
        assert_eq!(p.totals(2000 * MS), (1, 250 * MS));
    }

    #[test]
    fn player_counts_from_the_warmup() {
        let mut p = Player::new(100 * MS, 0, 1000 * MS);
        p.on_frame(0, 10, Some(2000 * MS));
        p.on_delivered(1500 * MS, 10);
        assert_eq!((p.stalls, p.stall_ns), (0, 500 * MS), "began before the warm-up: not counted, time clipped");
    }

    #[test]
    fn trace_errors_name_file_and_line() {
        let p = std::env::temp_dir().join(format!("mpcc-trace-{}.txt", std::process::id()));
        std::fs::write(&p, "# sizes\n100\n\n2x0\n").unwrap();
        let e = read_frame_trace(p.to_str().unwrap()).unwrap_err();
        assert!(e.contains(&format!("{}:4:", p.display())), "{e}");
        std::fs::write(&p, "100\n 300 \n").unwrap();
        assert_eq!(read_frame_trace(p.to_str().unwrap()).unwrap(), vec![100, 300]);
        std::fs::remove_file(&p).ok();
    }
}
