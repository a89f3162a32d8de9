//! The applications' part of the canonical configuration (`flows.<k>.app`): the
//! kinds, their parameters and the distributions they draw from. A leaf module:
//! `config.rs` re-exports these types, and the applications read them.

use mpcc_core::{Nanos, Rng};
use serde::Deserialize;
use mpcc_core::params::{need, param, Args, Info, ParamInfo, Params, Problem, Unit};

// The distributions application fields take: `{ kind, ... }` with these
// parameters, in the unit of the field (`Unit::OfField`) except `cv` and `shape`.
const fn of_field(name: &'static str, help: &'static str) -> ParamInfo {
    param(name, f64::NAN, 0.0, f64::MAX, help)
}
const OF_FIELD: &[(&str, Unit)] =
    &[("value", Unit::OfField), ("min", Unit::OfField), ("max", Unit::OfField), ("mean", Unit::OfField)];
pub const DISTRIBUTIONS: &[Info] = &[
    Info::new("fixed", "always `value`", super::DOC, &[of_field("value", "the value")])
        .with_units(OF_FIELD)
        .with_rule(positive),
    Info::new("uniform", "uniform between `min` and `max`", super::DOC, &[of_field("min", "least value"), of_field("max", "largest value")])
        .with_units(OF_FIELD)
        .with_rule(positive),
    Info::new("exponential", "exponential with `mean`", super::DOC, &[of_field("mean", "the mean")])
        .with_units(OF_FIELD)
        .with_rule(positive),
    Info::new(
        "lognormal",
        "log-normal with `mean` and coefficient of variation `cv` (0 to 10)",
        super::DOC,
        &[of_field("mean", "the mean"), param("cv", f64::NAN, 0.0, 10.0, "standard deviation / mean")],
    )
    .with_units(OF_FIELD)
    .with_rule(positive),
    Info::new(
        "pareto",
        "Pareto with `mean` and tail index `shape` (> 1)",
        super::DOC,
        &[of_field("mean", "the mean"), param("shape", f64::NAN, 1.0, 1e6, "tail index, above 1 (so that the mean exists)")],
    )
    .with_units(OF_FIELD)
    .with_rule(positive),
];

/// Every parameter given, the location (value, min, mean) above 0, `max` not
/// below `min`, a Pareto's `shape` above 1. Messages follow the value.
fn positive(p: &Args) -> Result<(), Problem> {
    need(p, &p.names().collect::<Vec<_>>())?;
    for k in ["value", "min", "mean"] {
        if p.known(k) && !(p.get(k) > 0.0) {
            return Err(Problem::at(k, "is not positive; allowed: a value above 0"));
        }
    }
    if p.known("max") && !(p.get("max") >= p.get("min")) {
        return Err(Problem::at("max", "is below min; allowed: min <= max"));
    }
    if p.known("shape") && !(p.get("shape") > 1.0) {
        return Err(Problem::at("shape", "is not above 1; allowed: shape > 1 (so that the mean exists)"));
    }
    Ok(())
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AppConfig {
    /// Always backlogged.
    Bulk,
    /// A transfer of `bytes`; its completion time is reported.
    File { bytes: u64 },
    /// Constant bit-rate stream with a play-back buffer (docs/applications.md).
    Cbr(CbrConfig),
    /// Variable bit-rate stream from a frame-size trace or a model.
    Vbr(VbrConfig),
    /// Web page loads with think times.
    Web(WebConfig),
    /// On-off source: bulk while on.
    Onoff(OnOffConfig),
}

/// A distribution of a positive quantity, in the unit of the field it sets.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Dist {
    Fixed { value: f64 },
    Uniform { min: f64, max: f64 },
    Exponential { mean: f64 },
    /// Log-normal with this mean and coefficient of variation (std / mean).
    Lognormal { mean: f64, cv: f64 },
    /// Pareto with this mean and tail index `shape` (> 1, so the mean exists).
    Pareto { mean: f64, shape: f64 },
}

