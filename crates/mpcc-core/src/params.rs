//! What every pluggable member (controller, scheduler, receiver, queue, loss
//! model, capacity model, application) says of itself, and the one parameter
//! check they all share. A leaf module: the families' registries build on it,
//! and `_core.kinds()` exports it to Python, the CLI and the docs.

use std::collections::BTreeMap;

/// Parameters as given by the scenario (`cc_params = { phi = 1.0 }`, a queue's
/// table), by name; numbers only (a flag is 0 or 1).
#[derive(Clone, Debug, Default)]
pub struct Params(pub BTreeMap<String, f64>);

impl Params {
    pub fn new() -> Params {
        Params(BTreeMap::new())
    }
    pub fn with(mut self, k: &str, v: f64) -> Params {
        self.0.insert(k.to_string(), v);
        self
    }
    /// The value of `name`, or its default. Call only after [`Info::check`].
    pub fn get(&self, name: &str, default: f64) -> f64 {
        self.0.get(name).copied().unwrap_or(default)
    }
}

/// A tunable parameter: name, default, allowed range, meaning. A default of NaN
/// means "none": the parameter may be left unset, and the member's builder says
/// whether it must be given. The range is closed unless `open_min` (a rate or a
/// probability that must be above 0: "above min, at most max").
#[derive(Clone, Copy, Debug)]
pub struct ParamInfo {
    pub name: &'static str,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub help: &'static str,
    pub open_min: bool,
}

impl ParamInfo {
    /// The same parameter with `min` itself not allowed.
    pub const fn above_min(mut self) -> ParamInfo {
        self.open_min = true;
        self
    }
    /// Whether `v` is in the allowed range.
    pub fn allows(&self, v: f64) -> bool {
        v.is_finite() && v <= self.max && (v > self.min || (v == self.min && !self.open_min))
    }
    /// The allowed range in words: "0 to 1", "above 0, at most 1".
    pub fn range_text(&self) -> String {
        if self.open_min {
            format!("above {}, at most {}", self.min, self.max)
        } else {
            format!("{} to {}", self.min, self.max)
        }
    }
}

/// A `ParamInfo` in one line, for the registry tables.
pub const fn param(name: &'static str, default: f64, min: f64, max: f64, help: &'static str) -> ParamInfo {
    ParamInfo { name, default, min, max, help, open_min: false }
}

/// What a parameter's number means, so that the front end can take it in the
/// user's units and write it back in the canonical configuration's type.
/// Canonical names carry the unit as a suffix (`_ns`, `_bps`, `_bytes`), which
/// the user-facing name drops (`target_ns` is written `target = "5ms"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A real number (the default).
    Number,
    /// A whole number (packets, counts).
    Whole,
    /// true or false (canonically 1 or 0).
    Flag,
    /// Nanoseconds (a duration such as "5ms").
    Duration,
    /// Bits per second (a rate such as "10Mbps").
    Rate,
    /// Bytes (a size such as "1500B").
    Size,
    // Structured parameters (applications, capacity models). The parameter
    // check sees only whether they are given (1); their values are parsed by
    // the front end from this description and checked by the member's builder.
    /// A file the front end reads and resolves against the scenario's folder;
    /// canonically its absolute path. The word names its format for the front
    /// end's reader ("mahimahi", "frames").
    File(&'static str),
    /// One of these words; canonically the word. Its number (default, range,
    /// what the check sees) is the word's index.
    Choice(&'static [&'static str]),
    /// A distribution of values in this unit: `{ kind, ... }`, a member of the
    /// distributions' registry. A default d is the fixed value d.
    Dist(&'static Unit),
    /// A non-empty list of values in this unit, each in the parameter's range.
    List(&'static Unit),
    /// In the unit of the field that takes it (a distribution's own parameters).
    OfField,
    /// A schedule's steps: a non-empty list of { at = duration, rate = rate or
    /// 0 }, canonically [[at_ns, bps], ...].
    Steps,
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Number => "number",
            Unit::Whole => "whole",
            Unit::Flag => "flag",
            Unit::Duration => "duration",
            Unit::Rate => "rate",
            Unit::Size => "size",
            Unit::File(_) => "file",
            Unit::Choice(_) => "choice",
            Unit::Dist(_) => "distribution",
            Unit::List(_) => "list",
            Unit::OfField => "of_field",
            Unit::Steps => "steps",
        }
    }

    /// Whether the parameter check sees its value (else only whether it is given).
    pub fn is_number(self) -> bool {
        !matches!(self, Unit::File(_) | Unit::Dist(_) | Unit::List(_) | Unit::Steps)
    }
}

/// A rule across parameters that their ranges cannot state.
pub type Rule = fn(&Args) -> Result<(), Problem>;

