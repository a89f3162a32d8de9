//! `bernoulli`: each packet lost independently with probability `p`.

use super::probability;
use mpcc_core::params::{need, param, Info};
use mpcc_core::Rng;

pub const INFO: Info = Info::new(
    "bernoulli",
    "each packet lost independently with probability p",
    "docs/links.md#loss-models",
    &[param("p", f64::NAN, 0.0, 1.0, "loss probability")],
)
.with_rule(|p| need(p, &["p"]));

#[derive(Clone, Debug)]
pub struct Bernoulli {
    pub p: f64,
    rng: Rng,
}

impl Bernoulli {
    pub fn new(p: f64, rng: Rng) -> Result<Self, String> {
        Ok(Bernoulli { p: probability("bernoulli.p", p)?, rng })
    }

    #[inline]
    pub fn lose(&mut self) -> bool {
        self.rng.bernoulli(self.p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loses_the_stated_fraction() {
        let mut b = Bernoulli::new(0.2, Rng::stream(1, 1)).unwrap();
        let n = 200_000;
        let lost = (0..n).filter(|_| b.lose()).count() as f64 / n as f64;
        assert!((lost - 0.2).abs() < 0.005);
        assert!(Bernoulli::new(1.5, Rng::stream(1, 1))
            .unwrap_err()
            .contains("loss.bernoulli.p must be a probability in [0, 1]"));
    }
}
