//! `periodic`: every `every`-th packet is lost (1/p deterministic loss, for
//! closed-form checks).

use mpcc_core::params::{need, param, Info, Unit};

pub const INFO: Info = Info::new(
    "periodic",
    "every `every`-th packet lost (deterministic)",
    "docs/links.md#loss-models",
    &[param("every", f64::NAN, 1.0, 9_007_199_254_740_991.0, "one packet lost in this many")],
)
.with_units(&[("every", Unit::Whole)])
.with_rule(|p| need(p, &["every"]));

#[derive(Clone, Debug)]
pub struct Periodic {
    pub every: u64,
    count: u64,
}

impl Periodic {
    pub fn new(every: u64) -> Result<Self, String> {
        if every == 0 {
            return Err("loss.periodic.every must be >= 1, got 0".into());
        }
        Ok(Periodic { every, count: 0 })
    }

    #[inline]
    pub fn lose(&mut self) -> bool {
        self.count += 1;
        if self.count >= self.every {
            self.count = 0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fourth_packet() {
        let mut m = Periodic::new(4).unwrap();
        let pattern: Vec<bool> = (0..8).map(|_| m.lose()).collect();
        assert_eq!(pattern, [false, false, false, true, false, false, false, true]);
        assert!(Periodic::new(0).unwrap_err().contains("every"));
    }
}