/// What a rule sees: each parameter's value or default, and whether it was given.
pub struct Args<'a> {
    info: &'a Info,
    params: &'a Params,
}

impl Args<'_> {
    /// The value given, else the default (NaN: unset without a default; 1 for a
    /// structured parameter that is given).
    pub fn get(&self, name: &str) -> f64 {
        self.info.get(self.params, name)
    }
    /// Whether the user gave it (a rule may allow it only with another).
    pub fn given(&self, name: &str) -> bool {
        self.params.0.contains_key(name)
    }
    /// Whether the member has this parameter.
    pub fn known(&self, name: &str) -> bool {
        self.info.param(name).is_some()
    }
    /// The member's parameters.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.info.params.iter().map(|p| p.name)
    }
}

/// One registered member of a family.
#[derive(Clone, Copy, Debug)]
pub struct Info {
    pub name: &'static str,
    pub summary: &'static str,
    /// The doc page (and section) that explains it.
    pub doc: &'static str,
    pub params: &'static [ParamInfo],
    /// Parameters that are not plain numbers; every other one is a [`Unit::Number`].
    pub units: &'static [(&'static str, Unit)],
    pub rule: Option<Rule>,
    /// The scenario's name of parameters whose name is not the canonical one less
    /// its unit suffix (`bps` is written `rate`).
    pub names: &'static [(&'static str, &'static str)],
}

/// What is wrong with a member's parameters; the family adds the field it was
/// given in (`cc_params`, `links.x.queue`).
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// The parameter concerned, if one is.
    pub param: Option<String>,
    pub msg: String,
}

impl Problem {
    pub fn at(param: &str, msg: impl Into<String>) -> Problem {
        Problem { param: Some(param.to_string()), msg: msg.into() }
    }
    pub fn whole(msg: impl Into<String>) -> Problem {
        Problem { param: None, msg: msg.into() }
    }
    /// `prefix.param: msg` (or `prefix: msg`), the one-line form of every family.
    pub fn line(&self, prefix: &str) -> String {
        match &self.param {
            Some(p) if prefix.is_empty() => format!("{p}: {}", self.msg),
            Some(p) => format!("{prefix}.{p}: {}", self.msg),
            None if prefix.is_empty() => self.msg.clone(),
            None => format!("{prefix}: {}", self.msg),
        }
    }
}

impl Info {
    pub const fn new(
        name: &'static str, summary: &'static str, doc: &'static str, params: &'static [ParamInfo],
    ) -> Info {
        Info { name, summary, doc, params, units: &[], rule: None, names: &[] }
    }
    pub const fn with_rule(self, rule: Rule) -> Info {
        Info { rule: Some(rule), ..self }
    }
    pub const fn with_units(self, units: &'static [(&'static str, Unit)]) -> Info {
        Info { units, ..self }
    }
    pub const fn with_names(self, names: &'static [(&'static str, &'static str)]) -> Info {
        Info { names, ..self }
    }

    /// The scenario's name of `param`, if the unit-suffix rule does not give it.
    pub fn user_name(&self, param: &str) -> Option<&'static str> {
        self.names.iter().find(|(n, _)| *n == param).map(|(_, u)| *u)
    }

    pub fn param(&self, name: &str) -> Option<&'static ParamInfo> {
        self.params.iter().find(|p| p.name == name)
    }

    pub fn unit(&self, name: &str) -> Unit {
        self.units.iter().find(|(n, _)| *n == name).map_or(Unit::Number, |(_, u)| *u)
    }

    /// `name`'s value in `params`, else its default (NaN: unset, no default).
    pub fn get(&self, params: &Params, name: &str) -> f64 {
        params.get(name, self.param(name).map_or(f64::NAN, |p| p.default))
    }

    /// The one parameter check: every name known, every value finite, in range
    /// and whole where the unit asks, then the member's rule. `family` names the
    /// family in messages ("scheduler", "queue").
    pub fn check(&self, family: &str, params: &Params) -> Result<(), Problem> {
        for (k, &v) in &params.0 {
            let Some(p) = self.param(k) else {
                let names: Vec<&str> = self.params.iter().map(|p| p.name).collect();
                let allowed = if names.is_empty() { "none".to_string() } else { names.join(", ") };
                return Err(Problem::at(
                    k,
                    format!("unknown parameter of {family} '{}'; allowed: {allowed}", self.name),
                ));
            };
            if !self.unit(k).is_number() {
                continue; // given; its value is the builder's to check
            }
            if !p.allows(v) {
                return Err(Problem::at(k, format!("{v}; allowed: {}", p.range_text())));
            }
            if matches!(self.unit(k), Unit::Whole | Unit::Flag | Unit::Duration | Unit::Size | Unit::Choice(_))
                && v.fract() != 0.0
            {
                return Err(Problem::at(k, format!("{v}; allowed: a whole number")));
            }
        }
        match self.rule {
            Some(rule) => rule(&Args { info: self, params }),
            None => Ok(()),
        }
    }
}

