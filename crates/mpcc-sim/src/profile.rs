//! TCP profiles: which stack the simulated sender and receiver behave like.
//!
//! A profile (`tcp.profile`) is a named set of mechanism switches. The scenario
//! schema's default is `linux` and the canonical configuration always names the
//! profile; `TcpConfig::default()` here stays `rfc`, the textbook sender the
//! crate's own tests were written against. Every switch
//! can also be set on its own in `tcp.*`, which overrides the profile. The
//! resolved set, [`Mechanisms`], is plain data handed to the sender, the
//! receiver and the host when a flow is built: nothing on the per-packet path
//! looks a profile up.
//!
//! - `rfc`: the textbook sender mpcc had before profiles: RFC 6675 SACK recovery,
//!   RFC 6298 timeouts, no pacing, no RACK, no undo, an ACK for every segment.
//! - `linux`: a stock Linux 6.x sender with the default qdisc (pfifo_fast/fq_codel,
//!   so unpaced): RACK-TLP, F-RTO, PRR, undo, delayed and quick ACKs, CUBIC's HyStart,
//!   MPTCP's connection-level retransmission and stale subflows. The host's
//!   NIC with TCP Small Queues is a switch of its own (`nic_backpressure`).
//! - `ns3`: ns-3 3.44's TcpSocketBase defaults: classic three-duplicate-ACK loss
//!   detection, PRR (counted as ns-3's TcpPrrRecovery does), delayed ACKs every
//!   second segment with a 200 ms timer that every ACK sent cancels, a 1 s minimum
//!   RTO restarted as ns-3 does, NewReno's per-ACK growth only on ACKs that move the
//!   head, ssthresh from FlightSize, and no backpressure from a full local queue.
//!
//! docs/tcp.md has the table: mechanism | Linux | ns-3 | mpcc linux | mpcc ns3.

use serde::Deserialize;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    #[default]
    Rfc,
    Linux,
    Ns3,
}

impl Profile {
    pub const ALL: [Profile; 3] = [Profile::Rfc, Profile::Linux, Profile::Ns3];

    /// The scenario's default (`tcp.profile` left out), which the front end reads
    /// from here; the canonical configuration always names its profile.
    pub const SCENARIO_DEFAULT: Profile = Profile::Linux;

