//! The canonical run configuration: what the Python front end produces from a
//! scenario file after validating it (names resolved to indices, units converted
//! to nanoseconds, bits per second and bytes). Deserialised from JSON; unknown
//! fields are rejected. The user-facing TOML shape is documented in
//! docs/scenarios.md; this is the internal contract.

use crate::profile::{Mechanisms, Profile};
// The applications' part of the configuration lives with the applications (app/config.rs).
pub use crate::app::config::AppConfig;
pub use crate::app::dist::Dist;
pub use crate::app::onoff::OnOffConfig;
pub use crate::app::stream::{CbrConfig, VbrConfig};
pub use crate::app::web::{Fetch, WebConfig};
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub duration_ns: u64,
    pub seed: u64,
    /// Summary statistics ignore everything before this time (0 = none).
    #[serde(default)]
    pub warmup_ns: u64,
    /// Interval of the time series (0 = no time series).
    #[serde(default = "default_sample")]
    pub sample_interval_ns: u64,
    pub links: Vec<LinkConfig>,
    pub flows: Vec<FlowConfig>,
    /// Record one connection's congestion-control events (see cc_record.rs).
    #[serde(default)]
    pub record_cc: Option<RecordCcConfig>,
    /// Keep the per-event log (event_log.rs): an `event_log` result table.
    #[serde(default)]
    pub event_log: bool,
    /// Record the controllers' and schedulers' own figures (`metrics()`) at each
    /// sample: a `metric_series` result table (series.rs).
    #[serde(default)]
    pub metric_series: bool,
    /// Packet captures (pcap.rs).
    #[serde(default)]
    pub pcap: Option<PcapConfig>,
    /// Keep every delay sample for exact percentiles (metrics.rs) instead of the
    /// quantile sketch (sketch.rs): memory grows with the packets delivered.
    #[serde(default)]
    pub exact_percentiles: bool,
}

/// What to capture: links and flows by index.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PcapConfig {
    pub links: Vec<usize>,
    pub flows: Vec<usize>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordCcConfig {
    pub path: String,
    /// The flow to record (default: the first with more than one subflow).
    #[serde(default)]
    pub flow: Option<String>,
}