/// The member `name` of `list`, or an error listing what is allowed (`what`:
/// "scheduler", "queue kind").
pub fn find<'a>(list: impl IntoIterator<Item = &'a Info> + Clone, what: &str, name: &str) -> Result<&'a Info, String> {
    list.clone().into_iter().find(|i| i.name == name).ok_or_else(|| {
        let names: Vec<&str> = list.into_iter().map(|i| i.name).collect();
        format!("unknown {what} '{name}'; allowed: {}", names.join(", "))
    })
}

/// For a member's rule: each of `names` (parameters without a default) is given.
pub fn need(p: &Args, names: &[&str]) -> Result<(), Problem> {
    match names.iter().find(|k| p.get(k).is_nan()) {
        Some(k) => Err(Problem::at(k, "required field is missing")),
        None => Ok(()),
    }
}

/// A registered member: its entry and its builder (of the family's type `B`,
/// a function pointer), both defined in the member's own file.
#[derive(Clone, Copy, Debug)]
pub struct Member<B: 'static> {
    pub info: &'static Info,
    pub build: B,
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: ParamInfo = param("a", 1.0, 0.0, 2.0, "");
    const N: ParamInfo = param("n", f64::NAN, 1.0, 10.0, "");
    fn rule(p: &Args) -> Result<(), Problem> {
        if p.get("a") > 1.5 && p.get("n").is_nan() {
            return Err(Problem::at("n", "required with a above 1.5"));
        }
        Ok(())
    }
    const INFO: Info = Info::new("x", "", "", &[A, N]).with_units(&[("n", Unit::Whole)]).with_rule(rule);

    #[test]
    fn one_check_for_every_family() {
        assert!(INFO.check("thing", &Params::new()).is_ok());
        let e = INFO.check("thing", &Params::new().with("b", 1.0)).unwrap_err();
        assert_eq!(e.line("x_params"), "x_params.b: unknown parameter of thing 'x'; allowed: a, n");
        let e = INFO.check("thing", &Params::new().with("a", 3.0)).unwrap_err();
        assert_eq!(e.line(""), "a: 3; allowed: 0 to 2");
        let e = INFO.check("thing", &Params::new().with("n", 2.5)).unwrap_err();
        assert_eq!(e.line("p"), "p.n: 2.5; allowed: a whole number");
        let e = INFO.check("thing", &Params::new().with("a", 2.0)).unwrap_err();
        assert_eq!(e.line("p"), "p.n: required with a above 1.5");
        assert!(INFO.check("thing", &Params::new().with("a", 2.0).with("n", 3.0)).is_ok());
        assert!(INFO.check("thing", &Params::new().with("a", f64::NAN)).is_err());
    }

    #[test]
    fn an_open_lower_bound_refuses_the_bound_itself() {
        const P: Info = Info::new("p", "", "", &[param("rate", f64::NAN, 0.0, 1.0, "").above_min()]);
        let e = P.check("q", &Params::new().with("rate", 0.0)).unwrap_err();
        assert_eq!(e.line(""), "rate: 0; allowed: above 0, at most 1");
        assert!(P.check("q", &Params::new().with("rate", 1e-300)).is_ok());
        assert!(P.check("q", &Params::new().with("rate", 1.0)).is_ok());
        assert!(INFO.check("q", &Params::new().with("a", 0.0)).is_ok(), "closed by default");
    }

    #[test]
    fn structured_parameters_are_seen_as_given() {
        fn only_with_n(p: &Args) -> Result<(), Problem> {
            if p.given("file") && !p.given("n") {
                return Err(Problem::at("file", "only with n"));
            }
            Ok(())
        }
        const S: Info = Info::new("s", "", "", &[param("file", f64::NAN, 0.0, 0.0, ""), N])
            .with_units(&[("file", Unit::File("x")), ("n", Unit::Whole)])
            .with_rule(only_with_n);
        // A structured parameter's number (1: given) is not range-checked.
        assert_eq!(S.check("s", &Params::new().with("file", 1.0)).unwrap_err().msg, "only with n");
        assert!(S.check("s", &Params::new().with("file", 1.0).with("n", 2.0)).is_ok());
        assert_eq!(Unit::Dist(&Unit::Duration).name(), "distribution");
        assert!(!Unit::List(&Unit::Size).is_number() && Unit::Choice(&["a"]).is_number());
    }

    #[test]
    fn find_lists_allowed() {
        let list = [INFO];
        assert_eq!(find(&list, "thing", "y").unwrap_err(), "unknown thing 'y'; allowed: x");
        assert!(find(&list, "thing", "x").is_ok());
    }
}