    pub fn name(self) -> &'static str {
        match self {
            Profile::Rfc => "rfc",
            Profile::Linux => "linux",
            Profile::Ns3 => "ns3",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Profile::Rfc => "textbook RFC 6675 SACK recovery and RFC 6298 timeouts (mpcc before profiles)",
            Profile::Linux => {
                "a stock Linux 6.x sender, default qdisc: RACK-TLP, F-RTO, PRR, undo, delayed and quick ACKs"
            }
            Profile::Ns3 => {
                "ns-3 3.44 TcpSocketBase defaults: dupthresh recovery with PRR, delayed ACKs, 1 s minimum RTO"
            }
        }
    }

    /// The controller parameters a profile sets when the scenario leaves them out
    /// (`cc_params`; a controller without the parameter ignores it):
    /// - `initial_growth`: CUBIC's least growth per RTT until its first loss, Linux's
    ///   `cnt` at most 20 while `last_max_cwnd` is 0 (none in RFC 9438 or ns-3);
    /// - `whole_segments`: CUBIC in ns-3's TcpCubic arithmetic (cubic_ns3.rs);
    /// - `linux_integer`: CUBIC in Linux's tcp_cubic arithmetic (cubic_linux.rs);
    /// - `reno_alpha_one`: RFC 9438 §4.3's Reno-friendly alpha of 1 once W_est reaches
    ///   cwnd_prior, which Linux's and ns-3's CUBIC do not have;
    /// - `variant`: `vegas`, `veno` and `westwood` as ns-3 3.44's own classes (1) or
    ///   Linux's rules (0).
    pub fn cc_param_defaults(self) -> [(&'static str, f64); 5] {
        let (linux, ns3) = (f64::from(self == Profile::Linux), f64::from(self == Profile::Ns3));
        [
            ("initial_growth", 0.05 * linux),
            ("whole_segments", ns3),
            ("linux_integer", linux),
            ("reno_alpha_one", 1.0 - linux),
            ("variant", ns3),
        ]
    }

    /// Bytes of every data segment of an MPTCP subflow that the DSS option takes from
    /// the payload (RFC 8684 section 3.3.1): Linux 6.x sends a 4-octet DATA_ACK and an
    /// 8-octet DSN mapping, 22 bytes padded to 24, and keeps the MTU (`tcp_current_mss`);
    /// ns-3 has no MPTCP and the textbook sender carries no options. The scenario front
    /// end applies it to a multipath flow that sets neither `mss` nor `header_bytes`
    /// (docs/mptcp.md#segment-size).
    pub fn mptcp_dss_bytes(self) -> u32 {
        if self == Profile::Linux {
            24
        } else {
            0
        }
    }

    /// The switches this profile stands for.
    pub fn mechanisms(self) -> Mechanisms {
        let ms = 1_000_000;
        match self {
            Profile::Rfc => Mechanisms {
                rack: false,
                tlp: false,
                tlp_dsack: false,
                frto: false,
                undo: false,
                prr: false,
                delayed_ack: false,
                quickack: false,
                delack_timeout_ns: 40 * ms,
                min_rto_ns: 200 * ms,
                pacing: false,
                nic_backpressure: false,
                hystart: false,
                host_jitter_ns: 0,
                // mpcc's receiver before profiles: the triggering segment's block only.
                sack_blocks: 1,
                dsack: false,
                // multipath-tcp.org's MPTCP: reinjection at a subflow's timeout.
                data_rtx: false,
                stale_loss_cnt: 4,
                sack_growth: true,
                ack_counting: false,
                ssthresh_from_flight: false,
                rto_on_retransmit: true,
                rto_impatient: false,
                prr_ns3: false,
                delack_cancel: false,
                rto_linux: false,
                sack_rule3: false,
                rule3_ns3: false,
                rescue: false,
                hystart_ns3: false,
                first_data_ack: false,
                sacked_retx_in_pipe: false,
                handshake: false,
                syn_rto_ns: 1000 * ms,
                rtt_ns3: false,
                cwnd_validation: false,
                linux_pacing: false,
                sack_compress: false,
                push_ack: false,
            },
            Profile::Linux => Mechanisms {
                rack: true,
                tlp: true,
                tlp_dsack: true, // tcp_process_tlp_ack: FLAG_DSACK_TLP, after(ack, tlp_high_seq)
                frto: true,
                undo: true,
                prr: true,
                delayed_ack: true,
                quickack: true,
                delack_timeout_ns: 40 * ms,
                min_rto_ns: 200 * ms,
                pacing: false,
                nic_backpressure: false, // opt-in: a NIC at the first link's rate locks phase with it (docs/host.md)
                hystart: true,
                host_jitter_ns: 0,
                sack_blocks: 3, // beside timestamps (tcp_build_sack)
                dsack: true,    // tcp_dsack = 1
                // Upstream MPTCP's connection-level timer and stale subflows
                // (mptcp_retransmit_timer, mptcp_pm_subflow_chk_stale; docs/mptcp.md).
                data_rtx: true,
                stale_loss_cnt: 4, // net.mptcp.stale_loss_cnt
                sack_growth: true, // tcp_cong_avoid gets every delivered segment, SACKed ones too
                ack_counting: false,
                ssthresh_from_flight: false, // tcp_reno_ssthresh halves cwnd
                rto_on_retransmit: true,     // tcp_retransmit_skb of the head rearms the timer
                rto_impatient: false,
                prr_ns3: false,
                delack_cancel: true, // tcp_event_ack_sent clears the delayed-ACK timer (inet_csk_clear_xmit_timer, ICSK_TIME_DACK)
                rto_linux: true,
                sack_rule3: false, // tcp_xmit_retransmit_queue resends only segments marked lost
                rule3_ns3: false,
                rescue: false,
                hystart_ns3: false,
                first_data_ack: false,      // quick ACKs cover the start (tcp_enter_quickack_mode)
                sacked_retx_in_pipe: false, // tcp_sacktag_one takes a SACKed retransmission out of retrans_out
                handshake: true,            // tcp_v4_connect, tcp_rcv_synsent_state_process
                syn_rto_ns: 1000 * ms,      // TCP_TIMEOUT_INIT
                rtt_ns3: false,             // tcp_ack_update_rtt: every ACK with a timestamp echo
                cwnd_validation: true,      // tcp_cong_avoid asks tcp_is_cwnd_limited (tcp_cwnd_validate)
                linux_pacing: true,         // tcp_tso_autosize, tcp_update_skb_after_send (docs/host.md)
                sack_compress: true,        // __tcp_ack_snd_check's compressed SACKs (tcp_comp_sack_*)
                push_ack: true,             // tcp_measure_rcv_mss's ICSK_ACK_PUSHED, acted on by tcp_cleanup_rbuf
            },
            Profile::Ns3 => Mechanisms {
                rack: false,
                tlp: false,
                tlp_dsack: false,
                frto: false,
                undo: false,
                prr: true,
                delayed_ack: true,
                quickack: false,
                delack_timeout_ns: 200 * ms,
                min_rto_ns: 1000 * ms,
                pacing: false,
                nic_backpressure: false, // ns-3 sockets see no qdisc backpressure: a full device queue drops
                // TcpCubic's HyStart attribute is on, with its own thresholds (hystart_ns3).
                hystart: true,
                host_jitter_ns: 0,
                sack_blocks: 3, // as many as fit beside timestamps (TcpSocketBase::AddOptionSack)
                dsack: false,   // ns-3's receiver never reports a duplicate
                // ns-3 has no MPTCP; the simulator's own (reinjection at a timeout).
                data_rtx: false,
                stale_loss_cnt: 4,
                // TcpSocketBase::ProcessAck grows the window only on ACKs that move
                // the head without new SACK information (CA_OPEN) or in CA_LOSS.
                sack_growth: false,
                // TcpNewReno::SlowStart / CongestionAvoidance: one step per ACK
                // (TcpCubic counts segments: build.rs turns it off for cubic).
                ack_counting: true,
                // TcpNewReno::GetSsThresh halves BytesInFlight; ReTxTimeout lowers
                // ssthresh once per loss episode.
                ssthresh_from_flight: true,
                // SendDataPacket arms the timer only when it is not running;
                // ProcessAck restarts it on the first partial ACK of a recovery only.
                rto_on_retransmit: false,
                rto_impatient: true,
                // TcpPrrRecovery::DoRecovery as TcpSocketBase::DupAck and ProcessAck call it.
                prr_ns3: true,
                // SendEmptyPacket cancels m_delAckEvent; ReceivedData starts it anew.
                delack_cancel: true,
                rto_linux: false,
                // TcpTxBuffer::NextSeg has a rule 3 (SendPendingData enables it in
                // CA_RECOVERY), left off here: in MPTCP subflows, which ns-3 does not
                // have, it resends in-flight data whenever the connection's window
                // blocks (docs/tcp-recovery.md). Its rule 4 is left out in ns-3 too.
                sack_rule3: false,
                rule3_ns3: false,
                rescue: false,
                hystart_ns3: true,
                first_data_ack: true, // TcpSocketBase::ProcessSynRcvd: "always respond to first data packet"
                // TcpTxBuffer::Update keeps a SACKed retransmission in m_retrans (fixed after 3.44, issue #1190).
                sacked_retx_in_pipe: true,
                handshake: true,        // TcpSocketBase::Connect, ProcessSynSent
                syn_rto_ns: 3000 * ms,  // TcpSocket's ConnTimeout
                rtt_ns3: true,          // TcpSocketBase::EstimateRtt from m_history, cleared in ReTxTimeout
                cwnd_validation: false, // TcpSocketBase grows the window on every new ACK (no RFC 7661)
                linux_pacing: false,    // TcpSocketBase paces one segment per interval (no TSO)
                sack_compress: false,   // TcpSocketBase acknowledges every out-of-order segment at once
                push_ack: false,        // TcpSocketBase ignores PSH
            },
        }
    }
}

