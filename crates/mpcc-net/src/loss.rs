//! Random loss on a link, applied to a packet after it has been serialised (it
//! used the link's capacity and was corrupted on the wire, as wireless loss is).

use mpcc_core::params::{find, need, param, Info, Member, Params, Problem, Unit};
use mpcc_core::Rng;

// The registry: one entry and one builder per model (the models are a few lines
// each, so they share this file), and one list line each in `MEMBERS`.

/// A loss model's builder: checked parameter values (NaN: unset), its random stream.
pub type Build = fn(&dyn Fn(&str) -> f64, Rng) -> Result<LossModel, Problem>;

/// Every loss model; the first is the default.
pub static MEMBERS: &[Member<Build>] = &[
    Member { info: &NONE, build: |_, _| Ok(LossModel::None) },
    Member { info: &BERNOULLI, build: |p, rng| LossModel::bernoulli(p("p"), rng).map_err(Problem::whole) },
    Member {
        info: &GILBERT_ELLIOTT,
        build: |p, rng| LossModel::gilbert_elliott(p("p_gb"), p("p_bg"), p("loss_good"), p("loss_bad"), rng).map_err(Problem::whole),
    },
    Member { info: &PERIODIC, build: |p, _| LossModel::periodic(p("every") as u64).map_err(Problem::whole) },
];

/// Every loss model's entry.
pub fn registry() -> impl Iterator<Item = &'static Info> + Clone {
    MEMBERS.iter().map(|m| m.info)
}

/// The loss model `kind` with `params`, checked against its entry.
pub fn build(kind: &str, params: &Params, rng: Rng) -> Result<LossModel, Problem> {
    let info = find(registry(), "loss kind", kind).map_err(Problem::whole)?;
    info.check("loss model", params)?;
    let m = MEMBERS.iter().find(|m| m.info.name == kind).expect("found");
    (m.build)(&|k: &str| info.get(params, k), rng)
}

pub const NONE: Info = Info::new("none", "no random loss", "docs/links.md#loss-models", &[]);
pub const BERNOULLI: Info = Info::new(
    "bernoulli",
    "each packet lost independently with probability p",
    "docs/links.md#loss-models",
    &[param("p", f64::NAN, 0.0, 1.0, "loss probability")],
)
.with_rule(|p| need(p, &["p"]));
pub const GILBERT_ELLIOTT: Info = Info::new(
    "gilbert_elliott",
    "two-state channel (p_gb, p_bg, loss_good, loss_bad)",
    "docs/links.md#loss-models",
    &[
        param("p_gb", f64::NAN, 0.0, 1.0, "probability per packet of moving from good to bad"),
        param("p_bg", f64::NAN, 0.0, 1.0, "probability per packet of moving from bad to good"),
        param("loss_good", 0.0, 0.0, 1.0, "loss probability in the good state"),
        param("loss_bad", 1.0, 0.0, 1.0, "loss probability in the bad state"),
    ],
)
.with_rule(|p| need(p, &["p_gb", "p_bg"]));
pub const PERIODIC: Info = Info::new(
    "periodic",
    "every `every`-th packet lost (deterministic)",
    "docs/links.md#loss-models",
    &[param("every", f64::NAN, 1.0, 9_007_199_254_740_991.0, "one packet lost in this many")],
)
.with_units(&[("every", Unit::Whole)])
.with_rule(|p| need(p, &["every"]));

#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    /// Each packet lost independently with probability `p`.
    Bernoulli { p: f64, rng: Rng },
    /// Every `every`-th packet is lost (1/p deterministic loss, for closed-form checks).
    Periodic { every: u64, count: u64 },
    /// Gilbert (1960) / Elliott (1963) two-state channel. Each packet is lost with
    /// the loss probability of the current state; then the state moves
    /// good -> bad with probability `p_gb`, bad -> good with `p_bg`. Starts good.
    GilbertElliott { p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, bad: bool, rng: Rng },
}

fn probability(name: &str, p: f64) -> Result<f64, String> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("loss.{name} must be a probability in [0, 1], got {p}"))
    }
}

impl LossModel {
    pub fn bernoulli(p: f64, rng: Rng) -> Result<Self, String> {
        Ok(LossModel::Bernoulli { p: probability("bernoulli.p", p)?, rng })
    }

    pub fn periodic(every: u64) -> Result<Self, String> {
        if every == 0 {
            return Err("loss.periodic.every must be >= 1, got 0".into());
        }
        Ok(LossModel::Periodic { every, count: 0 })
    }

