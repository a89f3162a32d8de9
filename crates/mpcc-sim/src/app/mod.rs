//! Applications (see docs/applications.md): `bulk` and `file` (the data is always
//! waiting), constant and variable bit-rate streams with a play-back buffer at the
//! receiver, Web page loads, and on-off sources for background traffic. One file
//! per application, each holding all it does; this module holds their trait and
//! the enum the connection keeps.
//!
//! Hooks into the connection are few: an application that writes at its own
//! times (stream, Web) fixes each DSN's payload when it writes ([`SegSizes`],
//! consulted by `DataSender::seg_bytes`) and stamps each DSN's hand-over time
//! itself; every application gets a timer (`Event::App`, at [`Application::poll_at`]),
//! DATA_ACK progress and in-order delivery. Bulk and file applications take none
//! of these paths.

pub mod bulk;
pub mod config;
pub mod dist;
pub mod onoff;
pub mod stream;
pub mod web;

pub use bulk::Bulk;
pub use onoff::OnOff;
pub use stream::{read_frame_trace, Player, Stream};
pub use web::Web;

use crate::conn::{AppTiming, DataSender, SegSizes};
use config::AppConfig;
use mpcc_core::params::Info;
use mpcc_core::{Nanos, Rng};
use serde_json::{Map, Value};

/// The default of `name` in `info`'s entry, for configurations written without
/// it (by hand, by Rust tests): the entry is the one place it is stated.
pub(crate) fn default(info: &Info, name: &str) -> f64 {
    info.param(name).map_or(f64::NAN, |p| p.default)
}

/// The applications' doc page.
pub(crate) const DOC: &str = "docs/applications.md";

// Upper bounds of the parameters' ranges: limits.rs's (a leaf module does not
// import it), so the schema and the simulator's check agree.
pub(crate) const MAX_TIME: f64 = 1e16;
pub(crate) const MAX_RATE: f64 = 1e13;
pub(crate) const MAX_BYTES: f64 = 9_007_199_254_740_992.0; // 2^53

/// Every application, one line each (the entry is in the member's file); the first
/// is the default.
pub const APPS: &[Info] = &[bulk::BULK, bulk::FILE, stream::CBR, stream::VBR, web::INFO, onoff::INFO];
pub use dist::DISTRIBUTIONS;

/// What every application does. The simulator asks [`poll_at`](Self::poll_at)
/// after each call and runs [`on_timer`](Self::on_timer) when that time comes
/// (the one timer idiom: nothing is scheduled behind the simulator's back).
pub trait Application {
    /// The flow starts at `now` (after `DataSender::set_app_bytes`).
    fn start(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming);

    /// When the application next needs [`on_timer`](Self::on_timer) (None: not
    /// until something else happens).
    fn poll_at(&self) -> Option<Nanos>;

    /// The time [`poll_at`](Self::poll_at) gave has come.
    fn on_timer(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming);

    /// The DATA_ACK advanced (send-buffer space may have freed).
    #[inline]
    fn on_data_ack(&mut self, _now: Nanos, _data: &mut DataSender, _timing: &mut AppTiming) {}

    /// `delivered` bytes (in all) have reached the application in order by `now`.
    #[inline]
    fn on_delivered(&mut self, _now: Nanos, _delivered: u64) {}

    /// The flow's stop time: no more writes, pages or on periods. Data already
    /// written to the send buffer is still delivered.
    fn stop(&mut self, now: Nanos, data: &mut DataSender);

    /// The application's summary fields (docs/metrics.md), up to `to`.
    fn summary(&self, _m: &mut Map<String, Value>, _to: Nanos, _num: impl Fn(f64) -> Value) {}

    /// Media in the receiver's play-back buffer at `now`, ns (streams only), for
    /// receiver-side controllers that estimate the application's state.
    fn playback_buffer_ns(&self, _now: Nanos) -> Option<Nanos> {
        None
    }

    /// Whether it writes at its own times (the connection then keeps [`SegSizes`]).
    fn writes(&self) -> bool {
        false
    }
}

/// A flow's application. An enum, not a trait object: `on_data_ack` and
/// `on_delivered` run per packet.
pub enum AnyApp {
    Bulk(Bulk),
    Stream(Box<Stream>),
    Web(Box<Web>),
    OnOff(OnOff),
}

/// Calls `$body` with `$a` bound to the member, whichever it is.
macro_rules! each {
    ($app:expr, $a:ident => $body:expr) => {
        match $app {
            AnyApp::Bulk($a) => $body,
            AnyApp::Stream($a) => $body,
            AnyApp::Web($a) => $body,
            AnyApp::OnOff($a) => $body,
        }
    };
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

impl AnyApp {
    /// Builds a flow's application; errors name the field and the allowed range.
    pub fn from_config(app: &AppConfig, env: AppEnv) -> Result<AnyApp, String> {
        if let Some(b) = env.send_buf {
            if b < env.mss as u64 {
                return Err(format!(
                    "{}: {b}; allowed: at least one segment ({} bytes)",
                    (env.field)("tcp.send_buf_bytes"),
                    env.mss
                ));
            }
        }
        Ok(match app {
            AppConfig::Bulk | AppConfig::File { .. } => AnyApp::Bulk(Bulk::new(env)?),
            AppConfig::Cbr(c) => AnyApp::Stream(Box::new(Stream::cbr(c, env)?)),
            AppConfig::Vbr(c) => AnyApp::Stream(Box::new(Stream::vbr(c, env)?)),
            AppConfig::Web(c) => AnyApp::Web(Box::new(Web::new(c, env)?)),
            AppConfig::Onoff(c) => AnyApp::OnOff(OnOff::new(c, env)?),
        })
    }

    /// Whether its `poll_at` can ever give a time: every member but `bulk` (and
    /// `file`), whose `poll_at` is always None.
    pub fn has_timers(&self) -> bool {
        !matches!(self, AnyApp::Bulk(_))
    }

    /// Segment sizes the connection must consult (applications that write).
    pub fn seg_sizes(&self, mss: u32) -> Option<SegSizes> {
        self.writes().then(|| SegSizes::new(mss))
    }
}

impl Application for AnyApp {
    fn start(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        each!(self, a => a.start(now, data, timing))
    }

    #[inline]
    fn poll_at(&self) -> Option<Nanos> {
        each!(self, a => a.poll_at())
    }

    fn on_timer(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        each!(self, a => a.on_timer(now, data, timing))
    }

    #[inline]
    fn on_data_ack(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        each!(self, a => a.on_data_ack(now, data, timing))
    }

    #[inline]
    fn on_delivered(&mut self, now: Nanos, delivered: u64) {
        each!(self, a => a.on_delivered(now, delivered))
    }

    fn stop(&mut self, now: Nanos, data: &mut DataSender) {
        each!(self, a => a.stop(now, data))
    }

    fn summary(&self, m: &mut Map<String, Value>, to: Nanos, num: impl Fn(f64) -> Value) {
        each!(self, a => a.summary(m, to, num))
    }

    fn playback_buffer_ns(&self, now: Nanos) -> Option<Nanos> {
        each!(self, a => a.playback_buffer_ns(now))
    }

    fn writes(&self) -> bool {
        each!(self, a => a.writes())
    }
}

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

fn check_pos(field: String, x: f64, what: &str) -> Result<f64, String> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(format!("{field}: {x}; allowed: {what}"))
    }
}
