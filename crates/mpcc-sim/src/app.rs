//! Applications beyond `bulk` and `file` (see docs/applications.md): constant and
//! variable bit-rate streams with a play-back buffer at the receiver, Web page
//! loads, and on-off sources for background traffic.
//!
//! Hooks into the connection are few: an application that writes at its own
//! times (stream, Web) fixes each DSN's payload when it writes ([`SegSizes`],
//! consulted by `DataSender::seg_bytes`) and stamps each DSN's hand-over time
//! itself; every application gets a timer (`Event::App`), DATA_ACK progress and
//! in-order delivery. Bulk and file applications take none of these paths.

use crate::config::{CbrConfig, Dist, Fetch, OnOffConfig, VbrConfig, WebConfig};
use crate::conn::{AppTiming, DataSender, SegSizes};
use crate::metrics::RttStats;
use mpcc_core::params::Info;
use mpcc_core::{Nanos, Rng};

// Registry entries of the applications and of the distributions their fields
// take (`mpcc list`, the Python schema's allowed kinds, the docs). Their
// configuration stays typed per kind (`config::AppConfig`, `config::Dist`):
// it holds lists, files and distributions, not only numbers.
const APP_DOC: &str = "docs/applications.md";
pub const APPS: &[Info] = &[
    Info::new("bulk", "always has data to send", APP_DOC, &[]),
    Info::new("file", "sends `size` bytes, then stops; completion time is reported", APP_DOC, &[]),
    Info::new("cbr", "constant bit-rate stream (`rate`, `chunk`) played back at the receiver; stalls are reported", APP_DOC, &[]),
    Info::new("vbr", "frames at `fps`, sizes from a `trace` file or log-normal around `rate` (`cv`); played back", APP_DOC, &[]),
    Info::new("web", "page loads (`objects`, or `object_count` and `object_bytes`) with `think` times; load times", APP_DOC, &[]),
    Info::new("onoff", "bulk while on, silent while off (`on`, `off`: distributions of durations)", APP_DOC, &[]),
];
pub const DISTRIBUTIONS: &[Info] = &[
    Info::new("fixed", "always `value`", APP_DOC, &[]),
    Info::new("uniform", "uniform between `min` and `max`", APP_DOC, &[]),
    Info::new("exponential", "exponential with `mean`", APP_DOC, &[]),
    Info::new("lognormal", "log-normal with `mean` and coefficient of variation `cv` (0 to 10)", APP_DOC, &[]),
    Info::new("pareto", "Pareto with `mean` and tail index `shape` (> 1)", APP_DOC, &[]),
];
use serde_json::{json, Map, Value};
use std::collections::VecDeque;

// ---------------------------------------------------------------- distributions

impl Dist {
    fn check(&self, field: &str) -> Result<(), String> {
        let pos = |x: f64| x.is_finite() && x > 0.0;
        let ok = match *self {
            Dist::Fixed { value } => pos(value),
            Dist::Uniform { min, max } => pos(min) && max.is_finite() && max >= min,
            Dist::Exponential { mean } => pos(mean),
            Dist::Lognormal { mean, cv } => pos(mean) && cv.is_finite() && (0.0..=10.0).contains(&cv),
            Dist::Pareto { mean, shape } => pos(mean) && shape.is_finite() && shape > 1.0,
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{field}: {self:?}; allowed: positive finite mean/value/min, max >= min, lognormal cv in [0, 10], pareto shape > 1"
            ))
        }
    }

    pub fn mean(&self) -> f64 {
        match *self {
            Dist::Fixed { value } => value,
            Dist::Uniform { min, max } => 0.5 * (min + max),
            Dist::Exponential { mean } | Dist::Lognormal { mean, .. } | Dist::Pareto { mean, .. } => mean,
        }
    }

    pub fn sample(&self, rng: &mut Rng) -> f64 {
        match *self {
            Dist::Fixed { value } => value,
            Dist::Uniform { min, max } => min + (max - min) * rng.uniform(),
            Dist::Exponential { mean } => rng.exponential(mean),
            Dist::Lognormal { mean, cv } => lognormal(rng, mean, cv),
            Dist::Pareto { mean, shape } => {
                let xm = mean * (shape - 1.0) / shape;
                xm / (1.0 - rng.uniform()).powf(1.0 / shape)
            }
        }
    }
}

/// Log-normal draw with mean `mean` and coefficient of variation `cv`:
/// sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2 / 2.
fn lognormal(rng: &mut Rng, mean: f64, cv: f64) -> f64 {
    if cv == 0.0 {
        return mean;
    }
    let s2 = (1.0 + cv * cv).ln();
    (mean.ln() - 0.5 * s2 + s2.sqrt() * rng.normal()).exp()
}