// Defaults of configurations written without them (by hand, by Rust tests): the
// members' entries are the one place they are stated.
fn default(info: &Info, name: &str) -> f64 {
    info.param(name).map_or(f64::NAN, |p| p.default)
}
fn default_range(info: &Info, name: &str) -> (f64, f64) {
    info.param(name).map_or((f64::NAN, f64::NAN), |p| (p.min, p.max))
}
fn default_startup() -> u64 {
    default(&super::stream::CBR, "startup_ns") as u64
}
fn default_cv() -> f64 {
    default(&super::stream::VBR, "cv")
}
fn default_loop_trace() -> bool {
    default(&super::stream::VBR, "loop_trace") != 0.0
}
fn default_think() -> Dist {
    Dist::Fixed { value: default(&super::web::INFO, "think_ns") }
}
fn default_start_on() -> bool {
    default(&super::onoff::INFO, "start_on") != 0.0
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
    #[serde(default = "default_startup")]
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
    #[serde(default = "default_cv")]
    pub cv: f64,
    #[serde(default)]
    pub trace: Option<String>,
    /// Replay the trace from the start when it ends (false: the stream ends).
    #[serde(default = "default_loop_trace")]
    pub loop_trace: bool,
    #[serde(default = "default_startup")]
    pub startup_ns: u64,
    #[serde(default)]
    pub rebuffer_ns: Option<u64>,
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
    #[serde(default = "default_think")]
    pub think_ns: Dist,
    /// Pages to load (None: until the flow stops or the run ends).
    #[serde(default)]
    pub pages: Option<u64>,
    #[serde(default)]
    pub fetch: Fetch,
}

/// `kind = "onoff"`: bulk while on, silent while off.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOffConfig {
    pub on_ns: Dist,
    pub off_ns: Dist,
    #[serde(default = "default_start_on")]
    pub start_on: bool,
}

impl AppConfig {
    /// Bytes the application offers in all: a file's size; u64::MAX for bulk and
    /// for applications that write at their own times (`app/`), which have no end.
    pub fn bytes(&self) -> u64 {
        match self {
            AppConfig::File { bytes } => *bytes,
            _ => u64::MAX,
        }
    }

    /// What the member's entry cannot state: each distribution, each object.
    /// A problem names the parameter (`think_ns.shape`, `objects[1]`).
    pub fn check_items(&self) -> Result<(), Problem> {
        let (dists, objects): (Vec<(&str, &Dist)>, _) = match self {
            AppConfig::Web(w) => {
                let dists = [("object_count", w.object_count.as_ref()), ("object_bytes", w.object_bytes.as_ref())];
                let mut all: Vec<_> = dists.into_iter().filter_map(|(k, d)| d.map(|d| (k, d))).collect();
                all.push(("think_ns", &w.think_ns));
                (all, w.objects.as_deref())
            }
            AppConfig::Onoff(o) => (vec![("on_ns", &o.on_ns), ("off_ns", &o.off_ns)], None),
            _ => (Vec::new(), None),
        };
        if objects.is_some_and(|o| o.is_empty()) {
            return Err(Problem::at("objects", "an empty list; allowed: at least one size"));
        }
        let max = default_range(&super::web::INFO, "objects");
        for (i, &b) in objects.into_iter().flatten().enumerate() {
            if !(max.0..=max.1).contains(&(b as f64)) {
                return Err(Problem::at(&format!("objects[{i}]"), format!("{b} bytes; allowed: {} to {} bytes", max.0, max.1)));
            }
        }
        for (k, d) in dists {
            d.problem().map_err(|p| Problem { param: Some(format!("{k}.{}", p.param.unwrap_or_default())), ..p })?;
        }
        Ok(())
    }