impl Mechanisms {
    /// Every switch as (name in `tcp.*`, value as JSON), in declaration order,
    /// for `mpcc list` and the docs' table.
    pub fn entries(&self) -> Vec<(&'static str, serde_json::Value)> {
        use serde_json::json;
        vec![
            ("rack", json!(self.rack)),
            ("tlp", json!(self.tlp)),
            ("tlp_dsack", json!(self.tlp_dsack)),
            ("frto", json!(self.frto)),
            ("undo", json!(self.undo)),
            ("prr", json!(self.prr)),
            ("delayed_ack", json!(self.delayed_ack)),
            ("quickack", json!(self.quickack)),
            ("delack_timeout_ns", json!(self.delack_timeout_ns)),
            ("min_rto_ns", json!(self.min_rto_ns)),
            ("pacing", json!(self.pacing)),
            ("nic_backpressure", json!(self.nic_backpressure)),
            ("hystart", json!(self.hystart)),
            ("host_jitter_ns", json!(self.host_jitter_ns)),
            ("sack_blocks", json!(self.sack_blocks)),
            ("dsack", json!(self.dsack)),
            ("data_rtx", json!(self.data_rtx)),
            ("stale_loss_cnt", json!(self.stale_loss_cnt)),
            ("sack_growth", json!(self.sack_growth)),
            ("ack_counting", json!(self.ack_counting)),
            ("ssthresh_from_flight", json!(self.ssthresh_from_flight)),
            ("rto_on_retransmit", json!(self.rto_on_retransmit)),
            ("rto_impatient", json!(self.rto_impatient)),
            ("prr_ns3", json!(self.prr_ns3)),
            ("delack_cancel", json!(self.delack_cancel)),
            ("rto_linux", json!(self.rto_linux)),
            ("sack_rule3", json!(self.sack_rule3)),
            ("rule3_ns3", json!(self.rule3_ns3)),
            ("rescue", json!(self.rescue)),
            ("hystart_ns3", json!(self.hystart_ns3)),
            ("first_data_ack", json!(self.first_data_ack)),
            ("sacked_retx_in_pipe", json!(self.sacked_retx_in_pipe)),
            ("handshake", json!(self.handshake)),
            ("syn_rto_ns", json!(self.syn_rto_ns)),
            ("rtt_ns3", json!(self.rtt_ns3)),
            ("cwnd_validation", json!(self.cwnd_validation)),
            ("linux_pacing", json!(self.linux_pacing)),
            ("sack_compress", json!(self.sack_compress)),
            ("push_ack", json!(self.push_ack)),
        ]
    }
}