// ---------------------------------------------------------------- writing

/// Writes up to `bytes` into the connection's send buffer at `now` (bounded by
/// `cap`); returns the bytes written. New DSNs are handed over at `now`.
fn write(data: &mut DataSender, timing: &mut AppTiming, cap: u64, now: Nanos, bytes: u64) -> u64 {
    let sz = data.sizes.as_mut().expect("a writing application has segment sizes");
    let w = bytes.min(cap.saturating_sub(sz.in_buffer()));
    if w > 0 {
        sz.append(w, data.nxt, |dsn| timing.stamp(dsn, now));
        data.app_limit = sz.end();
    }
    w
}

// ---------------------------------------------------------------- play-back buffer

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

// ---------------------------------------------------------------- applications

enum Source {
    /// Every frame has this many bytes.
    Fixed(u64),
    /// Frame sizes from a trace, replayed from `next` (looping or not).
    Trace { sizes: Vec<u64>, next: usize, looping: bool },
    /// Log-normal frame sizes.
    Model { mean: f64, cv: f64 },
}

struct Stream {
    source: Source,
    start: Nanos,
    period_ns: f64,
    /// Index of the next frame.
    k: u64,
    cap: u64,
    blocked: u64,
    stopped: bool,
    player: Player,
}

impl Stream {
    fn frame_time(&self, k: u64) -> Nanos {
        self.start + (k as f64 * self.period_ns).round() as Nanos
    }

    /// The next frame's size (None: a non-looping trace ended).
    fn frame_bytes(&mut self, rng: &mut Rng) -> Option<u64> {
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
            Source::Model { mean, cv } => Some(lognormal(rng, *mean, *cv).round() as u64),
        }
    }
}

enum WebState {
    Idle,
    Thinking,
    /// The request for the next object (or the whole page) is on its way.
    Requested,
    /// Waiting for delivery up to `end` (stream offset) of the current object or page.
    Loading { end: u64 },
}

struct Web {
    cfg: WebConfig,
    cap: u64,
    req_delay: Nanos,
    state: WebState,
    /// Objects of the current page still to request (sequential fetch), in order.
    objects: VecDeque<u64>,
    /// Bytes requested but not yet in the send buffer (it was full).
    pending: u64,
    page_at: Nanos,
    pages: u64,
    plt: RttStats,
    stopped: bool,
}

struct OnOff {
    on: Dist,
    off: Dist,
    is_on: bool,
    on_periods: u64,
    /// Start of the latest on period.
    last_on: Nanos,
    stopped: bool,
}

enum Kind {
    /// Bulk and file: data is always waiting, nothing to do.
    Saturated,
    Stream(Box<Stream>),
    Web(Box<Web>),
    OnOff(OnOff),
}

/// A flow's application beyond what `DataSender` models for bulk and file.
pub struct App {
    kind: Kind,
    rng: Rng,
    count_from: Nanos,
    /// Wake-up the simulator still has to schedule (`Event::App`).
    wake: Option<Nanos>,
}

/// What `build` needs to know to build an application.
pub struct AppEnv<'a> {
    pub field: &'a dyn Fn(&str) -> String,
    pub mss: u32,
    pub send_buf: Option<u64>,
    pub rng: Rng,
    /// Summaries count from here (max of warm-up and flow start).
    pub count_from: Nanos,
    /// One-way delay of a request from the receiver to the sender.
    pub req_delay: Nanos,
    /// Page-load times kept for exact percentiles (`exact_percentiles`).
    pub exact_percentiles: bool,
}

fn check_pos(field: String, x: f64, what: &str) -> Result<f64, String> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(format!("{field}: {x}; allowed: {what}"))
    }
}

impl App {
    pub fn saturated() -> App {
        App { kind: Kind::Saturated, rng: Rng::stream(0, 0), count_from: 0, wake: None }
    }

    pub fn cbr(c: &CbrConfig, env: AppEnv) -> Result<App, String> {
        let f = env.field;
        let rate = check_pos(f("app.rate_bps"), c.rate_bps, "a positive rate, bit/s")?;
        let chunk = c.chunk_bytes.unwrap_or(env.mss);
        if chunk == 0 {
            return Err(format!("{}: 0; allowed: 1 byte or more", f("app.chunk_bytes")));
        }
        let period = chunk as f64 * 8e9 / rate;
        if period < 1.0 {
            return Err(format!("{}: {rate}; allowed: below chunk_bytes * 8e9 bit/s (one write per ns)", f("app.rate_bps")));
        }
        let rebuffer = c.rebuffer_ns.unwrap_or(c.startup_ns);
        Self::stream(Source::Fixed(chunk as u64), period, c.startup_ns, rebuffer, env)
    }

