//! The applications' part of the canonical configuration (`flows.<k>.app`): one
//! variant per kind, holding the member's configuration (defined in its file),
//! and the checks that span kinds. `config.rs` re-exports these types.

use super::dist::Dist;
use super::onoff::OnOffConfig;
use super::stream::{CbrConfig, VbrConfig};
use super::web::WebConfig;
use mpcc_core::params::{Info, Problem};
use mpcc_core::Nanos;
use serde::Deserialize;

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

/// The allowed range of parameter `name` of `info`.
fn range(info: &Info, name: &str) -> (f64, f64) {
    info.param(name).map_or((f64::NAN, f64::NAN), |p| (p.min, p.max))
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
        let max = range(&super::web::INFO, "objects");
        for (i, &b) in objects.into_iter().flatten().enumerate() {
            if !(max.0..=max.1).contains(&(b as f64)) {
                return Err(Problem::at(
                    &format!("objects[{i}]"),
                    format!("{b} bytes; allowed: {} to {} bytes", max.0, max.1),
                ));
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
            AppConfig::File { bytes: 0 } => {
                Err(format!("{}: a file of 0 bytes; allowed: a positive size", field("app.bytes")))
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problem(table: serde_json::Value) -> Option<(Option<String>, String)> {
        check_table(table.as_object().unwrap()).err().map(|p| (p.param, p.msg))
    }

    #[test]
    fn the_schema_check_names_the_parameter() {
        assert_eq!(problem(json!({"kind": "web", "objects": [1000]})), None);
        assert_eq!(problem(json!({"kind": "cbr"})).unwrap().0.as_deref(), Some("rate_bps"));
        // `cv` has a default, yet is refused when given with a trace.
        let p = problem(json!({"kind": "vbr", "fps": 30.0, "trace": "f.txt", "cv": 0.5})).unwrap();
        assert_eq!(p.0.as_deref(), Some("cv"));
        assert_eq!(problem(json!({"kind": "vbr", "fps": 30.0, "trace": "f.txt"})), None);
        let p = problem(
            json!({"kind": "web", "objects": [1000], "think_ns": {"kind": "pareto", "mean": 1e9, "shape": 1.0}}),
        );
        assert_eq!(p.unwrap().0.as_deref(), Some("think_ns.shape"));
        let p = problem(json!({"kind": "web", "objects": [1000, 0]}));
        assert_eq!(p.unwrap().0.as_deref(), Some("objects[1]"));
        let p = problem(json!({"kind": "web", "objects": [1000], "fetch": "pipelined"}));
        assert_eq!(p.unwrap().0.as_deref(), Some("fetch"));
        let p = problem(json!({"kind": "onoff", "on_ns": {"kind": "fixed", "value": 1e9}}));
        assert_eq!(p.unwrap(), (Some("off_ns".into()), "required field is missing".into()));
    }

    #[test]
    fn serde_defaults_are_the_entries() {
        let web: AppConfig = serde_json::from_value(json!({"kind": "web", "objects": [1]})).unwrap();
        let AppConfig::Web(w) = web else { panic!() };
        assert_eq!(w.think_ns.mean(), super::super::web::INFO.param("think_ns").unwrap().default);
        let vbr: AppConfig = serde_json::from_value(json!({"kind": "vbr", "fps": 25.0, "rate_bps": 1e6})).unwrap();
        let AppConfig::Vbr(v) = vbr else { panic!() };
        assert_eq!((v.cv, v.loop_trace, v.startup_ns), (0.5, true, 1_000_000_000));
    }
}
