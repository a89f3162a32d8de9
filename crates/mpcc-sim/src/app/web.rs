//! `web`: page loads one after another with a think time between them. A page's
//! objects are requested all at once (parallel) or one after another
//! (sequential); a request takes the reverse path's propagation delay to reach
//! the server, which then writes the object (or the page) into the send buffer.
//! The summary reports page-load times.

use super::dist::Dist;
use super::{default, write, AppEnv, Application};
use super::{MAX_BYTES, MAX_TIME};
use crate::conn::{AppTiming, DataSender};
use crate::metrics::RttStats;
use mpcc_core::params::{param, Args, Info, Problem, Unit};
use mpcc_core::{Nanos, Rng};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::VecDeque;

/// Registry entry (listed in `APPS`, mod.rs).
pub const INFO: Info = Info::new(
    "web",
    "page loads (`objects`, or `object_count` and `object_bytes`) with `think` times; load times",
    super::DOC,
    &[
        param("objects", f64::NAN, 1.0, MAX_BYTES, "object sizes of every page (or object_count and object_bytes)"),
        param("object_count", f64::NAN, 0.0, f64::MAX, "objects per page, drawn for each page"),
        param("object_bytes", f64::NAN, 0.0, MAX_BYTES, "size of each object, drawn"),
        param("think_ns", 1e9, 0.0, MAX_TIME, "from a page's completion to the next request (default: fixed 1 s)"),
        param("pages", f64::NAN, 1.0, MAX_BYTES - 1.0, "pages to load (unset: until the flow stops)"),
        param("fetch", 0.0, 0.0, 1.0, "parallel (HTTP/2) or sequential (HTTP/1.1, no pipelining)"),
    ],
)
.with_units(&[
    ("objects", Unit::List(&Unit::Size)),
    ("object_count", Unit::Dist(&Unit::Number)),
    ("object_bytes", Unit::Dist(&Unit::Size)),
    ("think_ns", Unit::Dist(&Unit::Duration)),
    ("pages", Unit::Whole),
    ("fetch", Unit::Choice(&["parallel", "sequential"])),
])
.with_names(&[("object_bytes", "object_bytes")])
.with_rule(one_page_model);

