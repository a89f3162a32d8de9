//! The distributions application fields draw from (`think`, `on`, `off`,
//! `object_count`, `object_bytes`): their registry entries, the one check of
//! their parameters, and sampling. A leaf module.

use mpcc_core::params::{need, param, Args, Info, ParamInfo, Params, Problem, Unit};
use mpcc_core::Rng;
use serde::Deserialize;

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
        .with_rule(dist_rule),
    Info::new(
        "uniform",
        "uniform between `min` and `max`",
        super::DOC,
        &[of_field("min", "least value"), of_field("max", "largest value")],
    )
    .with_units(OF_FIELD)
    .with_rule(dist_rule),
    Info::new("exponential", "exponential with `mean`", super::DOC, &[of_field("mean", "the mean")])
        .with_units(OF_FIELD)
        .with_rule(dist_rule),
    Info::new(
        "lognormal",
        "log-normal with `mean` and coefficient of variation `cv` (0 to 10)",
        super::DOC,
        &[of_field("mean", "the mean"), param("cv", f64::NAN, 0.0, 10.0, "standard deviation / mean")],
    )
    .with_units(OF_FIELD)
    .with_rule(dist_rule),
    Info::new(
        "pareto",
        "Pareto with `mean` and tail index `shape` (> 1)",
        super::DOC,
        &[
            of_field("mean", "the mean"),
            param("shape", f64::NAN, 1.0, 1e6, "tail index, above 1 (so that the mean exists)"),
        ],
    )
    .with_units(OF_FIELD)
    .with_rule(dist_rule),
];

/// Every parameter given, the location (value, min, mean) above 0, `max` not
/// below `min`, a Pareto's `shape` above 1. Messages follow the value.
#[allow(clippy::neg_cmp_op_on_partial_ord)] // the negated tests also reject NaN
fn dist_rule(p: &Args) -> Result<(), Problem> {
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

/// A distribution of a positive quantity, in the unit of the field it sets.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Dist {
    Fixed {
        value: f64,
    },
    Uniform {
        min: f64,
        max: f64,
    },
    Exponential {
        mean: f64,
    },
    /// Log-normal with this mean and coefficient of variation (std / mean).
    Lognormal {
        mean: f64,
        cv: f64,
    },
    /// Pareto with this mean and tail index `shape` (> 1, so the mean exists).
    Pareto {
        mean: f64,
        shape: f64,
    },
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
