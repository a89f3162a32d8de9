//! Shared vocabulary of mpcc: integer-nanosecond time and seeded random streams.
//!
//! Nothing here reads a clock or a global: every component gets its own [`Rng`]
//! stream derived from the scenario seed, so adding a component never changes
//! another component's draws.

pub mod files;
pub mod params;
pub mod rng;
pub mod time;

pub use rng::Rng;
pub use time::{Nanos, NS_PER_MS, NS_PER_SEC, NS_PER_US};