fn default_sample() -> u64 {
    100_000_000
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub name: String,
    pub capacity: CapacityConfig,
    /// One-way propagation delay.
    pub delay_ns: u64,
    /// `{ kind, ...params }`, see `mpcc_net::queue`.
    pub queue: KindConfig,
    /// `{ kind, ...params }`, see `mpcc_net::loss` (default: no loss).
    #[serde(default = "no_loss")]
    pub loss: KindConfig,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CapacityConfig {
    Constant {
        bps: f64,
    },
    /// Piecewise-constant rate: `steps` are (start time, bps), sorted, first at 0.
    /// With `period_ns` > 0 the schedule repeats with that period.
    Schedule {
        steps: Vec<(u64, f64)>,
        #[serde(default)]
        period_ns: u64,
    },
    /// Multiplicative random walk: every `step_ns` the rate is multiplied by
    /// exp(sigma * N(0,1)) and clamped to [min_bps, max_bps].
    RandomWalk {
        initial_bps: f64,
        min_bps: f64,
        max_bps: f64,
        step_ns: u64,
        sigma: f64,
    },
    /// A mahimahi packet-delivery trace (see docs/links.md for the convention).
    Trace {
        path: String,
        #[serde(default = "default_mtu")]
        bytes_per_opportunity: u32,
    },
}

fn default_mtu() -> u32 {
    mpcc_net::capacity::default("trace", "bytes_per_opportunity") as u32
}

fn no_loss() -> KindConfig {
    KindConfig { kind: "none".into(), params: BTreeMap::new() }
}

/// A registered member given by its `kind` and its parameters by name, checked
/// against the member's entry (`mpcc_core::params::Info`): a queue discipline
/// (`mpcc_net::queue::members`) or a loss model (`mpcc_net::loss::MEMBERS`). Numbers and booleans; null means unset.
#[derive(Clone, Debug, Deserialize)]
pub struct KindConfig {
    pub kind: String,
    #[serde(flatten)]
    pub params: BTreeMap<String, serde_json::Value>,
}

impl KindConfig {
    /// The parameters as numbers (true 1, false 0; null left out).
    pub fn params(&self) -> Result<mpcc_core::params::Params, mpcc_core::params::Problem> {
        let table: serde_json::Map<String, serde_json::Value> = self.params.clone().into_iter().collect();
        crate::table::params(&mpcc_core::params::Info::new("", "", "", &[]), &table)
    }
}

/// The schema's check of a capacity model given as `{ kind, ...params }` (the
/// parameters the user gave, canonical names and units): the model's entry,
/// then a schedule's steps. A trace's file is the front end's to read.
pub fn check_capacity(table: &serde_json::Map<String, serde_json::Value>) -> Result<(), mpcc_core::params::Problem> {
    crate::table::check(mpcc_net::capacity::REGISTRY, "capacity model", table)?;
    let cap: CapacityConfig = serde_json::from_value(serde_json::Value::Object(table.clone()))
        .map_err(|e| mpcc_core::params::Problem::whole(e.to_string()))?;
    match cap {
        CapacityConfig::Schedule { steps, period_ns } => mpcc_net::capacity::Schedule::check(&steps, period_ns),
        _ => Ok(()),
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub name: String,
    pub cc: String,
    #[serde(default)]
    pub cc_params: BTreeMap<String, f64>,
    /// Forward route of a single-path flow: link indices in order. A flow gives
    /// either `path` or `subflows`.
    #[serde(default)]
    pub path: Option<Vec<usize>>,
    /// Reverse route of the ACKs; None = an uncongested reverse path with the same
    /// total propagation delay as the forward path. Only with `path`.
    #[serde(default)]
    pub reverse_path: Option<Vec<usize>>,
    /// The subflows of a multipath connection, in subflow-id order.
    #[serde(default)]
    pub subflows: Option<Vec<SubflowConfig>>,
    #[serde(default)]
    pub start_ns: u64,
    /// The application stops offering new data at this time (None = never).
    #[serde(default)]
    pub stop_ns: Option<u64>,
    pub app: AppConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
    /// Packet scheduler of a multipath connection (None = "minrtt").
    #[serde(default)]
    pub scheduler: Option<String>,
    /// Parameters of the scheduler by name (BLEST `lambda`, ECF `beta`; see
    /// docs/schedulers.md); unknown names are errors.
    #[serde(default)]
    pub scheduler_params: BTreeMap<String, f64>,
    /// Receiver controller of the connection (`mpcc_algo::receiver`: "none",
    /// "popctl", "rtsc"; None = "none"), see docs/algorithms/popctl.md and rtsc.md.
    #[serde(default)]
    pub receiver: Option<String>,
    /// Parameters of the receiver controller by name; unknown names are errors.
    #[serde(default)]
    pub receiver_params: BTreeMap<String, f64>,
}

/// One subflow of a multipath connection.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubflowConfig {
    /// Forward route: link indices in order.
    pub path: Vec<usize>,
    /// Reverse route of its ACKs (None: uncongested, same delay as `path`).
    #[serde(default)]
    pub reverse_path: Option<Vec<usize>>,
    /// Joins the connection at this time (None: when the flow starts).
    #[serde(default)]
    pub start_ns: Option<u64>,
    /// Leaves the connection at this time (None: never); its outstanding data is
    /// reinjected on the other subflows.
    #[serde(default)]
    pub stop_ns: Option<u64>,
    /// Cost of every Mbit this subflow sends (wire bytes, retransmissions
    /// included): the `cost` summary fields, and TSC's fill order. At least 0.
    #[serde(default)]
    pub cost_per_mbit: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Which stack to behave like: the default of every mechanism switch below
    /// that is left unset (None). See `profile.rs`.
    pub profile: Profile,
    /// Payload bytes per segment.
    pub mss: u32,
    /// Header bytes added on the wire (52 = IPv4 + TCP with timestamps).
    pub header_bytes: u32,
    /// None: the profile's (200 ms Linux, 1 s ns-3).
    pub min_rto_ns: Option<u64>,
    pub initial_rto_ns: u64,
    pub max_rto_ns: u64,
    pub delayed_ack: Option<bool>,
    /// Delayed-ACK timeout (None: the profile's).
    pub delack_timeout_ns: Option<u64>,
    /// Receive buffer in bytes (bounds the advertised window and the reordering
    /// buffer); None = unlimited.
    pub rcv_buf_bytes: Option<u64>,
    /// Connection send buffer in bytes: data written and not yet DATA_ACKed
    /// (cbr, vbr and web only); None = unlimited.
    pub send_buf_bytes: Option<u64>,
    /// Duplicate threshold of RFC 6675 (segments SACKed above a hole before it is lost).
    pub dupthresh: u32,
    /// Initial slow-start threshold in bytes; None = unlimited (Linux). ns-3
    /// before 3.26 and the ns-2 era used 65535 bytes.
    pub init_ssthresh_bytes: Option<u64>,
    /// Congestion-window validation as Linux does it (tcp_is_cwnd_limited): the
    /// window grows only while the sender uses it. None: the profile's (on in linux).
    pub cwnd_validation: Option<bool>,
    /// A paced sender departs as Linux's: TSO-sized bursts (tcp_tso_autosize) and the
    /// credit for a late one (tcp_update_skb_after_send). None: the profile's (on in linux).
    pub linux_pacing: Option<bool>,
    /// The receiver compresses SACKs while data waits out of order (Linux's
    /// __tcp_ack_snd_check). None: the profile's (on in linux).
    pub sack_compress: Option<bool>,
    /// The receiver acknowledges at once a segment that ends an application's write
    /// (PSH) once its data is read (Linux's ICSK_ACK_PUSHED). None: the profile's (on in linux).
    pub push_ack: Option<bool>,
    /// Mechanism switches (None: the profile's); see `profile::Mechanisms`.
    pub rack: Option<bool>,
    pub tlp: Option<bool>,
    pub tlp_dsack: Option<bool>,
    pub frto: Option<bool>,
    pub undo: Option<bool>,
    pub prr: Option<bool>,
    pub quickack: Option<bool>,
    pub pacing: Option<bool>,
    /// Pacing rate as a percentage of cwnd x MSS / srtt while cwnd < ssthresh / 2
    /// (Linux's tcp_pacing_ss_ratio) and after (tcp_pacing_ca_ratio).
    pub pacing_ss_ratio: u32,
    pub pacing_ca_ratio: u32,
    /// The sending host's NIC line rate in bit/s (None: the rate of the first
    /// link of the flow's path).
    pub nic_rate_bps: Option<u64>,
    pub nic_backpressure: Option<bool>,
    pub hystart: Option<bool>,
    pub host_jitter_ns: Option<u64>,
    /// SACK blocks per ACK (1-3) and DSACK (None: the profile's).
    pub sack_blocks: Option<u8>,
    pub dsack: Option<bool>,
    /// MPTCP's connection-level retransmission timer and its stale-subflow
    /// threshold (None: the profile's).
    pub data_rtx: Option<bool>,
    pub stale_loss_cnt: Option<u32>,
    /// Window growth from SACKed segments, and one growth step per ACK (None:
    /// the profile's; `profile::Mechanisms`).
    pub sack_growth: Option<bool>,
    pub ack_counting: Option<bool>,
    /// ssthresh from FlightSize (None: the profile's).
    pub ssthresh_from_flight: Option<bool>,
    /// The retransmission timer's restart rules (None: the profile's).
    pub rto_on_retransmit: Option<bool>,
    pub rto_impatient: Option<bool>,
    /// ns-3's PRR accounting (None: the profile's).
    pub prr_ns3: Option<bool>,
    /// An ACK sent cancels the delayed-ACK timer (None: the profile's).
    pub delack_cancel: Option<bool>,
    /// Linux's retransmission timeout rule (None: the profile's).
    pub rto_linux: Option<bool>,
    /// RFC 6675 NextSeg rules 3 and 4 (None: the profile's).
    pub sack_rule3: Option<bool>,
    pub rule3_ns3: Option<bool>,
    pub rescue: Option<bool>,
    /// HyStart with ns-3's thresholds (None: the profile's).
    pub hystart_ns3: Option<bool>,
    /// The first data segment acknowledged at once (None: the profile's).
    pub first_data_ack: Option<bool>,
    /// A SACKed retransmission stays in pipe until cumulatively acknowledged (None: the profile's).
    pub sacked_retx_in_pipe: Option<bool>,
    /// The three-way handshake and its first SYN's timeout (None: the profile's).
    pub handshake: Option<bool>,
    pub syn_rto_ns: Option<u64>,
    /// ns-3's RTT sampling (None: the profile's).
    pub rtt_ns3: Option<bool>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            profile: Profile::default(),
            mss: 1448,
            header_bytes: 52,
            min_rto_ns: None,
            initial_rto_ns: 1_000_000_000,
            max_rto_ns: 60_000_000_000,
            delayed_ack: None,
            delack_timeout_ns: None,
            rcv_buf_bytes: None,
            send_buf_bytes: None,
            dupthresh: 3,
            init_ssthresh_bytes: None,
            cwnd_validation: None,
            linux_pacing: None,
            sack_compress: None,
            push_ack: None,
            rack: None,
            tlp: None,
            tlp_dsack: None,
            frto: None,
            undo: None,
            prr: None,
            quickack: None,
            pacing: None,
            pacing_ss_ratio: 200,
            pacing_ca_ratio: 120,
            nic_rate_bps: None,
            nic_backpressure: None,
            hystart: None,
            host_jitter_ns: None,
            sack_blocks: None,
            dsack: None,
            data_rtx: None,
            stale_loss_cnt: None,
            sack_growth: None,
            ack_counting: None,
            ssthresh_from_flight: None,
            rto_on_retransmit: None,
            rto_impatient: None,
            prr_ns3: None,
            delack_cancel: None,
            rto_linux: None,
            sack_rule3: None,
            rule3_ns3: None,
            rescue: None,
            hystart_ns3: None,
            first_data_ack: None,
            sacked_retx_in_pipe: None,
            handshake: None,
            syn_rto_ns: None,
            rtt_ns3: None,
        }
    }
}