    pub fn vbr(c: &VbrConfig, env: AppEnv) -> Result<App, String> {
        let f = env.field;
        if !(c.fps.is_finite() && c.fps > 0.0 && c.fps <= 10_000.0) {
            return Err(format!("{}: {}; allowed: (0, 10000] frames per second", f("app.fps"), c.fps));
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
            _ => return Err(format!("{}: allowed: exactly one of trace (a frame-size file) and rate_bps", f("app.trace"))),
        };
        let rebuffer = c.rebuffer_ns.unwrap_or(c.startup_ns);
        Self::stream(source, 1e9 / c.fps, c.startup_ns, rebuffer, env)
    }

    fn stream(source: Source, period_ns: f64, startup: Nanos, rebuffer: Nanos, env: AppEnv) -> Result<App, String> {
        let s = Stream {
            source,
            start: 0,
            period_ns,
            k: 0,
            cap: env.send_buf.unwrap_or(u64::MAX),
            blocked: 0,
            stopped: false,
            player: Player::new(startup, rebuffer, env.count_from),
        };
        Ok(App { kind: Kind::Stream(Box::new(s)), rng: env.rng, count_from: env.count_from, wake: None })
    }

    pub fn web(c: &WebConfig, env: AppEnv) -> Result<App, String> {
        let f = env.field;
        match (&c.objects, &c.object_count, &c.object_bytes) {
            (Some(o), None, None) => {
                if o.is_empty() || o.contains(&0) {
                    return Err(format!("{}: allowed: a non-empty list of positive sizes, bytes", f("app.objects")));
                }
            }
            (None, Some(n), Some(b)) => {
                n.check(&f("app.object_count"))?;
                b.check(&f("app.object_bytes"))?;
            }
            _ => {
                return Err(format!(
                    "{}: allowed: either objects (a list of sizes) or both object_count and object_bytes (distributions)",
                    f("app.objects")
                ))
            }
        }
        c.think_ns.check(&f("app.think_ns"))?;
        if c.pages == Some(0) {
            return Err(format!("{}: 0; allowed: 1 or more (or absent: no limit)", f("app.pages")));
        }
        let w = Web {
            cfg: c.clone(),
            cap: env.send_buf.unwrap_or(u64::MAX),
            req_delay: env.req_delay,
            state: WebState::Idle,
            objects: VecDeque::new(),
            pending: 0,
            page_at: 0,
            pages: 0,
            plt: RttStats::new(env.exact_percentiles),
            stopped: false,
        };
        Ok(App { kind: Kind::Web(Box::new(w)), rng: env.rng, count_from: env.count_from, wake: None })
    }

    pub fn onoff(c: &OnOffConfig, env: AppEnv) -> Result<App, String> {
        let f = env.field;
        c.on_ns.check(&f("app.on_ns"))?;
        c.off_ns.check(&f("app.off_ns"))?;
        if env.send_buf.is_some() {
            return Err(format!("{}: allowed only with the cbr, vbr and web applications", f("tcp.send_buf_bytes")));
        }
        let o = OnOff { on: c.on_ns.clone(), off: c.off_ns.clone(), is_on: c.start_on, on_periods: 0, last_on: 0, stopped: false };
        Ok(App { kind: Kind::OnOff(o), rng: env.rng, count_from: env.count_from, wake: None })
    }

    /// Builds a flow's application; errors name the field and the allowed range.
    pub fn from_config(app: &crate::config::AppConfig, env: AppEnv) -> Result<App, String> {
        use crate::config::AppConfig as A;
        if let Some(b) = env.send_buf {
            if b < env.mss as u64 {
                return Err(format!("{}: {b}; allowed: at least one segment ({} bytes)", (env.field)("tcp.send_buf_bytes"), env.mss));
            }
        }
        match app {
            A::Bulk | A::File { .. } => match env.send_buf {
                Some(_) => Err(format!("{}: allowed only with the cbr, vbr and web applications", (env.field)("tcp.send_buf_bytes"))),
                None => Ok(App::saturated()),
            },
            A::Cbr(c) => App::cbr(c, env),
            A::Vbr(c) => App::vbr(c, env),
            A::Web(c) => App::web(c, env),
            A::Onoff(c) => App::onoff(c, env),
        }
    }

