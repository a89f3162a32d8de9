//! What the testbed asks the emulator to build (JSON written by
//! python/mpcc/testbed/plan.py): the scenario's canonical configuration (its links),
//! the TUN devices to open and in which network namespaces, and each subflow's
//! address and routes.

use mpcc_sim::config::Config;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub config: Config,
    pub ports: Vec<PortSpec>,
    pub subflows: Vec<SubflowSpec>,
    /// Most packets held at once (queues, serialisers and pipes together).
    pub max_packets: usize,
    /// Where the results JSON is written when the run ends.
    pub results: String,
}

/// A TUN device: created by the emulator inside the namespace `netns` (a path such
/// as /run/netns/NAME) under the name `name`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    pub netns: String,
    pub name: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubflowSpec {
    /// The client's address of this subflow: data from it, ACKs to it.
    pub addr: [u8; 4],
    pub client_port: usize,
    pub server_port: usize,
    pub fwd: RouteSpec,
    pub rev: RouteSpec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub links: Vec<usize>,
    /// Propagation delay after the last link (a reverse path given as a delay).
    pub delay_ns: u64,
}

/// Subflow index by client address; built once, read per packet.
pub struct AddrTable {
    by_low16: Vec<u32>,
    addrs: Vec<[u8; 4]>,
}

impl AddrTable {
    pub fn new(subs: &[SubflowSpec]) -> Result<AddrTable, String> {
        let mut by_low16 = vec![u32::MAX; 1 << 16];
        for (i, s) in subs.iter().enumerate() {
            let k = u16::from_be_bytes([s.addr[2], s.addr[3]]) as usize;
            if by_low16[k] != u32::MAX {
                return Err(format!("subflows[{i}]: address {:?} shares its last two bytes with another", s.addr));
            }
            by_low16[k] = i as u32;
        }
        Ok(AddrTable { by_low16, addrs: subs.iter().map(|s| s.addr).collect() })
    }

    #[inline]
    pub fn lookup(&self, a: [u8; 4]) -> Option<u32> {
        let i = self.by_low16[u16::from_be_bytes([a[2], a[3]]) as usize];
        (i != u32::MAX && self.addrs[i as usize] == a).then_some(i)
    }
}