impl TcpConfig {
    /// The profile's switches with this configuration's overrides applied.
    pub fn mechanisms(&self) -> Mechanisms {
        let mut m = self.profile.mechanisms();
        macro_rules! over {
            ($($f:ident),*) => { $(if let Some(v) = self.$f { m.$f = v; })* };
        }
        over!(
            rack,
            tlp,
            tlp_dsack,
            frto,
            undo,
            prr,
            quickack,
            pacing,
            nic_backpressure,
            hystart,
            dsack,
            data_rtx,
            stale_loss_cnt,
            sack_growth,
            ack_counting,
            ssthresh_from_flight,
            rto_on_retransmit,
            rto_impatient,
            prr_ns3,
            delack_cancel,
            rto_linux,
            sack_rule3,
            rule3_ns3,
            rescue,
            hystart_ns3,
            first_data_ack,
            sacked_retx_in_pipe,
            handshake,
            syn_rto_ns,
            rtt_ns3,
            cwnd_validation,
            linux_pacing,
            sack_compress,
            push_ack
        );
        if let Some(v) = self.delayed_ack {
            m.delayed_ack = v;
        }
        if let Some(v) = self.delack_timeout_ns {
            m.delack_timeout_ns = v;
        }
        if let Some(v) = self.min_rto_ns {
            m.min_rto_ns = v;
        }
        if let Some(v) = self.host_jitter_ns {
            m.host_jitter_ns = v;
        }
        if let Some(v) = self.sack_blocks {
            m.sack_blocks = v.clamp(1, crate::packet::MAX_SACK_BLOCKS as u8);
        }
        m
    }

