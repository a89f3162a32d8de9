//! Single-path (per-subflow) congestion rules, one file each with its registry entry and builder.

pub mod binomial;
pub mod cubic;
pub mod cubic_linux;
pub mod cubic_ns3;
pub mod hystart;
pub mod ns3_samples;
pub mod reno;
pub mod vegas;
pub mod vegas_ns3;
pub mod veno;
pub mod veno_ns3;
pub mod westwood;
pub mod westwood_ns3;

use crate::params::{Build, Member};

/// Every single-path controller: one line each (entry and builder are in its file).
pub static MEMBERS: &[Member<Build>] = &[
    Member { info: &reno::INFO, build: reno::build },
    Member { info: &cubic::INFO, build: cubic::build },
    Member { info: &vegas::INFO, build: vegas::build },
    Member { info: &veno::INFO, build: veno::build },
    Member { info: &westwood::INFO, build: westwood::build },
    Member { info: &binomial::INFO, build: binomial::build },
    Member { info: &binomial::SQRT, build: binomial::build_sqrt },
    Member { info: &binomial::IIAD, build: binomial::build_iiad },
];

#[cfg(test)]
mod properties;
