//! `gilbert_elliott`: Gilbert (1960) / Elliott (1963) two-state channel. Each packet
//! is lost with the loss probability of the current state; then the state moves
//! good -> bad with probability `p_gb`, bad -> good with `p_bg`. Starts good.

use super::probability;
use mpcc_core::params::{need, param, Info};
use mpcc_core::Rng;

pub const INFO: Info = Info::new(
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

#[derive(Clone, Debug)]
pub struct GilbertElliott {
    pub p_gb: f64,
    pub p_bg: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    bad: bool,
    rng: Rng,
}

impl GilbertElliott {
    pub fn new(p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, rng: Rng) -> Result<Self, String> {
        Ok(GilbertElliott {
            p_gb: probability("gilbert_elliott.p_gb", p_gb)?,
            p_bg: probability("gilbert_elliott.p_bg", p_bg)?,
            loss_good: probability("gilbert_elliott.loss_good", loss_good)?,
            loss_bad: probability("gilbert_elliott.loss_bad", loss_bad)?,
            bad: false,
            rng,
        })
    }

    /// Long-run fraction lost: pi_g loss_good + pi_b loss_bad, pi_b = p_gb / (p_gb + p_bg).
    pub fn mean_loss(&self) -> f64 {
        let pi_b = if self.p_gb + self.p_bg > 0.0 { self.p_gb / (self.p_gb + self.p_bg) } else { 0.0 };
        pi_b * self.loss_bad + (1.0 - pi_b) * self.loss_good
    }

    #[inline]
    pub fn lose(&mut self) -> bool {
        let lost = self.rng.bernoulli(if self.bad { self.loss_bad } else { self.loss_good });
        let flip = if self.bad { self.p_bg } else { self.p_gb };
        if self.rng.bernoulli(flip) {
            self.bad = !self.bad;
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_run_rate_is_the_stationary_value() {
        // pi_b = 0.01 / (0.01 + 0.09) = 0.1; loss = 0.1 * 0.5 + 0.9 * 0.01 = 0.059.
        let mut m = GilbertElliott::new(0.01, 0.09, 0.01, 0.5, Rng::stream(9, 2)).unwrap();
        assert!((m.mean_loss() - 0.059).abs() < 1e-12);
        let n = 2_000_000;
        let lost = (0..n).filter(|_| m.lose()).count() as f64 / n as f64;
        assert!((lost - 0.059).abs() < 0.003, "{lost}");
    }

    #[test]
    fn losses_are_bursty() {
        // Same mean loss as Bernoulli(0.1) but lost packets cluster: P(loss | loss) ~ 1 - p_bg.
        let mut m = GilbertElliott::new(0.02, 0.18, 0.0, 1.0, Rng::stream(9, 3)).unwrap();
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
    fn validation_names_fields() {
        let r = || Rng::stream(1, 1);
        assert!(GilbertElliott::new(0.1, -0.1, 0.0, 1.0, r()).unwrap_err().contains("p_bg"));
        assert!(GilbertElliott::new(0.1, 0.1, 0.0, f64::NAN, r()).unwrap_err().contains("loss_bad"));
    }
}