    /// Segment sizes the connection must consult (applications that write).
    pub fn seg_sizes(&self, mss: u32) -> Option<SegSizes> {
        matches!(self.kind, Kind::Stream(_) | Kind::Web(_)).then(|| SegSizes::new(mss))
    }

    /// The wake-up to schedule, if any.
    #[inline]
    pub fn take_wake(&mut self) -> Option<Nanos> {
        self.wake.take()
    }

    /// The flow starts at `now` (after `DataSender::set_app_bytes`).
    pub fn start(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        match &mut self.kind {
            Kind::Saturated => {}
            Kind::Stream(s) => {
                // Hand-over times are stamped when written, not when first sent.
                timing.external = true;
                data.app_limit = 0;
                s.start = now;
                self.wake = Some(now);
            }
            Kind::Web(_) => {
                timing.external = true;
                data.app_limit = 0;
                self.wake = Some(now);
                self.on_timer(now, data, timing);
            }
            Kind::OnOff(o) => {
                let d = if o.is_on {
                    o.on_periods += (now >= self.count_from) as u64;
                    o.last_on = now;
                    o.on.sample(&mut self.rng)
                } else {
                    data.stop_app();
                    o.off.sample(&mut self.rng)
                };
                self.wake = Some(now.saturating_add((d.round() as Nanos).max(1)));
            }
        }
    }

    /// The application's timer fired.
    pub fn on_timer(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        let rng = &mut self.rng;
        match &mut self.kind {
            Kind::Saturated => {}
            Kind::Stream(s) => {
                if s.stopped {
                    return;
                }
                let Some(bytes) = s.frame_bytes(rng) else {
                    s.stopped = true;
                    s.player.on_end(now);
                    return;
                };
                let w = write(data, timing, s.cap, now, bytes);
                if now >= self.count_from {
                    s.blocked += bytes - w;
                }
                s.k += 1;
                let next = s.frame_time(s.k);
                let end = data.sizes.as_ref().map_or(0, |z| z.written);
                s.player.on_frame(now, end, Some(next));
                self.wake = Some(next);
            }
            Kind::Web(w) => match w.state {
                WebState::Idle | WebState::Thinking => {
                    if w.stopped {
                        return;
                    }
                    w.page_at = now;
                    w.objects.clear();
                    match (&w.cfg.objects, &w.cfg.object_count, &w.cfg.object_bytes) {
                        (Some(o), _, _) => w.objects.extend(o.iter().copied()),
                        (None, Some(n), Some(b)) => {
                            let n = (n.sample(rng).round() as u64).max(1);
                            for _ in 0..n {
                                w.objects.push_back((b.sample(rng).round() as u64).max(1));
                            }
                        }
                        _ => unreachable!("validated in App::web"),
                    }
                    w.state = WebState::Requested;
                    self.wake = Some(now + w.req_delay);
                }
                WebState::Requested => {
                    // The request reached the server: it writes the object (or the page).
                    let bytes = match w.cfg.fetch {
                        Fetch::Parallel => w.objects.drain(..).sum(),
                        Fetch::Sequential => w.objects.pop_front().unwrap_or(0),
                    };
                    let base = data.sizes.as_ref().map_or(0, |z| z.written) + w.pending;
                    w.pending += bytes;
                    w.state = WebState::Loading { end: base + bytes };
                    let put = write(data, timing, w.cap, now, w.pending);
                    w.pending -= put;
                }
                WebState::Loading { .. } => {}
            },
            Kind::OnOff(o) => {
                if o.stopped {
                    return;
                }
                o.is_on = !o.is_on;
                let d = if o.is_on {
                    o.on_periods += (now >= self.count_from) as u64;
                    o.last_on = now;
                    data.app_limit = u64::MAX;
                    o.on.sample(rng)
                } else {
                    data.stop_app();
                    o.off.sample(rng)
                };
                self.wake = Some(now.saturating_add((d.round() as Nanos).max(1)));
            }
        }
    }

    /// The DATA_ACK advanced (send-buffer space may have freed): a Web server
    /// blocked on a full buffer writes more.
    #[inline]
    pub fn on_data_ack(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        if let Kind::Web(w) = &mut self.kind {
            if w.pending > 0 {
                let put = write(data, timing, w.cap, now, w.pending);
                w.pending -= put;
            }
        }
    }