    /// Each field's range, through the simulator's checkers (`limits.rs` passes them,
    /// so every bound is stated once); `field` names a field of this flow.
    pub fn check_ranges(&self, field: &dyn Fn(&str) -> String, c: &RangeChecks) -> Result<(), String> {
        match self {
            AppConfig::File { bytes: 0 } => Err(format!("{}: a file of 0 bytes; allowed: a positive size", field("app.bytes"))),
            AppConfig::File { bytes } => (c.size)(&field("app.bytes"), *bytes),
            AppConfig::Cbr(cbr) => {
                (c.rate)(&field("app.rate_bps"), cbr.rate_bps, false)?;
                (c.time)(&field("app.startup_ns"), cbr.startup_ns, 0)?;
                cbr.rebuffer_ns.map_or(Ok(()), |t| (c.time)(&field("app.rebuffer_ns"), t, 0))
            }
            AppConfig::Vbr(vbr) => {
                if let Some(r) = vbr.rate_bps {
                    (c.rate)(&field("app.rate_bps"), r, false)?;
                }
                (c.time)(&field("app.startup_ns"), vbr.startup_ns, 0)?;
                vbr.rebuffer_ns.map_or(Ok(()), |t| (c.time)(&field("app.rebuffer_ns"), t, 0))
            }
            AppConfig::Web(web) => {
                for (k, &b) in web.objects.iter().flatten().enumerate() {
                    (c.size)(&field(&format!("app.objects.{k}")), b)?;
                }
                Ok(())
            }
            AppConfig::Bulk | AppConfig::Onoff(_) => Ok(()),
        }
    }
}

/// The range checkers `AppConfig::check_ranges` uses: a time in ns with its minimum,
/// a rate in bit/s (0 allowed or not), a size in bytes.
pub struct RangeChecks {
    pub time: fn(&str, Nanos, Nanos) -> Result<(), String>,
    pub rate: fn(&str, f64, bool) -> Result<(), String>,
    pub size: fn(&str, u64) -> Result<(), String>,
}

/// The schema's check of an application given as `{ kind, ...params }` (the
/// parameters the user gave, canonical names and units): the member's entry,
/// then [`AppConfig::check_items`].
pub fn check_table(table: &serde_json::Map<String, serde_json::Value>) -> Result<(), Problem> {
    crate::table::check(super::APPS, "application", table)?;
    let app: AppConfig =
        serde_json::from_value(serde_json::Value::Object(table.clone())).map_err(|e| Problem::whole(e.to_string()))?;
    app.check_items()
}

impl Dist {
    pub(crate) fn check(&self, field: &str) -> Result<(), String> {
        self.problem().map_err(|p| format!("{field}: {self:?}: {}", p.line("")))
    }

    /// Checked by its registry entry (`DISTRIBUTIONS`), as the schema checks it.
    pub fn problem(&self) -> Result<(), Problem> {
        let name = match self {
            Dist::Fixed { .. } => "fixed",
            Dist::Uniform { .. } => "uniform",
            Dist::Exponential { .. } => "exponential",
            Dist::Lognormal { .. } => "lognormal",
            Dist::Pareto { .. } => "pareto",
        };
        let info = DISTRIBUTIONS.iter().find(|i| i.name == name).expect("every distribution is registered");
        info.check("distribution", &self.params())
    }

    fn params(&self) -> Params {
        let p = Params::new();
        match *self {
            Dist::Fixed { value } => p.with("value", value),
            Dist::Uniform { min, max } => p.with("min", min).with("max", max),
            Dist::Exponential { mean } => p.with("mean", mean),
            Dist::Lognormal { mean, cv } => p.with("mean", mean).with("cv", cv),
            Dist::Pareto { mean, shape } => p.with("mean", mean).with("shape", shape),
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
pub(crate) fn lognormal(rng: &mut Rng, mean: f64, cv: f64) -> f64 {
    if cv == 0.0 {
        return mean;
    }
    let s2 = (1.0 + cv * cv).ln();
    (mean.ln() - 0.5 * s2 + s2.sqrt() * rng.normal()).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
