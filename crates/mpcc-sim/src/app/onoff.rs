//! `onoff`: bulk while on, silent while off, for background traffic. Period
//! lengths are drawn from the configured distributions.

use super::dist::Dist;
use super::MAX_TIME;
use super::{default, AppEnv, Application};
use crate::conn::{AppTiming, DataSender};
use mpcc_core::params::{need, param, Info, Unit};
use mpcc_core::{Nanos, Rng};
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// Registry entry (listed in `APPS`, mod.rs).
pub const INFO: Info = Info::new(
    "onoff",
    "bulk while on, silent while off (`on`, `off`: distributions of durations)",
    super::DOC,
    &[
        param("on_ns", f64::NAN, 0.0, MAX_TIME, "length of an on period"),
        param("off_ns", f64::NAN, 0.0, MAX_TIME, "length of an off period"),
        param("start_on", 1.0, 0.0, 1.0, "whether the flow starts with an on period"),
    ],
)
.with_units(&[
    ("on_ns", Unit::Dist(&Unit::Duration)),
    ("off_ns", Unit::Dist(&Unit::Duration)),
    ("start_on", Unit::Flag),
])
.with_rule(|p| need(p, &["on_ns", "off_ns"]));

/// `kind = "onoff"`: bulk while on, silent while off.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffConfig {
    pub on_ns: Dist,
    pub off_ns: Dist,
    #[serde(default = "start_on")]
    pub start_on: bool,
}

fn start_on() -> bool {
    default(&INFO, "start_on") != 0.0
}

pub struct OnOff {
    on: Dist,
    off: Dist,
    is_on: bool,
    on_periods: u64,
    /// Start of the latest on period.
    last_on: Nanos,
    stopped: bool,
    /// End of the current period.
    next: Option<Nanos>,
    rng: Rng,
    count_from: Nanos,
}

impl OnOff {
    pub fn new(c: &OnOffConfig, env: AppEnv) -> Result<OnOff, String> {
        let f = env.field;
        c.on_ns.check(&f("app.on_ns"))?;
        c.off_ns.check(&f("app.off_ns"))?;
        if env.send_buf.is_some() {
            return Err(format!("{}: allowed only with the cbr, vbr and web applications", f("tcp.send_buf_bytes")));
        }
        Ok(OnOff {
            on: c.on_ns.clone(),
            off: c.off_ns.clone(),
            is_on: c.start_on,
            on_periods: 0,
            last_on: 0,
            stopped: false,
            next: None,
            rng: env.rng,
            count_from: env.count_from,
        })
    }

    /// A period (the one `is_on` says) begins at `now`: offer data or stop, and
    /// draw its length.
    fn begin_period(&mut self, now: Nanos, data: &mut DataSender, first: bool) {
        let d = if self.is_on {
            self.on_periods += (now >= self.count_from) as u64;
            self.last_on = now;
            if !first {
                data.app_limit = u64::MAX;
            }
            self.on.sample(&mut self.rng)
        } else {
            data.stop_app();
            self.off.sample(&mut self.rng)
        };
        self.next = Some(now.saturating_add((d.round() as Nanos).max(1)));
    }
}

impl Application for OnOff {
    fn start(&mut self, now: Nanos, data: &mut DataSender, _timing: &mut AppTiming) {
        // The first on period uses the supply `set_app_bytes` gave.
        self.begin_period(now, data, true);
    }

    #[inline]
    fn poll_at(&self) -> Option<Nanos> {
        self.next
    }

    fn on_timer(&mut self, now: Nanos, data: &mut DataSender, _timing: &mut AppTiming) {
        self.next = None;
        if self.stopped {
            return;
        }
        self.is_on = !self.is_on;
        self.begin_period(now, data, false);
    }

    fn stop(&mut self, _now: Nanos, data: &mut DataSender) {
        self.stopped = true;
        data.stop_app();
    }

    fn summary(&self, m: &mut Map<String, Value>, to: Nanos, _num: impl Fn(f64) -> Value) {
        // An on period that begins at the very end of the run is not one.
        let late = (self.is_on && self.last_on >= to && self.on_periods > 0) as u64;
        m.insert("on_periods".into(), json!(self.on_periods - late));
    }
}