    /// `delivered` bytes (in all) have reached the application in order by `now`.
    #[inline]
    pub fn on_delivered(&mut self, now: Nanos, delivered: u64) {
        match &mut self.kind {
            Kind::Saturated | Kind::OnOff(_) => {}
            Kind::Stream(s) => s.player.on_delivered(now, delivered),
            Kind::Web(w) => {
                let WebState::Loading { end } = w.state else { return };
                if delivered < end {
                    return;
                }
                if !w.objects.is_empty() {
                    // Sequential fetch: request the next object.
                    w.state = WebState::Requested;
                    self.wake = Some(now + w.req_delay);
                    return;
                }
                if now >= self.count_from {
                    w.plt.add(now - w.page_at);
                }
                w.pages += 1;
                if w.stopped || w.cfg.pages.is_some_and(|n| w.pages >= n) {
                    w.state = WebState::Idle;
                    w.stopped = true;
                    return;
                }
                w.state = WebState::Thinking;
                let think = w.cfg.think_ns.sample(&mut self.rng);
                self.wake = Some(now.saturating_add(think.round() as Nanos));
            }
        }
    }

    /// Media in the receiver's play-back buffer at `now`, ns (streams only), for
    /// receiver-side controllers that estimate the application's state.
    pub fn playback_buffer_ns(&self, now: Nanos) -> Option<Nanos> {
        match &self.kind {
            Kind::Stream(s) => Some(s.player.buffered_ns(now)),
            _ => None,
        }
    }

    /// The flow's stop time: no more writes, pages or on periods. Data already
    /// written to the send buffer is still delivered; bulk, file and on-off
    /// applications stop offering data at once, as before.
    pub fn stop(&mut self, now: Nanos, data: &mut DataSender) {
        match &mut self.kind {
            Kind::Saturated => data.stop_app(),
            Kind::Stream(s) => {
                s.stopped = true;
                s.player.on_end(now);
            }
            Kind::Web(w) => w.stopped = true,
            Kind::OnOff(o) => {
                o.stopped = true;
                data.stop_app();
            }
        }
    }

    /// The application's summary fields (docs/metrics.md), up to `to`.
    pub fn summary(&self, m: &mut Map<String, Value>, to: Nanos, num: impl Fn(f64) -> Value) {
        match &self.kind {
            Kind::Saturated => {}
            Kind::Stream(s) => {
                let (n, t) = s.player.totals(to);
                m.insert("stalls".into(), json!(n));
                m.insert("stall_s".into(), num(t as f64 * 1e-9));
                m.insert("app_blocked_bytes".into(), json!(s.blocked));
            }
            Kind::Web(w) => {
                let p = w.plt.percentiles(&[50.0, 95.0]);
                m.insert("page_load_mean_s".into(), num(w.plt.mean_s()));
                m.insert("page_load_p50_s".into(), num(p[0]));
                m.insert("page_load_p95_s".into(), num(p[1]));
                m.insert("pages".into(), json!(w.plt.count()));
            }
            Kind::OnOff(o) => {
                // An on period that begins at the very end of the run is not one.
                let late = (o.is_on && o.last_on >= to && o.on_periods > 0) as u64;
                m.insert("on_periods".into(), json!(o.on_periods - late));
            }
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
    fn writes_top_up_an_unsent_segment_then_open_new_ones() {
        let mut s = SegSizes::new(1000);
        let mut opened = Vec::new();
        s.append(2500, 0, |d| opened.push(d));
        assert_eq!((opened.clone(), s.seg_bytes(2)), (vec![0, 1, 2], 500));
        s.append(700, 2, |d| opened.push(d));
        assert_eq!((s.seg_bytes(2), s.seg_bytes(3), s.end()), (1000, 200, 4), "DSN 2 unsent: topped up");
        s.append(100, 4, |d| opened.push(d));
        assert_eq!((s.seg_bytes(3), s.seg_bytes(4)), (200, 100), "DSN 3 already sent: not touched");
        assert_eq!(s.range_bytes(1, 4), 2200);
        s.ack_to(2);
        assert_eq!((s.acked, s.in_buffer()), (2000, 1300));
    }

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
    fn distributions_have_their_means() {
        let mut r = Rng::stream(1, 2);
        for d in [
            Dist::Uniform { min: 1.0, max: 3.0 },
            Dist::Exponential { mean: 2.0 },
            Dist::Lognormal { mean: 2.0, cv: 0.5 },
            Dist::Pareto { mean: 2.0, shape: 2.5 },
        ] {
            let n = 200_000;
            let m = (0..n).map(|_| d.sample(&mut r)).sum::<f64>() / n as f64;
            assert!((m / d.mean() - 1.0).abs() < 0.03, "{d:?}: mean {m}");
        }
        assert!(Dist::Pareto { mean: 1.0, shape: 1.0 }.check("x").is_err());
        assert!(Dist::Lognormal { mean: 1.0, cv: -1.0 }.check("x").unwrap_err().starts_with("x: "));
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
