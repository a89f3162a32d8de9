//! Random loss on a link, applied to a packet after it has been serialised (it
//! used the link's capacity and was corrupted on the wire, as wireless loss is).

use mpcc_core::Rng;

#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    /// Each packet lost independently with probability `p`.
    Bernoulli { p: f64, rng: Rng },
    /// Every `every`-th packet is lost (1/p deterministic loss, for closed-form checks).
    Periodic { every: u64, count: u64 },
}

impl LossModel {
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
        }
    }
}