    pub fn gilbert_elliott(p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, rng: Rng) -> Result<Self, String> {
        Ok(LossModel::GilbertElliott {
            p_gb: probability("gilbert_elliott.p_gb", p_gb)?,
            p_bg: probability("gilbert_elliott.p_bg", p_bg)?,
            loss_good: probability("gilbert_elliott.loss_good", loss_good)?,
            loss_bad: probability("gilbert_elliott.loss_bad", loss_bad)?,
            bad: false,
            rng,
        })
    }

    /// Long-run fraction of packets lost (for a Gilbert-Elliott channel,
    /// pi_g loss_good + pi_b loss_bad with pi_b = p_gb / (p_gb + p_bg)).
    pub fn mean_loss(&self) -> f64 {
        match self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p, .. } => *p,
            LossModel::Periodic { every, .. } => 1.0 / *every as f64,
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad, .. } => {
                let pi_b = if p_gb + p_bg > 0.0 { p_gb / (p_gb + p_bg) } else { 0.0 };
                pi_b * loss_bad + (1.0 - pi_b) * loss_good
            }
        }
    }

    /// Decides the fate of the next packet: true means lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p, rng } => rng.bernoulli(*p),
            LossModel::Periodic { every, count } => {
                *count += 1;
                if *count >= *every {
                    *count = 0;
                    true
                } else {
                    false
                }
            }
            LossModel::GilbertElliott { p_gb, p_bg, loss_good, loss_bad, bad, rng } => {
                let lost = rng.bernoulli(if *bad { *loss_bad } else { *loss_good });
                let flip = if *bad { *p_bg } else { *p_gb };
                if rng.bernoulli(flip) {
                    *bad = !*bad;
                }
                lost
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gilbert_elliott_long_run_rate_is_stationary_value() {
        // pi_b = 0.01 / (0.01 + 0.09) = 0.1; loss = 0.1 * 0.5 + 0.9 * 0.01 = 0.059.
        let mut m = LossModel::gilbert_elliott(0.01, 0.09, 0.01, 0.5, Rng::stream(9, 2)).unwrap();
        assert!((m.mean_loss() - 0.059).abs() < 1e-12);
        let n = 2_000_000;
        let lost = (0..n).filter(|_| m.lose()).count() as f64 / n as f64;
        assert!((lost - 0.059).abs() < 0.003, "{lost}");
    }

    #[test]
    fn gilbert_elliott_losses_are_bursty() {
        // Same mean loss as Bernoulli(0.1) but lost packets cluster: P(loss | loss) ~ 1 - p_bg.
        let mut m = LossModel::gilbert_elliott(0.02, 0.18, 0.0, 1.0, Rng::stream(9, 3)).unwrap();
        let (mut prev, mut pairs, mut losses) = (false, 0u64, 0u64);
        for _ in 0..1_000_000 {
            let l = m.lose();
            if l {
                losses += 1;
                if prev {
                    pairs += 1;
                }
            }
            prev = l;
        }
        let cond = pairs as f64 / losses as f64;
        assert!((cond - 0.82).abs() < 0.02, "{cond}");
    }

    #[test]
    fn periodic_and_bernoulli() {
        let mut m = LossModel::periodic(4).unwrap();
        let pattern: Vec<bool> = (0..8).map(|_| m.lose()).collect();
        assert_eq!(pattern, [false, false, false, true, false, false, false, true]);
        let mut b = LossModel::bernoulli(0.2, Rng::stream(1, 1)).unwrap();
        let n = 200_000;
        let lost = (0..n).filter(|_| b.lose()).count() as f64 / n as f64;
        assert!((lost - 0.2).abs() < 0.005);
    }

    #[test]
    fn validation_names_fields() {
        let r = || Rng::stream(1, 1);
        assert!(LossModel::bernoulli(1.5, r()).unwrap_err().contains("loss.bernoulli.p must be a probability in [0, 1]"));
        assert!(LossModel::gilbert_elliott(0.1, -0.1, 0.0, 1.0, r()).unwrap_err().contains("p_bg"));
        assert!(LossModel::gilbert_elliott(0.1, 0.1, 0.0, f64::NAN, r()).unwrap_err().contains("loss_bad"));
        assert!(LossModel::periodic(0).unwrap_err().contains("every"));
    }
}
