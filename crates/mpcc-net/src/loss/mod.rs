//! Random loss on a link, applied to a packet after it has been serialised (it
//! used the link's capacity and was corrupted on the wire, as wireless loss is).
//! One file per model, each with its registry entry; `MEMBERS` lists them.

pub mod bernoulli;
pub mod gilbert_elliott;
pub mod periodic;

use mpcc_core::params::{find, Info, Member, Params, Problem};
use mpcc_core::Rng;

pub use bernoulli::Bernoulli;
pub use gilbert_elliott::GilbertElliott;
pub use periodic::Periodic;

/// A loss model's builder: checked parameter values (NaN: unset), its random stream.
pub type Build = fn(&dyn Fn(&str) -> f64, Rng) -> Result<LossModel, Problem>;

/// `none`: no random loss (the default).
pub const NONE: Info = Info::new("none", "no random loss", "docs/links.md#loss-models", &[]);

/// Every loss model, one line each; the first is the default.
pub static MEMBERS: &[Member<Build>] = &[
    Member { info: &NONE, build: |_, _| Ok(LossModel::None) },
    Member { info: &bernoulli::INFO, build: |p, rng| LossModel::bernoulli(p("p"), rng).map_err(Problem::whole) },
    Member {
        info: &gilbert_elliott::INFO,
        build: |p, rng| {
            LossModel::gilbert_elliott(p("p_gb"), p("p_bg"), p("loss_good"), p("loss_bad"), rng).map_err(Problem::whole)
        },
    },
    Member { info: &periodic::INFO, build: |p, _| LossModel::periodic(p("every") as u64).map_err(Problem::whole) },
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

/// A link's loss model (enum dispatch: asked once per packet).
#[derive(Clone, Debug)]
pub enum LossModel {
    None,
    Bernoulli(Bernoulli),
    Periodic(Periodic),
    GilbertElliott(GilbertElliott),
}

fn probability(name: &str, p: f64) -> Result<f64, String> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("loss.{name} must be a probability in [0, 1], got {p}"))
    }
}

impl LossModel {
    /// Whether the model never loses a packet (and draws nothing).
    pub fn is_lossless(&self) -> bool {
        matches!(self, LossModel::None)
    }

    pub fn bernoulli(p: f64, rng: Rng) -> Result<Self, String> {
        Bernoulli::new(p, rng).map(LossModel::Bernoulli)
    }

    pub fn periodic(every: u64) -> Result<Self, String> {
        Periodic::new(every).map(LossModel::Periodic)
    }

    pub fn gilbert_elliott(p_gb: f64, p_bg: f64, loss_good: f64, loss_bad: f64, rng: Rng) -> Result<Self, String> {
        GilbertElliott::new(p_gb, p_bg, loss_good, loss_bad, rng).map(LossModel::GilbertElliott)
    }

    /// Long-run fraction of packets lost.
    pub fn mean_loss(&self) -> f64 {
        match self {
            LossModel::None => 0.0,
            LossModel::Bernoulli(m) => m.p,
            LossModel::Periodic(m) => 1.0 / m.every as f64,
            LossModel::GilbertElliott(m) => m.mean_loss(),
        }
    }

    /// Decides the fate of the next packet: true means lost.
    #[inline]
    pub fn lose(&mut self) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli(m) => m.lose(),
            LossModel::Periodic(m) => m.lose(),
            LossModel::GilbertElliott(m) => m.lose(),
        }
    }
}