/// Pages are `objects`, or drawn from `object_count` and `object_bytes`.
fn one_page_model(p: &Args) -> Result<(), Problem> {
    let drawn = ["object_count", "object_bytes"];
    if p.given("objects") {
        if let Some(k) = drawn.iter().find(|k| p.given(k)) {
            return Err(Problem::at(k, "give either objects or object_count and object_bytes, not both"));
        }
        return Ok(());
    }
    match drawn.map(|k| p.given(k)) {
        [false, false] => Err(Problem::at(
            "objects",
            "required field is missing; give objects = [\"10KB\", ...] or object_count and object_bytes (distributions)",
        )),
        [false, true] => Err(Problem::at("object_count", "required field is missing; a distribution, as object_bytes is given")),
        [true, false] => Err(Problem::at("object_bytes", "required field is missing; a distribution, as object_count is given")),
        [true, true] => Ok(()),
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Fetch {
    /// All objects of a page requested at once (HTTP/2 on one connection).
    #[default]
    Parallel,
    /// One object after another, each requested when the previous one has arrived
    /// (HTTP/1.1 on one persistent connection without pipelining).
    Sequential,
}

/// `kind = "web"`: pages one after another with a think time between them.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebConfig {
    /// Object sizes of every page, bytes (or `object_count` and `object_bytes`).
    #[serde(default)]
    pub objects: Option<Vec<u64>>,
    #[serde(default)]
    pub object_count: Option<Dist>,
    #[serde(default)]
    pub object_bytes: Option<Dist>,
    /// From a page's completion to the next request, ns.
    #[serde(default = "think")]
    pub think_ns: Dist,
    /// Pages to load (None: until the flow stops or the run ends).
    #[serde(default)]
    pub pages: Option<u64>,
    #[serde(default)]
    pub fetch: Fetch,
}

fn think() -> Dist {
    Dist::Fixed { value: default(&INFO, "think_ns") }
}

enum WebState {
    Idle,
    Thinking,
    /// The request for the next object (or the whole page) is on its way.
    Requested,
    /// Waiting for delivery up to `end` (stream offset) of the current object or page.
    Loading {
        end: u64,
    },
}

pub struct Web {
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
    /// When the next page starts or the pending request reaches the server.
    next: Option<Nanos>,
    rng: Rng,
    count_from: Nanos,
}

impl Web {
    pub fn new(c: &WebConfig, env: AppEnv) -> Result<Web, String> {
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
        Ok(Web {
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
            next: None,
            rng: env.rng,
            count_from: env.count_from,
        })
    }

    /// A page starts at `now`: draw its objects and send the (first) request.
    fn begin_page(&mut self, now: Nanos) {
        self.page_at = now;
        self.objects.clear();
        match (&self.cfg.objects, &self.cfg.object_count, &self.cfg.object_bytes) {
            (Some(o), _, _) => self.objects.extend(o.iter().copied()),
            (None, Some(n), Some(b)) => {
                let n = (n.sample(&mut self.rng).round() as u64).max(1);
                for _ in 0..n {
                    self.objects.push_back((b.sample(&mut self.rng).round() as u64).max(1));
                }
            }
            _ => unreachable!("validated in Web::new"),
        }
        self.state = WebState::Requested;
        self.next = Some(now + self.req_delay);
    }

    /// The request reached the server: it writes the object (or the page).
    fn serve(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        let bytes = match self.cfg.fetch {
            Fetch::Parallel => self.objects.drain(..).sum(),
            Fetch::Sequential => self.objects.pop_front().unwrap_or(0),
        };
        let base = data.sizes.as_ref().map_or(0, |z| z.written) + self.pending;
        self.pending += bytes;
        self.state = WebState::Loading { end: base + bytes };
        let put = write(data, timing, self.cap, now, self.pending);
        self.pending -= put;
    }
}

impl Application for Web {
    fn start(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        timing.external = true;
        data.app_limit = 0;
        self.next = Some(now);
        self.on_timer(now, data, timing);
    }

    #[inline]
    fn poll_at(&self) -> Option<Nanos> {
        self.next
    }

    fn on_timer(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        self.next = None;
        match self.state {
            WebState::Idle | WebState::Thinking => {
                if !self.stopped {
                    self.begin_page(now);
                }
            }
            WebState::Requested => self.serve(now, data, timing),
            WebState::Loading { .. } => {}
        }
    }

    /// A server blocked on a full send buffer writes more.
    #[inline]
    fn on_data_ack(&mut self, now: Nanos, data: &mut DataSender, timing: &mut AppTiming) {
        if self.pending > 0 {
            let put = write(data, timing, self.cap, now, self.pending);
            self.pending -= put;
        }
    }

    #[inline]
    fn on_delivered(&mut self, now: Nanos, delivered: u64) {
        let WebState::Loading { end } = self.state else { return };
        if delivered < end {
            return;
        }
        if !self.objects.is_empty() {
            // Sequential fetch: request the next object.
            self.state = WebState::Requested;
            self.next = Some(now + self.req_delay);
            return;
        }
        if now >= self.count_from {
            self.plt.add(now - self.page_at);
        }
        self.pages += 1;
        if self.stopped || self.cfg.pages.is_some_and(|n| self.pages >= n) {
            self.state = WebState::Idle;
            self.stopped = true;
            return;
        }
        self.state = WebState::Thinking;
        let think = self.cfg.think_ns.sample(&mut self.rng);
        self.next = Some(now.saturating_add(think.round() as Nanos));
    }

    /// No more pages; the page under way still loads.
    fn stop(&mut self, _now: Nanos, _data: &mut DataSender) {
        self.stopped = true;
    }

    fn summary(&self, m: &mut Map<String, Value>, _to: Nanos, num: impl Fn(f64) -> Value) {
        let p = self.plt.percentiles(&[50.0, 95.0]);
        m.insert("page_load_mean_s".into(), num(self.plt.mean_s()));
        m.insert("page_load_p50_s".into(), num(p[0]));
        m.insert("page_load_p95_s".into(), num(p[1]));
        m.insert("pages".into(), json!(self.plt.count()));
    }

    fn writes(&self) -> bool {
        true
    }
}