/// The resolved mechanism switches of one flow (profile plus overrides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mechanisms {
    /// Time-based loss detection (RFC 8985 RACK).
    pub rack: bool,
    /// Tail loss probe (RFC 8985 TLP).
    pub tlp: bool,
    /// The probe's reduction waits for an ACK beyond the probe's end and is spared
    /// by a DSACK of the probe or a pure duplicate ACK (RFC 8985 7.4, Linux's
    /// tcp_process_tlp_ack). Off: the ACK reaching the probe's end reduces.
    pub tlp_dsack: bool,
    /// Spurious-timeout detection (RFC 5682 F-RTO).
    pub frto: bool,
    /// Undo of a spurious window reduction (timestamps / DSACK; Linux's tcp_try_undo_*).
    pub undo: bool,
    /// Proportional Rate Reduction in recovery (RFC 6937).
    pub prr: bool,
    /// Delayed ACKs (RFC 1122/5681): every second full segment or the timer.
    pub delayed_ack: bool,
    /// Linux's quick-ACK mode: immediate ACKs at the start and after reordering.
    pub quickack: bool,
    pub delack_timeout_ns: u64,
    pub min_rto_ns: u64,
    /// Linux pacing (fq or a controller asking for it): cwnd x MSS / srtt times
    /// `pacing_ss_ratio` % in slow start, `pacing_ca_ratio` % after.
    pub pacing: bool,
    /// A full local NIC queue holds the sender back instead of dropping its
    /// packets (qdisc backpressure, TCP small queues).
    pub nic_backpressure: bool,
    /// HyStart ends slow start early in controllers that have it (CUBIC's
    /// `hystart` parameter, unless the scenario sets it).
    pub hystart: bool,
    /// The sending host's processing delay: each packet leaves the host after a
    /// delay drawn uniformly from [0, host_jitter_ns), never before an earlier
    /// packet of its subflow (host.rs). Breaks the phase lock of a jitter-free
    /// sender at a DropTail queue; 0: none.
    pub host_jitter_ns: u64,
    /// SACK blocks per ACK, 1 to `packet::MAX_SACK_BLOCKS` (RFC 2018 section 4:
    /// the triggering segment's block, then the most recently reported others).
    pub sack_blocks: u8,
    /// Duplicate segments reported as DSACK (RFC 2883), and the sender's use of
    /// them: undo of spurious retransmissions, RACK's reordering window.
    pub dsack: bool,
    /// MPTCP's connection-level retransmission timer and stale subflows (upstream
    /// Linux, flow/data_rtx.rs) instead of reinjection at a subflow's timeout.
    pub data_rtx: bool,
    /// Expiries of that timer without progress after which a subflow is stale
    /// (Linux's net.mptcp.stale_loss_cnt; 0: never).
    pub stale_loss_cnt: u32,
    /// Every newly delivered segment, SACKed ones included, may grow the window
    /// (Linux, RFC 5681 with byte counting). Off: only an ACK that advances the
    /// cumulative acknowledgement and carries no new SACK information grows it,
    /// or any advancing ACK after a timeout (ns-3's TcpSocketBase::ProcessAck and
    /// DupAck); duplicate ACKs never do.
    pub sack_growth: bool,
    /// The controller is told of at most one delivered segment per ACK: slow
    /// start adds one segment per ACK, congestion avoidance 1/cwnd per ACK, so
    /// delayed ACKs halve the growth (ns-3's TcpNewReno::SlowStart and
    /// CongestionAvoidance).
    pub ack_counting: bool,
    /// A loss or timeout reduces from the segments in flight (RFC 5681's
    /// FlightSize / 2, ns-3's TcpNewReno::GetSsThresh) instead of cwnd (Linux's
    /// tcp_reno_ssthresh); a timeout while the previous timeout's retransmission
    /// of the oldest segment is outstanding keeps ssthresh (ns-3's
    /// TcpSocketBase::ReTxTimeout). Honoured by `reno` (`CongestionEvent::from_flight`).
    pub ssthresh_from_flight: bool,
    /// Retransmitting the oldest outstanding segment restarts the retransmission
    /// timer (Linux). Off: the timer runs from the last ACK that restarted it
    /// (ns-3's SendDataPacket arms it only when it is not running).
    pub rto_on_retransmit: bool,
    /// In fast recovery only the first partial ACK restarts the timer (RFC 6582
    /// section 4.2's "impatient" variant; ns-3's ProcessAck and NewAck with
    /// m_isFirstPartialAck).
    pub rto_impatient: bool,
    /// PRR counts as ns-3 does (`Sender::prr_ns3_ack`): a duplicate ACK one
    /// segment more while below the recovery flight size, PRR-CRB unless the
    /// ACK acknowledges a retransmission, one segment on a partial ACK whose
    /// oldest segment was not retransmitted (TcpPrrRecovery::DoRecovery,
    /// TcpSocketBase::DupAck, ProcessAck, DoRetransmit). Off: RFC 6937 with PRR-SSRB.
    pub prr_ns3: bool,
    /// Every ACK the receiver sends cancels the delayed-ACK timer and its count
    /// of held segments, so a held segment waits the whole `delack_timeout`
    /// from its own arrival (ns-3's TcpSocketBase::SendEmptyPacket and
    /// ReceivedData; Linux's tcp_event_ack_sent clears the timer's pending flag
    /// and tcp_send_delayed_ack arms it anew). Off: the timer, once armed, runs
    /// until it fires.
    pub delack_cancel: bool,
    /// The retransmission timeout as Linux computes it (`tcp_rtt_estimator`,
    /// `__tcp_set_rto`): srtt plus max(min_rto, the round trip's largest 4 x mean
    /// deviation), instead of RFC 6298's max(min_rto, srtt + 4 x rttvar).
    pub rto_linux: bool,
    /// RFC 6675 NextSeg rule 3: in fast recovery, with no lost segment left to
    /// resend and no new data to send, resend unSACKed segments above the highest
    /// one retransmitted and below the highest SACKed one, lowest first, before
    /// IsLost marks them.
    pub sack_rule3: bool,
    /// Rule 3 as ns-3's TcpTxBuffer::NextSeg has it: the lowest segment neither
    /// SACKed nor resent, anywhere in the window (no HighRxt or highest-SACK bound).
    pub rule3_ns3: bool,
    /// RFC 6675 NextSeg rule 4, the rescue retransmission: once per fast recovery,
    /// after a partial ACK, when rules 1 to 3 find nothing, resend the highest
    /// outstanding unSACKed segment, so that a loss at the tail of the window
    /// need not wait for the timeout.
    pub rescue: bool,
    /// HyStart (`hystart`) with ns-3 3.44's thresholds (`TcpCubic::HystartUpdate`):
    /// the ACK train must last the whole minimum delay, and the delay detector waits
    /// for clamp(min delay, 4 ms, 1 s) of added delay.
    pub hystart_ns3: bool,
    /// The receiver acknowledges the first data segment at once, whatever its
    /// delayed-ACK setting (ns-3's `TcpSocketBase::ProcessSynRcvd` primes the
    /// delayed-ACK count): later pairs then end on an odd segment, and the last
    /// segment of a flight waits for the next one or the timer.
    pub first_data_ack: bool,
    /// A retransmitted segment that is SACKed still counts in pipe until the
    /// cumulative ACK passes it, as ns-3 3.44's `TcpTxBuffer::Update` leaves it in
    /// `m_retrans` (`BytesInFlight` then over-counts for the rest of the recovery;
    /// ns-3 issue #1190, fixed after 3.44). A timeout clears it.
    pub sacked_retx_in_pipe: bool,
    /// A subflow makes a three-way handshake before it sends data; MP_JOINs wait
    /// for the connection to be fully established (handshake.rs). Off: data leaves
    /// at the flow's and subflows' start times.
    pub handshake: bool,
    /// The first SYN's timeout, doubled for each retransmission (Linux's
    /// TCP_TIMEOUT_INIT 1 s, ns-3's ConnTimeout 3 s).
    pub syn_rto_ns: u64,
    /// RTT samples as ns-3 takes them (`TcpSocketBase::EstimateRtt`): only from an
    /// ACK that moves the cumulative acknowledgement past the oldest segment of its
    /// RTT history, which `ReTxTimeout` empties, so after a timeout none until data
    /// first sent after it is acknowledged. Off: every ACK gives a sample (Linux
    /// with timestamps, duplicate ACKs included).
    pub rtt_ns3: bool,
    /// Congestion-window validation (Linux's `tcp_is_cwnd_limited`, RFC 7661's aim):
    /// an ACK grows the window only if the sender filled it during that window of
    /// data (in slow start: while cwnd is below twice the most in flight).
    pub cwnd_validation: bool,
    /// With pacing, the host departs as Linux's TCP paces: bursts of Linux's TSO size
    /// (tcp_tso_autosize: about 1 ms at the pacing rate, at least tcp_min_tso_segs = 2
    /// segments, at most 64 KB) back to back, one burst per pacing interval of its
    /// length (`host::tso_segments`), that interval shortened by up to half when the
    /// burst left late (tcp_update_skb_after_send). Off: one segment at a time (ns-3).
    pub linux_pacing: bool,
    /// Linux's SACK compression (`__tcp_ack_snd_check`, since 4.18): while data is held
    /// out of order, the receiver answers the first three arrivals past each
    /// cumulative ACK at once and then sends one ACK per min(1 ms, RTT / 20) (its
    /// hrtimer's slack, 100 us, included), at most 44 arrivals to one ACK.
    pub sack_compress: bool,
    /// Linux's ACK of a pushed segment (`tcp_measure_rcv_mss` sets ICSK_ACK_PUSHED for
    /// a segment with PSH or shorter than the MSS, and `tcp_cleanup_rbuf` acknowledges
    /// at once when the application's read empties the receive queue): an in-order
    /// segment that ends an application's write, with nothing held out of order,
    /// is acknowledged at once instead of waiting for a second segment or the timer.
    pub push_ack: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TcpConfig;

    #[test]
    fn a_switch_set_in_tcp_overrides_the_profile() {
        let tcp = TcpConfig {
            profile: Profile::Linux,
            rack: Some(false),
            min_rto_ns: Some(300_000_000),
            ..Default::default()
        };
        let m = tcp.mechanisms();
        assert!(!m.rack);
        assert_eq!(m.min_rto_ns, 300_000_000);
        assert_eq!(Mechanisms { rack: true, min_rto_ns: 200_000_000, ..m }, Profile::Linux.mechanisms());
    }

    #[test]
    fn the_default_profile_is_the_textbook_sender() {
        let m = TcpConfig::default().mechanisms();
        assert_eq!(m, Profile::Rfc.mechanisms());
        assert_eq!((m.rack, m.delayed_ack, m.min_rto_ns), (false, false, 200_000_000));
    }

    #[test]
    fn every_switch_is_listed_once() {
        let names: Vec<_> = Profile::Linux.mechanisms().entries().into_iter().map(|(k, _)| k).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        // Every field of the struct (its Debug form shows each as `name: value`) is listed.
        let fields = format!("{:?}", Profile::Linux.mechanisms()).matches(": ").count();
        assert_eq!(names.len(), fields, "a new Mechanisms field must be listed in entries()");
    }
}