    /// The minimum RTO in force (the profile's unless set).
    pub fn min_rto(&self) -> u64 {
        self.min_rto_ns.unwrap_or(self.profile.mechanisms().min_rto_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problem(table: serde_json::Value) -> Option<Option<String>> {
        check_capacity(table.as_object().unwrap()).err().map(|p| p.param)
    }

    #[test]
    fn capacity_tables_are_checked_by_their_entries() {
        assert_eq!(problem(json!({"kind": "schedule", "steps": [[0, 1e6], [5, 0.0]], "period_ns": 10})), None);
        assert_eq!(problem(json!({"kind": "schedule", "steps": [[1, 1e6]]})), Some(Some("steps".into())));
        assert_eq!(
            problem(json!({"kind": "schedule", "steps": [[0, 1e6], [5, 1e6]], "period_ns": 5})),
            Some(Some("period_ns".into()))
        );
        let walk = json!({"kind": "random_walk", "initial_bps": 20e6, "min_bps": 1e6, "max_bps": 10e6, "step_ns": 1, "sigma": 0.1});
        assert_eq!(problem(walk), Some(Some("initial_bps".into())));
        assert_eq!(problem(json!({"kind": "trace"})), Some(Some("path".into())));
        assert_eq!(
            problem(json!({"kind": "trace", "path": "t", "bytes_per_opportunity": 0})),
            Some(Some("bytes_per_opportunity".into()))
        );
        assert_eq!(default_mtu(), 1500);
    }
}
