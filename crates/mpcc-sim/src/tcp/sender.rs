//! The TCP sender: a SACK scoreboard with RFC 6675 loss recovery, RFC 6298
//! retransmission timeouts, and the congestion controller consulted for cwnd.
//!
//! It serves two masters. Alone (`send`, `on_ack`, `on_timeout`) it is a plain TCP
//! sender that picks its own new data. Inside an MPTCP connection (see `flow.rs`)
//! it is a subflow: the connection calls `process_ack` / `process_timeout`, lets it
//! retransmit its own lost segments (`send_lost`), and hands it new segments chosen
//! by the packet scheduler (`emit_new`), each carrying a data sequence number.
//!
//! Sequence numbers count segments. The scoreboard holds one small entry per
//! outstanding segment in a ring buffer indexed by `seq - una`. Loss detection
//! follows RFC 6675's IsLost with DupThresh counted in segments: a segment is lost
//! once `dupthresh` segments above it are SACKed. The `dupthresh` highest SACKed
//! segments are kept in a tiny sorted array, so marking losses never rescans the
//! window.
//!
//! The `linux` and `ns3` profiles switch on more of what real stacks do
//! (`profile.rs`, docs/tcp-recovery.md): RACK's time-based loss detection, which
//! also finds lost retransmissions (RFC 8985 section 6), the tail loss probe
//! (section 7), F-RTO (RFC 5682) and the undo of a spurious timeout or fast
//! retransmit by timestamps (RFC 3522, Linux's tcp_try_undo_loss and
//! tcp_try_undo_recovery) or by DSACK (RFC 2883, tcp_try_undo_dsack), and
//! Proportional Rate Reduction (RFC 6937). ACKs may carry up to three SACK blocks
//! (RFC 2018, `tcp.sack_blocks`). RTO, RACK's
//! reordering timer and the probe timer share one timer, as in Linux: `rto_deadline`
//! is whichever is due first and `timer` says which.

use super::rtt::RttEstimator;
use crate::config::TcpConfig;
use crate::packet::{Kind, Packet, MAX_SACK_BLOCKS};
use crate::profile::Mechanisms;
use mpcc_algo::{AckEvent, CongestionControl, CongestionEvent, CongestionKind, Controller};
use mpcc_core::Nanos;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETX: u8 = 4;
/// Already queued for reinjection on another subflow.
const REINJ: u8 = 8;
/// A SACKed retransmission still counted in pipe until the cumulative ACK passes
/// it (`sacked_retx_in_pipe`, ns-3 3.44's TcpTxBuffer::Update).
const HELD: u8 = 16;
/// Largest supported DupThresh.
pub const MAX_DUPTHRESH: usize = 16;
/// RFC 8985's WCDelAckT: what a probe allows for a delayed ACK of a lone segment.
const WORST_CASE_DELACK: Nanos = 200_000_000;

#[derive(Clone, Copy, Debug)]
struct Seg {
    /// Data sequence number carried (retransmissions carry the same one).
    dsn: u64,
    /// When it was last (re)transmitted (RACK's xmit_ts).
    sent: Nanos,
    /// Payload bytes.
    payload: u32,
    flags: u8,
}

/// A segment's share of RFC 6675's `pipe` by its flags (the five in use, below 32).
const fn pipe_share_of(flags: u8) -> u8 {
    if flags & SACKED != 0 {
        (flags & HELD != 0) as u8
    } else {
        (flags & LOST == 0) as u8 + (flags & RETX != 0) as u8
    }
}

/// `pipe_share_of` for every combination of the flags: one load instead of its tests.
const PIPE_SHARES: [u8; 32] = {
    let mut t = [0; 32];
    let mut f = 0;
    while f < 32 {
        t[f] = pipe_share_of(f as u8);
        f += 1;
    }
    t
};

impl Seg {
    /// This segment's share of RFC 6675's `pipe`.
    #[inline]
    fn pipe_share(self) -> u64 {
        PIPE_SHARES[(self.flags & 31) as usize] as u64
    }
}

/// Counters reported in the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub retransmissions: u64,
    /// Segments marked lost (by SACK evidence or a timeout).
    pub losses: u64,
    pub timeouts: u64,
    pub recoveries: u64,
    /// New segments of this subflow that carried data first sent on another
    /// subflow (reinjections).
    pub reinjections: u64,
    /// Segments RACK marked lost, and among them retransmissions found lost.
    pub rack_losses: u64,
    pub lost_retransmissions: u64,
    /// Tail loss probes sent.
    pub tlp_probes: u64,
    /// Timeouts and fast recoveries found spurious and undone.
    pub spurious_timeouts: u64,
    pub undone_recoveries: u64,
    /// ACKs whose first SACK block was a DSACK (RFC 2883).
    pub dsacks: u64,
    /// Rescue retransmissions (RFC 6675 NextSeg rule 4, `tcp.rescue`).
    pub rescues: u64,
}

/// Which deadline the sender's one timer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// The retransmission timeout (RFC 6298).
    Rto,
    /// RACK's reordering timer: a segment becomes lost when it expires (RFC 8985 6.3).
    Reorder,
    /// The tail loss probe's timer (RFC 8985 7.2).
    Probe,
}

/// The loss episode an undo would revert.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Episode {
    None,
    Recovery,
    Timeout,
}

pub struct Sender {
    pub flow: u32,
    /// Subflow id inside the connection's controller.
    pub sf: usize,
    mss: u32,
    header: u32,
    dupthresh: usize,
    /// Oldest unacknowledged segment.
    pub una: u64,
    /// Next new segment to send.
    pub nxt: u64,
    /// New data may be sent below this segment number (the application's supply).
    pub app_limit: u64,
    /// Payload of the last segment when the transfer has an end (`app_limit` segments).
    last_seg_bytes: u32,
    board: VecDeque<Seg>,
    /// RFC 6675 pipe, in segments.
    pub pipe: u64,
    /// The highest SACKed segments, descending (at most `dupthresh`).
    top_sacked: [u64; MAX_DUPTHRESH],
    n_top: usize,
    /// Every unSACKed segment below this has been marked lost (DupThresh rule).
    lost_hi: u64,
    /// One above the highest segment marked lost by any rule (RACK may mark
    /// segments above `lost_hi`): where the search for retransmissions stops.
    lost_max: u64,
    /// Scan position for the next lost segment to retransmit.
    retx_next: u64,
    pub in_recovery: bool,
    /// RFC 6675 RecoveryPoint.
    recover: u64,
    /// NextSeg rules 3 and 4 (`sack_rule3`, `rescue`): where rule 3 looks from (one
    /// above HighRxt, the highest segment retransmitted in this recovery, or past
    /// segments it found SACKed or resent), and RescueRxt.
    high_rxt: u64,
    rescue_rxt: u64,
    /// ns-3's rule 3 (`rule3_ns3`): segments below this are SACKed or resent.
    rule3_from: u64,
    /// After a timeout no fast recovery starts until `una` passes this (RFC 6582).
    rto_recover: u64,
    pub rtt: RttEstimator,
    backoff: u32,
    /// When the retransmission timer expires (None: not running).
    pub rto_deadline: Option<Nanos>,
    /// When the pending Rto event fires (None: none pending).
    pub rto_event_at: Option<Nanos>,
    /// Advertised receive window (segments beyond `una`).
    rwnd: u64,
    round_end: u64,
    /// Window validation (`tcp.cwnd_validation`), as Linux's tcp_cwnd_validate:
    /// whether cwnd was full at some send during the last window of data, the
    /// most segments in flight then, and where that window of data ends.
    validation: bool,
    cwnd_limited: bool,
    max_pipe: u64,
    usage_end: u64,
    /// The receiver's timestamp of the latest ACK (RFC 7323 TS.Recent), echoed
    /// in every data segment so the receiver can measure the RTT.
    ts_recent: Nanos,
    /// The mechanism switches (`profile.rs`).
    mech: Mechanisms,
    /// None of RACK, TLP and ns-3's RTT sampling, and no recorder (`set_recorder`):
    /// ACKs may take the calm path (`process_ack`). Without TLP no probe episode
    /// is ever under way (`tlp_high` stays None).
    calm_mechs: bool,
    /// Which deadline `rto_deadline` holds, and the three deadlines it is the
    /// earliest of.
    pub timer: Timer,
    rto_at: Option<Nanos>,
    reo_at: Option<Nanos>,
    tlp_at: Option<Nanos>,
    /// RACK (RFC 8985 6.1): send time and sequence number of the most recently
    /// sent segment known delivered, its RTT, and whether reordering was seen.
    rack_xmit: Nanos,
    rack_seq: u64,
    rack_rtt: Nanos,
    rack_valid: bool,
    reordering_seen: bool,
    /// Outstanding segments SACKed.
    sacked_out: u64,
    /// TLP (RFC 8985 7): the probe in flight ends at this segment (None: none).
    tlp_high: Option<u64>,
    /// Undo: the current loss episode, when its first retransmission left
    /// (Linux's retrans_stamp), and where it began.
    episode: Episode,
    retrans_stamp: Nanos,
    undo_una: u64,
    /// F-RTO (RFC 5682 section 2): 1 after the timeout's retransmission, 2 after
    /// the first ACK advanced the window (new data may go), 0 otherwise.
    frto: u8,
    /// New segments F-RTO's step 2b may still send.
    frto_budget: u64,
    /// The outstanding probe was a retransmission, of this segment; this ACK
    /// carried a DSACK of exactly it (`tlp_dsack`; Linux's FLAG_DSACK_TLP).
    tlp_retx: bool,
    tlp_seq: u64,
    tlp_dsacked: bool,
    /// PRR (RFC 6937): data delivered and sent since recovery began, the flight
    /// size then, and how many segments this ACK allows.
    prr_delivered: u64,
    prr_out: u64,
    recover_fs: u64,
    /// Segments the last ACK delivered (PRR-SSRB's DeliveredData).
    prr_last: u64,
    /// The previous ACK's SACK blocks, clipped to what was outstanding: every
    /// segment in them is known SACKed, so the next ACK's blocks are walked
    /// around them (Linux's recv_sack_cache). Used with more than one block per ACK.
    sack_cache: [(u64, u64); MAX_SACK_BLOCKS],
    n_cache: usize,
    /// DSACK undo (Linux's undo_marker, undo_retrans): the first segment of the
    /// last loss episode that may still be undone (u64::MAX: none), its kind, and
    /// its retransmissions not yet reported as duplicates.
    dsack_marker: u64,
    dsack_kind: Episode,
    undo_retrans: u64,
    /// RACK's reordering window multiplier (RFC 8985 6.2 step 4, Linux's
    /// reo_wnd_steps): grown by DSACK at most once per round trip (until `una`
    /// passes `reo_round`), back to 1 after `reo_persist` recoveries.
    reo_mult: u32,
    reo_round: u64,
    reo_persist: u8,
    /// Every retransmission of the episode came back as a duplicate: undo it.
    dsack_undo_due: bool,
    /// A partial ACK of this fast recovery has restarted the timer (`rto_impatient`).
    partial_restarted: bool,
    /// `prr_ns3`: the last ACK acknowledged a retransmission (PRR-SSRB allowed),
    /// and it lets one segment out whatever PRR says.
    prr_safe: bool,
    prr_force: bool,
    pub stats: SenderStats,
    /// Congestion-control event recorder (`record_cc`), None when off
    /// (`set_recorder`).
    rec: Option<crate::cc_record::Recorder>,
}

/// `(w as u64).max(1)`: `as` truncates, which is floor for the non-negative window
/// (no libm call). Below 2^32 segments through u32, whose saturating conversion is a
/// clamp and one signed conversion (u64's takes a dozen instructions more): the same
/// integer, negative windows included (0 either way).
#[inline(always)]
fn whole_segs(w: f64) -> u64 {
    let segs = if w < 4_294_967_296.0 { w as u32 as u64 } else { wide_segs(w) };
    segs.max(1)
}

/// `w as u64` for a window of 2^32 segments or more, or NaN (out of the common path).
#[cold]
#[inline(never)]
fn wide_segs(w: f64) -> u64 {
    w as u64
}

impl Sender {
    /// When the sender wants to be woken: its retransmission timer, which the tail
    /// loss probe shares (None: not running). The simulator keeps one pending Rto
    /// event per subflow no later than this (`rto_event_at`).
    #[inline]
    pub fn poll_at(&self) -> Option<Nanos> {
        self.rto_deadline
    }

    /// Gives back the scoreboard's spare capacity (`mem::trim_deque`).
    pub fn trim(&mut self) {
        crate::mem::trim_deque(&mut self.board, 16);
    }

    pub fn new(flow: u32, sf: usize, tcp: &TcpConfig) -> Sender {
        let mech = tcp.mechanisms();
        Sender {
            flow,
            sf,
            mss: tcp.mss,
            header: tcp.header_bytes,
            dupthresh: (tcp.dupthresh as usize).clamp(1, MAX_DUPTHRESH),
            una: 0,
            nxt: 0,
            app_limit: 0,
            last_seg_bytes: tcp.mss,
            board: VecDeque::with_capacity(16),
            pipe: 0,
            top_sacked: [0; MAX_DUPTHRESH],
            n_top: 0,
            lost_hi: 0,
            lost_max: 0,
            retx_next: 0,
            in_recovery: false,
            recover: 0,
            high_rxt: 0,
            rescue_rxt: 0,
            rule3_from: 0,
            rto_recover: 0,
            rtt: RttEstimator::new(tcp.initial_rto_ns, tcp.min_rto(), tcp.max_rto_ns, mech.rto_linux),
            backoff: 0,
            rto_deadline: None,
            rto_event_at: None,
            rwnd: u64::MAX,
            round_end: 0,
            validation: mech.cwnd_validation,
            cwnd_limited: false,
            max_pipe: 0,
            usage_end: 0,
            ts_recent: 0,
            calm_mechs: !mech.rack && !mech.tlp && !mech.rtt_ns3,
            mech,
            timer: Timer::Rto,
            rto_at: None,
            reo_at: None,
            tlp_at: None,
            rack_xmit: 0,
            rack_seq: 0,
            rack_rtt: 0,
            rack_valid: false,
            reordering_seen: false,
            sacked_out: 0,
            tlp_high: None,
            episode: Episode::None,
            retrans_stamp: 0,
            undo_una: 0,
            frto: 0,
            frto_budget: 0,
            tlp_retx: false,
            tlp_seq: 0,
            tlp_dsacked: false,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            prr_last: 0,
            sack_cache: [(0, 0); MAX_SACK_BLOCKS],
            n_cache: 0,
            dsack_marker: u64::MAX,
            dsack_kind: Episode::None,
            undo_retrans: 0,
            reo_mult: 1,
            reo_round: 0,
            reo_persist: 0,
            dsack_undo_due: false,
            partial_restarted: false,
            prr_safe: false,
            prr_force: false,
            stats: SenderStats::default(),
            rec: None,
        }
    }

    /// Arms the one timer with the earliest of the RTO, reordering and probe
    /// deadlines (Linux's icsk_retransmit_timer serves all three).
    #[inline]
    fn rearm(&mut self) {
        let mut at = self.rto_at;
        let mut timer = Timer::Rto;
        // Without RACK's reordering timer and TLP's probe (off in most profiles)
        // the RTO is the timer: the loop below would find nothing.
        if self.reo_at.is_none() && self.tlp_at.is_none() {
            self.rto_deadline = at;
            self.timer = timer;
            return;
        }
        // A probe due with the RTO goes first (Linux's TLP takes the RTO's place).
        for (d, t) in [(self.reo_at, Timer::Reorder), (self.tlp_at, Timer::Probe)] {
            if let Some(d) = d {
                if at.is_none_or(|a| d < a || (t == Timer::Probe && d == a)) {
                    at = Some(d);
                    timer = t;
                }
            }
        }
        self.rto_deadline = at;
        self.timer = timer;
    }

    /// Starts (or restarts) the retransmission timer.
    #[inline]
    fn restart_rto(&mut self, now: Nanos) {
        self.rto_at = Some(now + self.rtt.backed_off(self.backoff));
        self.rearm();
    }

    /// No timer at all (the subflow left).
    pub fn stop_timers(&mut self) {
        self.rto_at = None;
        self.reo_at = None;
        self.tlp_at = None;
        self.rearm();
    }

    /// Lets the application offer data: `total_bytes` in all (u64::MAX: unlimited).
    pub fn set_app_bytes(&mut self, total_bytes: u64) {
        if total_bytes == u64::MAX {
            self.app_limit = u64::MAX;
        } else {
            let mss = self.mss as u64;
            self.app_limit = total_bytes.div_ceil(mss);
            let rem = (total_bytes % mss) as u32;
            self.last_seg_bytes = if rem == 0 { self.mss } else { rem };
        }
    }

    /// The window in whole segments (Linux's integer snd_cwnd), at least one.
    #[inline]
    pub fn cwnd_segs(&self, cc: &Controller) -> u64 {
        whole_segs(cc.cwnd(self.sf))
    }

    /// Stops offering new data (the application stopped).
    pub fn stop_app(&mut self) {
        self.app_limit = self.app_limit.min(self.nxt);
    }

    /// Payload bytes of segment `seq`.
    #[inline]
    pub fn seg_bytes(&self, seq: u64) -> u32 {
        if self.app_limit != u64::MAX && seq + 1 == self.app_limit {
            self.last_seg_bytes
        } else {
            self.mss
        }
    }

    #[inline]
    fn seg(&mut self, seq: u64) -> &mut Seg {
        &mut self.board[(seq - self.una) as usize]
    }

    /// Segment `seq`, handed to the host at `sent`, left it at `at`, later, after
    /// waiting for its pacing time: that departure is its transmission time for
    /// RACK, as Linux's EDT stamps the skb (docs/host.md). A later retransmission of
    /// it (another `sent`) keeps its own.
    pub fn departed(&mut self, seq: u64, sent: Nanos, at: Nanos) {
        let Some(i) = seq.checked_sub(self.una) else { return };
        if let Some(s) = self.board.get_mut(i as usize).filter(|s| s.sent == sent) {
            s.sent = s.sent.max(at);
        }
    }

    /// All data offered so far is acknowledged.
    pub fn all_acked(&self) -> bool {
        self.una >= self.app_limit
    }

    /// Processes an ACK, informs the controller, and sends what the window allows
    /// into `out`.
    pub fn on_ack(&mut self, now: Nanos, ack: &Packet, cc: &mut Controller, out: &mut Vec<Packet>) {
        self.process_ack(now, ack, cc, out);
        self.send(now, cc, out);
    }

    /// Everything `on_ack` does but sending new data: scoreboard, recovery (with
    /// its immediate first retransmission), controller, timer.
    #[inline]
    pub fn process_ack(&mut self, now: Nanos, ack: &Packet, cc: &mut Controller, out: &mut Vec<Packet>) {
        if self.calm(ack) {
            self.process_ack_in::<true>(now, ack, cc, out);
        } else {
            self.process_ack_in::<false>(now, ack, cc, out);
        }
    }

    /// Whether `ack` may take the calm instance of `process_ack_in`: no RACK, TLP
    /// or ns-3 RTT sampling in the profile (`calm_mechs`), no SACK block on the ACK,
    /// and no loss episode, recovery, probe or recorder under way. The blocks the
    /// calm instance leaves out would then do nothing (a DSACK undo is due only
    /// within the ACK whose SACK blocks found it).
    #[inline]
    fn calm(&self, ack: &Packet) -> bool {
        debug_assert!(!self.dsack_undo_due);
        debug_assert!(!self.calm_mechs || (self.tlp_high.is_none() && self.rec.is_none()));
        self.calm_mechs && !self.in_recovery && self.episode == Episode::None && ack.sack_count() == 0
    }

    /// Records the congestion-control events into `rec` (`record_cc`); its ACKs then
    /// take the full path, which calls the recorder.
    pub fn set_recorder(&mut self, rec: crate::cc_record::Recorder) {
        self.rec = Some(rec);
        self.calm_mechs = false;
    }

    /// The congestion-control event recorder, if any.
    pub fn recorder(&self) -> Option<&crate::cc_record::Recorder> {
        self.rec.as_ref()
    }

    /// `process_ack`, in two instances: `CALM` (see `calm`) compiles the mechanisms'
    /// blocks out of the common ACK's path, where each cost a test of its own.
    #[inline(never)]
    fn process_ack_in<const CALM: bool>(
        &mut self, now: Nanos, ack: &Packet, cc: &mut Controller, out: &mut Vec<Packet>,
    ) {
        debug_assert_eq!(ack.kind, Kind::Ack);
        let rtt = now - ack.ts;
        // ns-3 (`rtt_ns3`) samples only an ACK that passes the oldest segment in its
        // RTT history, which a timeout empties: one that moves the cumulative ACK,
        // and after a timeout only beyond what was outstanding then.
        let sampled = CALM || !self.mech.rtt_ns3 || ack.seq > self.una.max(self.rto_recover);
        if sampled {
            self.rtt.sample(rtt, ack.seq.max(self.una), self.nxt);
        }
        // TS.Recent: the simulated ACK's TSval is the arrival time of the segment it
        // echoes, its send time unless it was delayed (a receiver that measures RTT
        // maps it back to the send time: tcp/ack_clock.rs).
        self.ts_recent = self.ts_recent.max(ack.ts + ack.owd);
        self.rwnd = ack.rwnd();
        let mut delivered = 0u64;
        let rack = !CALM && self.mech.rack;
        // RACK: the most recently sent segment this ACK shows delivered, and the
        // highest SACKed segment before it (RACK.fack) for reordering detection.
        let mut newest: Option<(Nanos, u64)> = None;
        // Only RACK reads it (`rack_note`).
        let fack = if !rack {
            0
        } else if self.n_top > 0 {
            self.top_sacked[0] + 1
        } else {
            self.una
        };

        // After a timeout, until `una` passes what was outstanding then (ns-3's CA_LOSS).
        // Only a timeout's episode leaves `una` below `rto_recover` (its end or an undo
        // brings them together), so never on the calm path.
        debug_assert!(self.episode == Episode::Timeout || self.una >= self.rto_recover);
        let after_timeout = !CALM && self.una < self.rto_recover;
        // Cumulative acknowledgement.
        let cum = ack.seq.min(self.nxt);
        let advanced = cum > self.una;
        // A retransmitted segment is cumulatively acknowledged (ns-3's m_isRetransDataAcked).
        let mut retx_acked = false;
        if advanced {
            // `una` and `pipe` in registers over the loop, and no panic path in it (the
            // scoreboard covers [una, nxt), so the `else` is never taken).
            debug_assert!(self.board.len() as u64 >= cum - self.una, "scoreboard covers [una, nxt)");
            let (mut una, mut pipe) = (self.una, self.pipe);
            while una < cum {
                let Some(s) = self.board.pop_front() else { break };
                if s.flags & SACKED == 0 {
                    delivered += 1;
                    retx_acked |= s.flags & RETX != 0;
                    if rack {
                        self.rack_note(&mut newest, s, una, now, fack, ack.ts);
                    }
                } else {
                    self.sacked_out -= 1;
                }
                pipe -= s.pipe_share();
                una += 1;
            }
            (self.una, self.pipe) = (una, pipe);
            // The backed-off timeout holds until an RTT sample (ns-3 recomputes m_rto
            // only in EstimateRtt; with every ACK sampled that is any new ACK).
            if sampled {
                self.backoff = 0;
            }
            while self.n_top > 0 && self.top_sacked[self.n_top - 1] < self.una {
                self.n_top -= 1;
            }
            // `lost_hi <= lost_max` always: with nothing marked lost from `una` on, the
            // usual case, both move to `una`.
            debug_assert!(self.lost_hi <= self.lost_max);
            if self.lost_max <= self.una {
                (self.lost_hi, self.lost_max) = (self.una, self.una);
            } else {
                self.lost_hi = self.lost_hi.max(self.una);
            }
            self.retx_next = self.retx_next.max(self.una);
        }

        let mut newly_sacked = 0;
        if !CALM && ack.sack_count() > 0 {
            newly_sacked = self.process_sack(ack, &mut newest, now, fack);
            delivered += newly_sacked;
        }
        self.mark_lost();
        if rack {
            if let Some((sent, seq)) = newest {
                self.rack_advance(sent, seq, now);
            }
            self.rack_detect_loss(now);
        }

        if !CALM && self.dsack_undo_due {
            self.dsack_undo_due = false;
            self.undo_dsack(now, cc);
        }
        // Undo (RFC 3522's Eifel detection, as Linux's tcp_packet_delayed): the
        // first retransmitted segment is acknowledged by an ACK that echoes a send
        // time before that retransmission: the original arrived, nothing was lost.
        if !CALM && self.episode != Episode::None {
            if self.mech.undo && self.una > self.undo_una && ack.ts < self.retrans_stamp {
                self.undo(now, cc);
            } else if self.frto != 0 && advanced {
                self.frto_step(now, cc);
            } else if self.frto != 0 {
                self.frto = 0; // a duplicate ACK: the timeout was real (RFC 5682 2a, 3a)
            }
            if self.episode == Episode::Timeout && self.una >= self.rto_recover {
                self.episode = Episode::None;
            }
        }

        // Recovery epochs.
        if !CALM && self.in_recovery && self.una >= self.recover {
            self.in_recovery = false;
            if self.reo_persist > 0 {
                // RFC 8985 6.2 step 4: the widened window lasts 16 recoveries.
                self.reo_persist -= 1;
                if self.reo_persist == 0 {
                    self.reo_mult = 1;
                }
            }
            if self.episode == Episode::Recovery {
                self.episode = Episode::None;
            }
            cc.on_recovery_exit(self.sf, now);
            if let Some(r) = &self.rec {
                r.borrow_mut().recovery_exit(self.sf, now, cc);
            }
        }
        if !CALM && self.mech.prr && self.in_recovery {
            if self.mech.prr_ns3 {
                self.prr_ns3_ack(delivered, advanced, newly_sacked > 0, retx_acked);
            } else {
                self.prr_delivered += delivered;
                self.prr_last = delivered;
            }
        }
        // (The calm path starts out of recovery, and nothing above enters it.)
        if (CALM || !self.in_recovery) && self.una < self.nxt && self.board[0].flags & LOST != 0 {
            self.maybe_enter_recovery(now, cc, out);
            if self.in_recovery && self.mech.prr && self.mech.prr_ns3 {
                // TcpPrrRecovery::EnterRecovery counts the ACK that started recovery
                // as a duplicate ACK.
                self.prr_delivered = delivered + 1;
                self.prr_last = delivered + 1;
            }
        }
        if !CALM && self.tlp_high.is_some() {
            self.tlp_ack(now, cc, advanced || newly_sacked > 0);
        }

        let round_start = advanced && self.una >= self.round_end;
        if round_start {
            self.round_end = self.nxt;
        }
        let ev = AckEvent {
            now,
            // A count of segments, far below 2^53: exact through i64, whose conversion
            // is one instruction (u64's takes six).
            acked: self.growth_count::<CALM>(delivered, advanced, newly_sacked, after_timeout) as i64 as f64,
            rtt,
            srtt: self.rtt.srtt,
            min_rtt: self.rtt.min_rtt,
            owd: ack.owd,
            in_flight: self.pipe,
            in_recovery: self.in_recovery,
            round_start,
            app_limited: self.validation && !self.using_window(cc),
            delivered,
            snd_una: self.una,
            snd_nxt: self.nxt,
            after_timeout: !CALM && self.una < self.rto_recover,
        };
        cc.on_ack(self.sf, &ev);
        if let Some(r) = self.rec.as_ref().filter(|_| !CALM) {
            r.borrow_mut().ack(self.sf, &ev, cc);
        }

        // RFC 6298 5.2/5.3: stop the timer when all is acknowledged, restart it
        // when new data is acknowledged.
        if self.una == self.nxt {
            self.rto_at = None;
            self.reo_at = None;
        } else if advanced {
            // RFC 6582's impatient variant (ns-3's ProcessAck: NewAck with
            // m_isFirstPartialAck): in fast recovery only the first partial ACK
            // restarts the timer.
            // Out of recovery, the usual case, that is a restart and no more.
            if !self.in_recovery {
                self.rto_at = Some(now + self.restart_rto_ns::<CALM>());
            } else {
                if !(self.mech.rto_impatient && self.partial_restarted) {
                    self.rto_at = Some(now + self.rtt.backed_off(self.backoff));
                }
                self.partial_restarted = true;
            }
        }
        if !CALM && self.mech.tlp {
            self.schedule_probe(now);
        }
        if CALM {
            // Without RACK and TLP (`calm_mechs`) neither of the other deadlines is ever set.
            debug_assert!(self.reo_at.is_none() && self.tlp_at.is_none());
            (self.rto_deadline, self.timer) = (self.rto_at, Timer::Rto);
        } else {
            self.rearm();
        }
    }

    /// The timeout a new ACK restarts the timer with. On the calm path this ACK's
    /// RTT sample set `rto` (at most the maximum) and, as it advanced, cleared the
    /// backoff: `rto` is the backed-off timeout.
    #[inline(always)]
    fn restart_rto_ns<const CALM: bool>(&self) -> Nanos {
        if CALM {
            debug_assert_eq!(self.rtt.rto, self.rtt.backed_off(self.backoff));
            self.rtt.rto
        } else {
            self.rtt.backed_off(self.backoff)
        }
    }

    /// The delivered segments the controller is told of (`AckEvent::acked`), which
    /// its window grows by. By default every newly delivered segment. Without
    /// `sack_growth` (ns-3's TcpSocketBase::ProcessAck), only an ACK that advances
    /// the cumulative acknowledgement counts, and, outside the recovery of a
    /// timeout (ns-3's CA_LOSS), only if it carries no new SACK information (an
    /// ACK with new SACK information is a duplicate ACK to ns-3: TcpSocketBase::DupAck
    /// grows nothing), and the ACK that ends a timeout's recovery counts only the
    /// segments beyond its recovery point (ProcessAck's exit from CA_LOSS:
    /// `(ackNumber - m_recover) / segmentSize`). With `ack_counting` (ns-3's
    /// TcpNewReno) an ACK counts as one segment at most. On the calm path (no SACK
    /// blocks, not after a timeout) `delivered` is what the cumulative ACK passed,
    /// nothing unless it advanced: `sack_growth` changes nothing there.
    #[inline]
    fn growth_count<const CALM: bool>(
        &self, delivered: u64, advanced: bool, newly_sacked: u64, after_timeout: bool,
    ) -> u64 {
        debug_assert!(!CALM || advanced || delivered == 0);
        let mut n = delivered;
        if !CALM && !self.mech.sack_growth {
            if !(advanced && (after_timeout || newly_sacked == 0)) {
                n = 0;
            } else if after_timeout && self.una >= self.rto_recover {
                n = self.una - self.rto_recover;
            }
        }
        if self.mech.ack_counting {
            n = n.min(1);
        }
        n
    }

    /// The ACK's SACK blocks. One block per ACK (`sack_blocks` = 1): the block
    /// around the triggering segment, grown from it outwards until known SACKed
    /// segments, so only the new segment is visited in the usual case. More
    /// blocks, or DSACK: `process_sack_blocks`, out of line so that the one-block
    /// path costs what it did before.
    #[inline]
    fn process_sack(&mut self, ack: &Packet, newest: &mut Option<(Nanos, u64)>, now: Nanos, fack: u64) -> u64 {
        if self.mech.sack_blocks > 1 || self.mech.dsack {
            return self.process_sack_blocks(ack, newest, now, fack);
        }
        self.sack_around_trig(ack, newest, now, fack)
    }

    #[inline]
    fn sack_around_trig(&mut self, ack: &Packet, newest: &mut Option<(Nanos, u64)>, now: Nanos, fack: u64) -> u64 {
        let trig = ack.trig();
        if trig < self.una || trig >= self.nxt {
            return 0;
        }
        let (lo, hi) = ack.sack_block(0);
        let (lo, hi) = (lo.max(self.una), hi.min(self.nxt));
        let mut delivered = self.sack_noted(trig, newest, now, fack, ack.ts) as u64;
        let mut s = trig;
        while s > lo && self.sack_noted(s - 1, newest, now, fack, ack.ts) {
            delivered += 1;
            s -= 1;
        }
        let mut s = trig + 1;
        while s < hi && self.sack_noted(s, newest, now, fack, ack.ts) {
            delivered += 1;
            s += 1;
        }
        delivered
    }

    /// Several blocks: each is walked around the previous ACK's blocks (RFC 2018
    /// section 4 repeats them). A first block that is a DSACK (RFC 2883) goes to
    /// `on_dsack`.
    #[inline(never)]
    fn process_sack_blocks(&mut self, ack: &Packet, newest: &mut Option<(Nanos, u64)>, now: Nanos, fack: u64) -> u64 {
        let mut first = 0;
        if ack.first_is_dsack() {
            first = 1;
            self.stats.dsacks += 1;
            if self.mech.tlp_dsack && self.tlp_retx && self.tlp_high.is_some() {
                let (lo, hi) = ack.sack_block(0);
                self.tlp_dsacked = lo == self.tlp_seq && hi == lo + 1;
            }
            if self.mech.dsack {
                let (lo, hi) = ack.sack_block(0);
                self.on_dsack(lo, hi);
            }
        }
        if self.mech.sack_blocks <= 1 {
            return if first == 0 { self.sack_around_trig(ack, newest, now, fack) } else { 0 };
        }
        let mut delivered = 0;
        let cache = self.sack_cache;
        let n_cache = self.n_cache;
        self.n_cache = 0;
        for i in first..ack.sack_count() {
            let (lo, hi) = ack.sack_block(i);
            let (lo, hi) = (lo.max(self.una), hi.min(self.nxt));
            let mut s = lo;
            'walk: while s < hi {
                for &(clo, chi) in &cache[..n_cache] {
                    if clo <= s && s < chi {
                        s = chi;
                        continue 'walk;
                    }
                }
                delivered += self.sack_noted(s, newest, now, fack, ack.ts) as u64;
                s += 1;
            }
            if lo < hi && self.n_cache < MAX_SACK_BLOCKS {
                self.sack_cache[self.n_cache] = (lo, hi);
                self.n_cache += 1;
            }
        }
        delivered
    }

    /// A DSACK for [lo, hi) (RFC 2883). RACK widens its reordering window (RFC
    /// 8985 6.2 step 4, Linux's tcp_rack_update_reo_wnd); the loss episode is
    /// undone once every retransmission it sent came back as a duplicate: the
    /// originals had arrived (Linux's tcp_try_undo_dsack through undo_retrans).
    #[inline(never)]
    fn on_dsack(&mut self, lo: u64, hi: u64) {
        if self.mech.rack && self.una >= self.reo_round {
            self.reo_mult = (self.reo_mult + 1).min(255);
            self.reo_round = self.nxt;
            self.reo_persist = 16; // Linux's TCP_RACK_RECOVERY_THRESH
        }
        if self.mech.undo && self.dsack_marker != u64::MAX && lo >= self.dsack_marker && self.undo_retrans > 0 {
            self.undo_retrans = self.undo_retrans.saturating_sub(hi - lo);
            if self.undo_retrans == 0 {
                self.dsack_undo_due = true;
            }
        }
    }

    /// Undo after DSACK showed every retransmission of the episode unneeded,
    /// during its recovery or after it (Linux keeps undo_marker past the episode).
    #[inline(never)]
    fn undo_dsack(&mut self, now: Nanos, cc: &mut Controller) {
        if self.episode == Episode::None {
            self.episode = self.dsack_kind;
        }
        self.undo(now, cc);
    }

    /// Starts fast recovery when the oldest outstanding segment is lost (RFC 6675
    /// section 5), unless a timeout's recovery is still under way (RFC 6582).
    #[inline(never)]
    fn maybe_enter_recovery(&mut self, now: Nanos, cc: &mut Controller, out: &mut Vec<Packet>) {
        if !self.in_recovery
            && self.frto == 0
            && self.una < self.nxt
            && self.una >= self.rto_recover
            && self.board[0].flags & LOST != 0
        {
            self.in_recovery = true;
            self.partial_restarted = false;
            self.recover = self.nxt;
            // RFC 6675 (4.3): HighRxt and RescueRxt at the segment resent below.
            (self.high_rxt, self.rescue_rxt, self.rule3_from) = (self.una, self.una, self.una);
            self.stats.recoveries += 1;
            if self.episode == Episode::None {
                self.episode = Episode::Recovery;
                self.retrans_stamp = now;
                self.undo_una = self.una;
                self.dsack_marker = self.una;
                self.dsack_kind = Episode::Recovery;
                self.undo_retrans = 0;
            }
            if self.mech.prr {
                self.prr_delivered = 0;
                self.prr_out = 0;
                self.prr_last = 0;
                self.prr_safe = false;
                self.prr_force = false;
                self.recover_fs = self.pipe;
            }
            let ev = self.congestion_event(now, CongestionKind::Loss);
            cc.on_congestion(self.sf, &ev);
            if let Some(r) = &self.rec {
                r.borrow_mut().congestion(self.sf, &ev, cc);
            }
            // RFC 6675 step (4.3): the first lost segment goes out at once, whatever pipe is.
            if let Some(seq) = self.next_lost() {
                self.retransmit(now, seq, out);
            }
        }
    }

    /// RACK (RFC 8985 6.2 step 2): a newly delivered segment; the most recently
    /// sent one is kept. A retransmission acknowledged by an ACK that echoes an
    /// earlier send time, or sooner than the minimum RTT after it left, was the
    /// original's delivery: it does not count. A segment
    /// delivered below the highest SACKed one, never retransmitted, shows reordering.
    #[inline]
    fn rack_note(&mut self, newest: &mut Option<(Nanos, u64)>, s: Seg, seq: u64, now: Nanos, fack: u64, echo: Nanos) {
        // The ACK echoes a send time before the retransmission: the original arrived.
        if s.flags & RETX != 0 && (echo < s.sent || now - s.sent < self.rtt.min_rtt) {
            return;
        }
        if s.flags & RETX == 0 && seq < fack && s.flags & LOST == 0 {
            self.reordering_seen = true;
        }
        if newest.is_none_or(|(t, q)| (s.sent, seq) > (t, q)) {
            *newest = Some((s.sent, seq));
        }
    }

    /// `sack` that also tells RACK of the segment.
    #[inline]
    fn sack_noted(&mut self, seq: u64, newest: &mut Option<(Nanos, u64)>, now: Nanos, fack: u64, echo: Nanos) -> bool {
        if !self.mech.rack {
            return self.sack(seq);
        }
        let s = *self.seg(seq);
        if !self.sack(seq) {
            return false;
        }
        self.rack_note(newest, s, seq, now, fack, echo);
        true
    }

    /// RACK (RFC 8985 6.2 step 2): the most recently sent delivered segment and its RTT.
    #[inline]
    fn rack_advance(&mut self, sent: Nanos, seq: u64, now: Nanos) {
        if !self.rack_valid || (sent, seq) > (self.rack_xmit, self.rack_seq) {
            self.rack_xmit = sent;
            self.rack_seq = seq;
            self.rack_rtt = now - sent;
            self.rack_valid = true;
        }
    }

    /// RACK's reordering window (RFC 8985 6.2 step 4, as Linux's tcp_rack_reo_wnd):
    /// a quarter of the minimum RTT, or none once DupThresh segments are SACKed or
    /// recovery is under way while no reordering has been seen.
    #[inline]
    fn reo_wnd(&self) -> Nanos {
        if !self.reordering_seen && (self.in_recovery || self.sacked_out >= self.dupthresh as u64) {
            0
        } else if self.reo_mult == 1 {
            self.rtt.min_rtt / 4
        } else {
            // Widened by DSACK, at most SRTT (tcp_rack_reo_wnd).
            (self.rtt.min_rtt / 4 * self.reo_mult as u64).min(self.rtt.srtt)
        }
    }

    /// RACK (RFC 8985 6.2 step 5): every outstanding segment sent before the most
    /// recently delivered one is lost once RACK.rtt + reo_wnd has passed since it
    /// left; lost retransmissions are found the same way. The earliest segment not
    /// yet due arms the reordering timer. Segments are visited in sequence order:
    /// first transmissions are in send order, so the first one sent after
    /// RACK.xmit_ts ends the scan.
    fn rack_detect_loss(&mut self, now: Nanos) {
        self.reo_at = None;
        if !self.rack_valid {
            return;
        }
        let wait = self.rack_rtt + self.reo_wnd();
        let mut seq = self.una;
        let mut pending: Option<Nanos> = None;
        while seq < self.nxt {
            let i = (seq - self.una) as usize;
            let s = self.board[i];
            seq += 1;
            if s.flags & SACKED != 0 || s.flags & (LOST | RETX) == LOST {
                continue; // delivered, or lost and awaiting its retransmission
            }
            if (s.sent, seq - 1) > (self.rack_xmit, self.rack_seq) {
                if s.flags & RETX == 0 {
                    break;
                }
                continue;
            }
            let due = s.sent + wait;
            if due <= now {
                let s = &mut self.board[i];
                let before = s.pipe_share();
                if s.flags & RETX != 0 {
                    s.flags &= !RETX; // a lost retransmission: lost again
                    self.stats.lost_retransmissions += 1;
                } else {
                    self.stats.losses += 1;
                }
                s.flags |= LOST;
                self.pipe -= before - s.pipe_share();
                self.stats.rack_losses += 1;
                self.retx_next = self.retx_next.min(seq - 1);
                self.lost_max = self.lost_max.max(seq);
            } else {
                pending = Some(pending.map_or(due, |p| p.min(due)));
            }
        }
        self.reo_at = pending;
    }

    /// Marks `seq` SACKed; returns false if it already was.
    #[inline]
    fn sack(&mut self, seq: u64) -> bool {
        let hold = self.mech.sacked_retx_in_pipe;
        let s = self.seg(seq);
        if s.flags & SACKED != 0 {
            return false;
        }
        let share = s.pipe_share();
        s.flags |= SACKED;
        if s.flags & RETX != 0 && hold {
            s.flags |= HELD; // ns-3 3.44 clears the lost mark but keeps the retransmission's count
        }
        self.pipe -= share - s.pipe_share();
        self.sacked_out += 1;
        // Keep the `dupthresh` highest SACKed segments, descending.
        let k = self.dupthresh;
        if self.n_top < k || seq > self.top_sacked[self.n_top - 1] {
            let mut i = self.n_top.min(k - 1);
            if self.n_top < k {
                self.n_top += 1;
            }
            while i > 0 && self.top_sacked[i - 1] < seq {
                self.top_sacked[i] = self.top_sacked[i - 1];
                i -= 1;
            }
            self.top_sacked[i] = seq;
        }
        true
    }

    /// RFC 6675 IsLost: every unSACKed segment with at least `dupthresh` SACKed
    /// segments above it is lost.
    #[inline]
    fn mark_lost(&mut self) {
        if self.n_top < self.dupthresh {
            return;
        }
        let threshold = self.top_sacked[self.dupthresh - 1];
        while self.lost_hi < threshold {
            let seq = self.lost_hi;
            let s = self.seg(seq);
            if s.flags & (SACKED | LOST) == 0 {
                s.flags |= LOST;
                self.pipe -= 1;
                self.stats.losses += 1;
            }
            self.lost_hi += 1;
        }
        self.lost_max = self.lost_max.max(self.lost_hi);
    }

    /// A reduction this subflow did not detect itself (MPTCP's penalization of a
    /// subflow holding data the connection waits for, Raiciu et al., NSDI 2012):
    /// the controller reduces as for a loss and leaves recovery at once. The paper
    /// halves the window, so never from the flight size (`ssthresh_from_flight`).
    pub fn penalize(&self, now: Nanos, cc: &mut Controller) {
        let ev = CongestionEvent { from_flight: false, ..self.congestion_event(now, CongestionKind::Loss) };
        cc.on_congestion(self.sf, &ev);
        cc.on_recovery_exit(self.sf, now);
    }

    fn congestion_event(&self, now: Nanos, kind: CongestionKind) -> CongestionEvent {
        CongestionEvent {
            now,
            kind,
            in_flight: self.pipe as f64,
            srtt: self.rtt.srtt,
            min_rtt: self.rtt.min_rtt,
            rtt: self.rtt.latest,
            from_flight: self.mech.ssthresh_from_flight,
        }
    }

    /// RFC 6675 NextSeg rule 1: the first lost segment not yet retransmitted.
    #[inline]
    fn next_lost(&mut self) -> Option<u64> {
        let mut s = self.retx_next;
        while s < self.lost_max {
            let f = self.board[(s - self.una) as usize].flags;
            if f & LOST != 0 && f & (SACKED | RETX) == 0 {
                self.retx_next = s;
                return Some(s);
            }
            s += 1;
        }
        self.retx_next = s;
        None
    }

    /// Whether the sender validates its window (`tcp.cwnd_validation`; fixed when built).
    pub fn validates(&self) -> bool {
        self.validation
    }

    /// Whether `pipe` is below the whole-segment window `cwnd`.
    #[inline]
    pub fn has_space(&self, cwnd: u64) -> bool {
        self.pipe < cwnd
    }

    /// Retransmits lost segments (NextSeg rule 1) while `pipe < cwnd`. After a
    /// timeout F-RTO resends only the oldest segment until the next ACKs tell
    /// whether the timeout was real.
    #[inline(always)]
    pub fn send_lost(&mut self, now: Nanos, cwnd: u64, out: &mut Vec<Packet>) {
        while self.pipe < cwnd {
            // Nothing marked lost beyond the retransmission point, the usual case:
            // what `next_lost` would find, without its walk's set-up and store.
            if self.retx_next >= self.lost_max {
                break;
            }
            if self.frto != 0 && (self.frto == 2 || self.retx_next > self.una) {
                break;
            }
            let Some(seq) = self.next_lost() else { break };
            self.retransmit(now, seq, out);
        }
    }

    /// The send window depends on more than the controller's window: on what this
    /// subflow sent since (`pipe`, PRR's count) during F-RTO and PRR's recovery.
    #[inline]
    pub fn window_moves(&self) -> bool {
        self.frto != 0 || (self.mech.prr && self.in_recovery)
    }

    /// The window the sender may fill now, in whole segments: cwnd, except that
    /// during fast recovery PRR (RFC 6937) sets what goes out, and F-RTO lets out
    /// the timeout's retransmission and then two new segments (RFC 5682).
    #[inline(always)]
    pub fn send_window(&self, cc: &Controller) -> u64 {
        match self.frto {
            1 => return self.pipe + (self.retx_next <= self.una) as u64,
            2 => return self.pipe + self.frto_budget,
            _ => {}
        }
        if self.mech.prr && self.in_recovery {
            return self.pipe + self.prr_sndcnt(cc);
        }
        self.cwnd_segs(cc)
    }

    /// ns-3's PRR accounting of one ACK in fast recovery (TcpPrrRecovery::DoRecovery
    /// as TcpSocketBase::DupAck and ProcessAck call it). An ACK with new SACK
    /// information is a duplicate ACK: it counts one segment more than it
    /// delivered while `prr_delivered` is below the flight size at the start of
    /// recovery. A partial ACK (one that advances `una`) counts what it delivered,
    /// a second time if it was also a duplicate ACK (DupAck and ProcessAck both call
    /// DoRecovery). Below ssthresh the reduction bound is PRR-CRB, PRR-SSRB's extra
    /// segment only when the ACK acknowledges a retransmission (safeACK). A partial
    /// ACK whose new oldest segment is not an outstanding retransmission lets one
    /// segment out whatever PRR allows (ProcessAck's DoRetransmit).
    #[inline(never)]
    fn prr_ns3_ack(&mut self, delivered: u64, advanced: bool, dupack: bool, retx_acked: bool) {
        let mut last = None;
        if dupack {
            let d = delivered + (self.prr_delivered < self.recover_fs) as u64;
            if d > 0 {
                self.prr_delivered += d;
                last = Some(d);
            }
        }
        if advanced && delivered > 0 {
            self.prr_delivered += delivered;
            last = Some(delivered);
        }
        if let Some(d) = last {
            self.prr_last = d;
        }
        self.prr_safe = advanced && retx_acked;
        self.prr_force = advanced && self.una < self.nxt && self.board[0].flags & (RETX | SACKED) != RETX;
    }

    /// ns-3's PRR send count (TcpPrrRecovery::DoRecovery) in whole segments. ns-3
    /// computes it in bytes with the fractional ssthresh (FlightSize / 2) and sets
    /// cwnd = in flight + that count, and TcpSocketBase::SendPendingData sends only
    /// while a whole segment fits: the proportional part is rounded down, not up.
    #[inline(never)]
    fn prr_ns3_sndcnt(&self, ssthresh: f64) -> u64 {
        let pipe = self.pipe as f64;
        let n = if pipe > ssthresh {
            ((self.prr_delivered as f64 * ssthresh / self.recover_fs.max(1) as f64).floor() as u64)
                .saturating_sub(self.prr_out)
        } else {
            let limit = self.prr_delivered.saturating_sub(self.prr_out).max(self.prr_last) + self.prr_safe as u64;
            ((ssthresh - pipe).floor() as u64).min(limit)
        };
        if self.prr_force {
            n.max(1)
        } else {
            n
        }
    }

    /// PRR (RFC 6937 section 3, with slow-start reduction bound): while more than
    /// ssthresh is in flight, send in proportion to what is delivered; below it,
    /// grow back towards ssthresh at most one segment faster than delivery.
    #[inline]
    fn prr_sndcnt(&self, cc: &Controller) -> u64 {
        if self.mech.prr_ns3 {
            return self.prr_ns3_sndcnt(cc.ssthresh(self.sf).max(1.0));
        }
        let ssthresh = (cc.ssthresh(self.sf).max(1.0)) as u64;
        let n = if self.pipe > ssthresh {
            (self.prr_delivered * ssthresh).div_ceil(self.recover_fs.max(1)).saturating_sub(self.prr_out)
        } else {
            let ssrb = !self.mech.prr_ns3 || self.prr_safe;
            let limit = self.prr_delivered.saturating_sub(self.prr_out).max(self.prr_last) + ssrb as u64;
            (ssthresh - self.pipe).min(limit)
        };
        if self.prr_force {
            n.max(1)
        } else {
            n
        }
    }

    /// Sends while `pipe` is below the (whole-segment) congestion window: lost
    /// segments first, then new data within the application's supply and the
    /// receive window (NextSeg rules 1 and 2), the data sequence number being the
    /// segment number.
    pub fn send(&mut self, now: Nanos, cc: &Controller, out: &mut Vec<Packet>) {
        let cwnd = self.send_window(cc);
        self.prr_force = false;
        self.send_lost(now, cwnd, out);
        while self.pipe < cwnd && self.nxt < self.app_limit && self.nxt < self.una.saturating_add(self.rwnd) {
            let seq = self.nxt;
            self.emit_new(now, seq, self.seg_bytes(seq), false, out);
        }
        self.send_beyond_new_data(now, cwnd, out);
        self.note_window_use(cwnd);
    }

    /// RFC 6675 NextSeg rules 3 and 4, called once rules 1 (lost segments) and 2
    /// (new data) have sent what they could: in fast recovery, while `pipe` is
    /// below `cwnd`. Nothing unless `sack_rule3` or `rescue` is on.
    #[inline]
    pub fn send_beyond_new_data(&mut self, now: Nanos, cwnd: u64, out: &mut Vec<Packet>) {
        if self.in_recovery && self.frto == 0 && self.pipe < cwnd && (self.mech.sack_rule3 || self.mech.rescue) {
            self.rules_3_and_4(now, cwnd, out);
        }
    }

    /// Rule 3: unSACKed segments above HighRxt and below the highest SACKed one
    /// (1.a and 1.b without IsLost), lowest first. Rule 4 (the rescue): once per
    /// recovery, after a partial ACK (HighACK above RescueRxt), the highest
    /// outstanding unSACKed segment, HighRxt left as it is. Only segments neither
    /// marked lost (rule 1 resends those) nor resent already go out, so a segment
    /// counts at most twice in `pipe`. Neither moves rule 1's scan (`retx_next`):
    /// segments below them may still be marked lost.
    #[cold]
    fn rules_3_and_4(&mut self, now: Nanos, cwnd: u64, out: &mut Vec<Packet>) {
        let scan = self.retx_next;
        if self.mech.sack_rule3 {
            // ns-3's form looks through the whole window, RFC 6675's from HighRxt to the highest SACK.
            let (from, to) = match (self.mech.rule3_ns3, self.n_top) {
                (true, _) => (self.rule3_from, self.nxt),
                (false, 0) => (self.una, self.una),
                (false, _) => (self.high_rxt, self.top_sacked[0]),
            };
            let mut seq = from.max(self.una);
            while self.pipe < cwnd && seq < to {
                if self.board[(seq - self.una) as usize].flags & (SACKED | LOST | RETX) == 0 {
                    self.retransmit(now, seq, out);
                }
                seq += 1;
            }
            if self.mech.rule3_ns3 {
                self.rule3_from = seq;
            } else {
                self.high_rxt = self.high_rxt.max(seq);
            }
        }
        if self.mech.rescue && self.pipe < cwnd && self.una > self.rescue_rxt {
            let rescue = (self.una..self.nxt).rev().find(|&s| self.board[(s - self.una) as usize].flags & SACKED == 0);
            if let Some(seq) = rescue.filter(|&s| self.board[(s - self.una) as usize].flags & (LOST | RETX) == 0) {
                let high_rxt = self.high_rxt;
                self.retransmit(now, seq, out);
                self.high_rxt = high_rxt;
                self.rescue_rxt = self.recover;
                self.stats.rescues += 1;
            }
        }
        self.retx_next = scan;
    }

    /// After a send attempt with window `cwnd`: Linux's tcp_cwnd_validate. The
    /// record restarts once the previous window of data is acknowledged, or at
    /// once when cwnd is full now or more is in flight than recorded.
    #[inline]
    pub fn note_window_use(&mut self, cwnd: u64) {
        // (A flow whose subflows all go without it skips the call: `Flow::window_validation`.)
        if !self.validation {
            return;
        }
        let full = self.pipe >= cwnd;
        if full || self.una >= self.usage_end || (!self.cwnd_limited && self.pipe > self.max_pipe) {
            self.cwnd_limited = full;
            self.max_pipe = self.pipe;
            self.usage_end = self.nxt;
        }
    }

    /// Linux's tcp_is_cwnd_limited: cwnd was full during the last window of
    /// data, or, in slow start, cwnd is below twice the most that was in flight.
    #[inline]
    fn using_window(&self, cc: &Controller) -> bool {
        let cwnd = cc.cwnd(self.sf);
        self.cwnd_limited || (cwnd < cc.ssthresh(self.sf) && cwnd < 2.0 * self.max_pipe as f64)
    }

    #[inline]
    fn retransmit(&mut self, now: Nanos, seq: u64, out: &mut Vec<Packet>) {
        let seg = self.seg(seq);
        seg.flags |= RETX;
        seg.sent = now;
        let (dsn, payload) = (seg.dsn, seg.payload);
        self.stats.retransmissions += 1;
        // Retransmissions of the episode DSACK may undo (Linux's undo_retrans).
        self.undo_retrans += (seq >= self.dsack_marker) as u64;
        self.retx_next = seq + 1;
        self.high_rxt = self.high_rxt.max(seq + 1);
        // Retransmitting the oldest segment restarts the timer (as Linux does):
        // otherwise a fast retransmission queued behind a full buffer would
        // race the timer started for the original transmission.
        if seq == self.una && self.mech.rto_on_retransmit {
            self.restart_rto(now);
        }
        self.put(now, seq, dsn, payload, out);
    }

    /// Sends a new segment carrying data sequence number `dsn` with `payload`
    /// bytes; `reinjection` when that data was first sent on another subflow.
    #[inline(always)]
    pub fn emit_new(&mut self, now: Nanos, dsn: u64, payload: u32, reinjection: bool, out: &mut Vec<Packet>) {
        let seq = self.nxt;
        self.board.push_back(Seg { dsn, sent: now, payload, flags: 0 });
        self.nxt += 1;
        if self.frto == 2 {
            self.frto_budget = self.frto_budget.saturating_sub(1);
        }
        self.stats.reinjections += reinjection as u64;
        self.put(now, seq, dsn, payload, out);
    }

    #[inline(always)]
    fn put(&mut self, now: Nanos, seq: u64, dsn: u64, payload: u32, out: &mut Vec<Packet>) {
        self.pipe += 1;
        let bytes = payload + self.header;
        self.stats.sent_packets += 1;
        let mut p = Packet::segment(self.flow, self.sf as u16, seq, dsn, bytes, now);
        p.owd = self.ts_recent;
        out.push(p);
        // Apart from `sent_packets`: two adjacent counters are added as a vector
        // (a load, a shuffle and a store more than the two adds).
        self.stats.sent_bytes += bytes as u64;
        if self.in_recovery {
            self.prr_out += 1;
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.backed_off(self.backoff));
            self.rearm();
        }
        if self.mech.tlp {
            self.schedule_probe(now);
            self.rearm();
        }
    }

    /// Whether an outstanding, unSACKed segment of this subflow carries `dsn`.
    pub fn holds(&self, dsn: u64) -> bool {
        self.board.iter().any(|s| s.dsn == dsn && s.flags & SACKED == 0)
    }

    /// Calls `f` with the data sequence number of every outstanding segment not
    /// yet queued for reinjection (`include_sacked`: SACKed ones too, for a
    /// subflow that is closing, whose receiver will never deliver them), and marks
    /// them queued.
    pub fn take_for_reinjection(&mut self, include_sacked: bool, mut f: impl FnMut(u64)) {
        for s in self.board.iter_mut() {
            if s.flags & REINJ == 0 && (include_sacked || s.flags & SACKED == 0) {
                s.flags |= REINJ;
                f(s.dsn);
            }
        }
    }

    /// The retransmission timer expired (RFC 6298 5.4-5.7, RFC 6675 section 5.1):
    /// everything outstanding and unSACKed is lost, cwnd collapses, the timer backs off.
    pub fn on_timeout(&mut self, now: Nanos, cc: &mut Controller, out: &mut Vec<Packet>) {
        match self.on_timer(now, cc, out) {
            Timer::Probe => {
                let seq = self.nxt;
                if self.nxt < self.app_limit && self.nxt < self.una.saturating_add(self.rwnd) {
                    self.emit_new(now, seq, self.seg_bytes(seq), false, out);
                } else {
                    self.retransmit_tail(now, out);
                }
                self.probe_sent(now);
            }
            _ => self.send(now, cc, out),
        }
    }

    /// The one timer fired at `now`: does the sender's part of whichever deadline
    /// it held and says which. For `Probe` the caller sends the probe (new data if
    /// it has some, else `retransmit_tail`) and then calls `probe_sent`.
    pub fn on_timer(&mut self, now: Nanos, cc: &mut Controller, out: &mut Vec<Packet>) -> Timer {
        let fired = self.timer;
        match fired {
            Timer::Rto => self.process_timeout(now, cc),
            Timer::Reorder => {
                self.reo_at = None;
                self.rack_detect_loss(now);
                self.maybe_enter_recovery(now, cc, out);
                self.rearm();
            }
            Timer::Probe => {
                self.tlp_at = None;
                self.rearm();
            }
        }
        fired
    }

    /// Everything `on_timeout` does but sending.
    pub fn process_timeout(&mut self, now: Nanos, cc: &mut Controller) {
        self.stats.timeouts += 1;
        // ns-3 (TcpSocketBase::ReTxTimeout) lowers ssthresh only once per loss
        // episode: not again while a timeout's retransmission of the head is
        // outstanding (CA_LOSS with the head retransmitted).
        let keep = (self.mech.ssthresh_from_flight
            && self.una < self.rto_recover
            && self.una < self.nxt
            && self.board[0].flags & RETX != 0)
            .then(|| cc.ssthresh(self.sf));
        let ev = self.congestion_event(now, CongestionKind::Timeout);
        cc.on_congestion(self.sf, &ev);
        if let Some(ssthresh) = keep {
            cc.set_ssthresh(self.sf, ssthresh);
        }
        if let Some(r) = &self.rec {
            r.borrow_mut().congestion(self.sf, &ev, cc);
        }
        for s in self.board.iter_mut() {
            if s.flags & SACKED == 0 {
                if s.flags & LOST == 0 {
                    self.stats.losses += 1;
                }
                s.flags = LOST | (s.flags & REINJ);
            } else {
                s.flags &= !HELD; // pipe starts again from 0 (ns-3: SetSentListLost zeroes m_retrans)
            }
        }
        // Only an episode with this one reduction can be undone (the controller
        // restores what it saved at its last reduction).
        if self.episode == Episode::None && self.una < self.nxt {
            self.undo_una = self.una;
            self.dsack_marker = self.una;
            self.dsack_kind = Episode::Timeout;
            self.undo_retrans = 0;
            self.retrans_stamp = now;
            // RFC 5682: the next ACKs tell whether the timeout was spurious.
            self.frto = if self.mech.frto && self.backoff == 0 { 1 } else { 0 };
        } else {
            self.undo_una = u64::MAX;
            self.dsack_marker = u64::MAX;
            self.frto = 0;
        }
        self.episode = Episode::Timeout;
        self.pipe = 0;
        self.lost_hi = self.nxt;
        self.lost_max = self.nxt;
        self.retx_next = self.una;
        self.in_recovery = false;
        self.rto_recover = self.nxt;
        self.backoff += 1;
        self.tlp_high = None;
        self.reo_at = None;
        self.tlp_at = None;
        self.rto_at = if self.una < self.nxt { Some(now + self.rtt.backed_off(self.backoff)) } else { None };
        self.rearm();
    }

    /// The loss episode was spurious: the controller restores the window it had
    /// before (`CongestionControl::undo`), segments marked lost and not resent are
    /// in flight again, and recovery ends (Linux's tcp_undo_cwnd_reduction).
    fn undo(&mut self, now: Nanos, cc: &mut Controller) {
        match self.episode {
            Episode::Timeout => self.stats.spurious_timeouts += 1,
            _ => self.stats.undone_recoveries += 1,
        }
        cc.undo(self.sf, now);
        self.dsack_marker = u64::MAX;
        for s in self.board.iter_mut() {
            if s.flags & (LOST | RETX | SACKED) == LOST {
                s.flags &= !LOST;
                self.pipe += 1;
            }
        }
        self.lost_hi = self.una;
        self.lost_max = self.una;
        self.retx_next = self.una;
        self.rto_recover = self.una;
        self.in_recovery = false;
        self.episode = Episode::None;
        self.frto = 0;
        self.mark_lost();
    }

    /// F-RTO (RFC 5682 section 2), on an ACK that advances the window after a
    /// timeout: the first one lets two new segments out (step 2b); a second one
    /// shows that data sent before the timeout arrived: the timeout was spurious (3b).
    fn frto_step(&mut self, now: Nanos, cc: &mut Controller) {
        if self.una >= self.rto_recover {
            self.frto = 0; // everything acknowledged: nothing to tell (2a)
        } else if self.frto == 1 {
            self.frto = 2;
            self.frto_budget = 2;
        } else if self.undo_una != u64::MAX {
            self.undo(now, cc);
        } else {
            self.frto = 0;
        }
    }

    /// TLP (RFC 8985 7.2): (re)arms the probe timer while data is outstanding and
    /// no recovery or probe is under way: PTO = 2 SRTT, plus the worst-case
    /// delayed-ACK time when one segment is in flight, at most the RTO.
    fn schedule_probe(&mut self, now: Nanos) {
        self.tlp_at = None;
        if !self.mech.tlp
            || self.una >= self.nxt
            || self.in_recovery
            || self.episode == Episode::Timeout
            || self.tlp_high.is_some()
        {
            return;
        }
        let srtt = self.rtt.srtt;
        let mut pto = if self.rtt.has_sample() { 2 * srtt } else { 1_000_000_000 };
        if self.pipe <= 1 {
            pto += WORST_CASE_DELACK;
        }
        // Never later than the RTO: a probe due then replaces it (tcp_schedule_loss_probe).
        self.tlp_at = Some(self.rto_at.map_or(now + pto, |r| r.min(now + pto)));
    }

    /// Retransmits the highest outstanding segment not yet SACKed (the probe when
    /// there is no new data, RFC 8985 7.3).
    pub fn retransmit_tail(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        let mut seq = self.nxt;
        while seq > self.una {
            seq -= 1;
            if self.board[(seq - self.una) as usize].flags & SACKED == 0 {
                let next = self.retx_next;
                self.retransmit(now, seq, out);
                self.retx_next = next;
                self.tlp_retx = true;
                self.tlp_seq = seq;
                return;
            }
        }
    }

    /// The probe left: the episode lasts until everything sent so far is
    /// acknowledged, and the RTO is re-armed (RFC 8985 7.3).
    pub fn probe_sent(&mut self, now: Nanos) {
        self.stats.tlp_probes += 1;
        self.tlp_high = Some(self.nxt);
        self.tlp_at = None;
        self.restart_rto(now);
    }

    /// TLP (RFC 8985 7.4): the probe's episode, once everything sent up to it is
    /// acknowledged. A probe of new data ends it. A retransmitting probe, if
    /// recovery did not start, repaired a tail loss: the controller reduces once.
    /// With `tlp_dsack`, as Linux's tcp_process_tlp_ack: a DSACK of the probe or
    /// a pure duplicate ACK (`progress` false: nothing new acknowledged or SACKed)
    /// shows that both copies arrived and ends it without a reduction; only an ACK
    /// beyond the probe's end reduces; one that just reaches it waits.
    #[inline(never)]
    fn tlp_ack(&mut self, now: Nanos, cc: &mut Controller, progress: bool) {
        let Some(high) = self.tlp_high else { return };
        let dsacked = std::mem::take(&mut self.tlp_dsacked);
        if self.in_recovery || self.episode == Episode::Timeout {
            self.tlp_high = None;
            self.tlp_retx = false;
            return;
        }
        if self.una < high {
            return;
        }
        let reduce = match (self.tlp_retx, self.mech.tlp_dsack) {
            (false, _) => false,
            (true, false) => true,
            (true, true) if dsacked || !progress => false,
            (true, true) if self.una > high => true,
            (true, true) => return, // at the probe's end: wait for the next ACK
        };
        self.tlp_high = None;
        self.tlp_retx = false;
        if reduce {
            self.dsack_marker = u64::MAX; // a reduction of its own: the saved state is gone
            let ev = self.congestion_event(now, CongestionKind::Loss);
            cc.on_congestion(self.sf, &ev);
            cc.on_recovery_exit(self.sf, now);
        }
    }

    pub fn mss(&self) -> u32 {
        self.mss
    }

    /// RFC 6675's pipe counted afresh from the scoreboard (what `pipe` must
    /// always equal; for tests).
    pub fn pipe_recount(&self) -> u64 {
        self.board.iter().map(|s| s.pipe_share()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpcc_algo::{build, Params};

    fn ack(cum: u64, trig: u64, lo: u64, hi: u64, ts: Nanos) -> Packet {
        let mut p = Packet::ack(0, 0, 52, cum, ts, 0, trig, u64::MAX);
        if hi > lo {
            p.push_sack(lo, hi);
        }
        p
    }

    /// A Reno sender with `tcp` and `app_bytes` to send, after its first send.
    fn sender(tcp: &TcpConfig, app_bytes: u64) -> (Sender, Controller, Vec<Packet>) {
        let mut cc = build("reno", &Params::new()).unwrap();
        cc.add_subflow(0);
        let mut s = Sender::new(0, 0, tcp);
        s.set_app_bytes(app_bytes);
        let mut out = Vec::new();
        s.send(0, &cc, &mut out);
        (s, cc, out)
    }

    /// `whole_segs`' conversion through u32 gives `as u64`'s integer (at least 1)
    /// on both sides of 2^32, for fractions, negatives, zeros, infinities and NaN.
    #[test]
    fn whole_segments_through_u32_are_the_u64_conversion() {
        let two32 = 4_294_967_296.0f64;
        let mut ws = vec![
            0.0,
            -0.0,
            0.5,
            1.0,
            1.999,
            2.0,
            10.7,
            -1.0,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
            f64::MIN_POSITIVE,
            two32,
            two32 - 0.5,
            two32 + 1.0,
            1.8e19,
            2e19,
        ];
        ws.extend([two32, 1e9, 123.456].iter().flat_map(|&w: &f64| [w.next_down(), w.next_up()]));
        for w in ws {
            assert_eq!(whole_segs(w), (w as u64).max(1), "{w}");
        }
    }

    /// The table gives every flag byte the share the rule gives it (bits above the
    /// five flags play no part).
    #[test]
    fn pipe_shares_by_table_are_the_rule() {
        for flags in 0..=u8::MAX {
            let s = Seg { dsn: 0, sent: 0, payload: 0, flags };
            assert_eq!(s.pipe_share(), pipe_share_of(flags & (SACKED | LOST | RETX | REINJ | HELD)) as u64);
        }
        assert_eq!(pipe_share_of(0), 1);
        assert_eq!(pipe_share_of(LOST), 0);
        assert_eq!(pipe_share_of(LOST | RETX), 1);
        assert_eq!(pipe_share_of(RETX), 2);
        assert_eq!(pipe_share_of(SACKED | RETX | HELD), 1);
        assert_eq!(pipe_share_of(SACKED | RETX), 0);
    }

    /// The textbook sender (`rfc` profile).
    fn setup() -> (Sender, Controller, Vec<Packet>) {
        sender(&TcpConfig { profile: crate::profile::Profile::Rfc, ..Default::default() }, u64::MAX)
    }

    /// The textbook sender with ten segments to send and NextSeg rules 3 and 4 as given.
    fn ten_segments(sack_rule3: bool, rescue: bool) -> (Sender, Controller, Vec<Packet>) {
        ten_segments_with(sack_rule3, false, rescue)
    }

    fn ten_segments_with(sack_rule3: bool, rule3_ns3: bool, rescue: bool) -> (Sender, Controller, Vec<Packet>) {
        let tcp = TcpConfig {
            profile: crate::profile::Profile::Rfc,
            sack_rule3: Some(sack_rule3),
            rule3_ns3: Some(rule3_ns3),
            rescue: Some(rescue),
            ..Default::default()
        };
        let (s, cc, mut out) = sender(&tcp, 10 * 1448);
        assert_eq!(out.len(), 10);
        out.clear();
        (s, cc, out)
    }

    /// `sacked_retx_in_pipe` (ns-3 3.44): segments 0 and 1 of 10 lost and both
    /// resent; 0's retransmission is lost again, 1's is SACKed. Without the switch
    /// that SACK takes 1 out of pipe; with it 1 stays counted until the cumulative
    /// ACK passes it, or until a timeout starts pipe again from zero.
    #[test]
    fn a_sacked_retransmission_can_stay_in_pipe() {
        // Segments 0 and 1 lost, both resent; then 1's retransmission is SACKed.
        let resent = |hold: bool| {
            let tcp = TcpConfig {
                profile: crate::profile::Profile::Rfc,
                sacked_retx_in_pipe: Some(hold),
                ..Default::default()
            };
            let (mut s, mut cc, mut out) = sender(&tcp, 10 * 1448);
            for t in 2..8 {
                s.on_ack(100, &ack(0, t, 2, t + 1, 0), &mut cc, &mut out);
            }
            assert_eq!(s.stats.retransmissions, 2, "0 and 1 resent");
            let before = s.pipe;
            s.on_ack(100, &ack(0, 1, 1, 8, 0), &mut cc, &mut out);
            (s, cc, out, before)
        };
        for hold in [false, true] {
            let (mut s, mut cc, mut out, before) = resent(hold);
            assert_eq!(s.pipe, before - !hold as u64, "hold {hold}");
            assert_eq!(s.pipe, s.pipe_recount());
            s.on_ack(100, &ack(10, 0, 0, 0, 0), &mut cc, &mut out);
            assert_eq!((s.pipe, s.pipe_recount()), (0, 0));
            let (mut s, mut cc, mut out, _) = resent(hold);
            s.on_timeout(200, &mut cc, &mut out);
            assert_eq!(s.pipe, s.pipe_recount(), "a timeout forgets the held count");
        }
    }

    /// `rtt_ns3` (ns-3's EstimateRtt): a duplicate ACK gives no RTT sample, an ACK
    /// that moves the cumulative acknowledgement does; after a timeout, only one
    /// beyond what was outstanding at the timeout. Without it every ACK samples.
    #[test]
    fn ns3_samples_rtt_only_past_its_history() {
        for ns3 in [false, true] {
            let tcp = TcpConfig { profile: crate::profile::Profile::Rfc, rtt_ns3: Some(ns3), ..Default::default() };
            let (mut s, mut cc, mut out) = sender(&tcp, u64::MAX);
            s.on_ack(100 * MS, &ack(1, 0, 0, 0, 0), &mut cc, &mut out);
            assert_eq!(s.rtt.srtt, 100 * MS);
            // A duplicate ACK (segment 1 missing, 2 SACKed) whose echo says 300 ms.
            s.on_ack(300 * MS, &ack(1, 2, 2, 3, 0), &mut cc, &mut out);
            assert_eq!(s.rtt.latest, if ns3 { 100 * MS } else { 300 * MS }, "ns3 {ns3}");
            // A timeout with segments [1, nxt) outstanding; the retransmission of 1
            // is acknowledged: ns-3 has no history for it.
            let high = s.nxt;
            s.on_timeout(2000 * MS, &mut cc, &mut out);
            s.on_ack(2100 * MS, &ack(2, 0, 0, 0, 1950 * MS), &mut cc, &mut out);
            assert_eq!(s.rtt.latest, if ns3 { 100 * MS } else { 150 * MS }, "ns3 {ns3}");
            // Without a sample the backed-off timeout holds (ns-3 recomputes m_rto only
            // in EstimateRtt); with one it is undone.
            assert_eq!(s.backoff, ns3 as u32, "ns3 {ns3}");
            // The first segment sent after the timeout as new data is `high`: an ACK
            // past it samples again.
            s.on_ack(2200 * MS, &ack(high + 1, 0, 0, 0, 2150 * MS), &mut cc, &mut out);
            assert_eq!((s.rtt.latest, s.backoff), (50 * MS, 0), "ns3 {ns3}");
        }
    }

    /// RFC 6675 NextSeg rule 3: segments 0 and 5 of 10 lost, nothing new to send.
    /// Once pipe falls below cwnd, segment 5 (two SACKed above it, so not yet lost)
    /// goes out again with rule 3; without it, one ACK later, when the third SACK
    /// above it makes it lost (rule 1). Either way once.
    #[test]
    fn rule_3_resends_an_unsacked_segment_below_the_highest_sack() {
        for rule3 in [false, true] {
            let (mut s, mut cc, mut out) = ten_segments(rule3, false);
            for t in 1..4 {
                s.on_ack(100, &ack(0, t, 1, t + 1, 0), &mut cc, &mut out);
            }
            assert!(s.in_recovery);
            assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), [0]);
            assert_eq!(cc.cwnd(0), 6.0);
            out.clear();
            s.on_ack(100, &ack(0, 4, 1, 5, 0), &mut cc, &mut out);
            assert!(out.is_empty(), "pipe 6 = cwnd 6");
            s.on_ack(100, &ack(0, 6, 6, 7, 0), &mut cc, &mut out);
            let sent: Vec<u64> = out.iter().map(|p| p.seq).collect();
            assert_eq!(sent, if rule3 { vec![5] } else { vec![] }, "rule 3 {rule3}");
            assert_eq!(s.pipe, s.pipe_recount());
            out.clear();
            s.on_ack(100, &ack(0, 7, 6, 8, 0), &mut cc, &mut out);
            assert!(out.is_empty(), "nothing above HighRxt below the highest SACK");
            s.on_ack(100, &ack(0, 8, 6, 9, 0), &mut cc, &mut out);
            assert_eq!(out.iter().filter(|p| p.seq == 5).count(), !rule3 as usize, "rule 3 {rule3}");
            assert_eq!((s.stats.retransmissions, s.pipe), (2, s.pipe_recount()));
        }
    }

    /// ns-3's rule 3 (`rule3_ns3`): as above, segment 5 goes out at the SACK of 6; at
    /// the SACK of 7 segment 8, still in flight above the highest SACK, goes out too,
    /// where RFC 6675's rule 3 (bounded by the highest SACK) sends nothing.
    #[test]
    fn ns3_rule_3_resends_segments_in_flight_above_the_highest_sack() {
        let (mut s, mut cc, mut out) = ten_segments_with(true, true, false);
        for t in 1..5 {
            s.on_ack(100, &ack(0, t, 1, t + 1, 0), &mut cc, &mut out);
        }
        out.clear();
        s.on_ack(100, &ack(0, 6, 6, 7, 0), &mut cc, &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), [5]);
        out.clear();
        s.on_ack(100, &ack(0, 7, 6, 8, 0), &mut cc, &mut out);
        assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), [8]);
        assert_eq!(s.pipe, s.pipe_recount());
    }

    /// RFC 6675 NextSeg rule 4, the rescue: segments 0 and 9 (the tail) of 10 lost.
    /// After the partial ACK of the retransmitted head, segment 9 goes out again,
    /// once, instead of waiting for the timeout.
    #[test]
    fn the_rescue_resends_the_tail_once_after_a_partial_ack() {
        for rescue in [false, true] {
            let (mut s, mut cc, mut out) = ten_segments(false, rescue);
            for t in 1..9 {
                s.on_ack(100, &ack(0, t, 1, t + 1, 0), &mut cc, &mut out);
            }
            assert!(s.in_recovery);
            assert_eq!(out.iter().map(|p| p.seq).collect::<Vec<_>>(), [0], "no rescue before a partial ACK");
            out.clear();
            s.on_ack(200, &ack(9, 0, 0, 0, 0), &mut cc, &mut out);
            assert!(s.in_recovery, "segment 9 is still outstanding");
            let sent: Vec<u64> = out.iter().map(|p| p.seq).collect();
            assert_eq!(sent, if rescue { vec![9] } else { vec![] }, "rescue {rescue}");
            assert_eq!(s.stats.rescues, rescue as u64);
            assert_eq!(s.pipe, s.pipe_recount());
            out.clear();
            s.on_ack(210, &ack(9, 0, 0, 0, 0), &mut cc, &mut out);
            assert!(out.is_empty(), "one rescue per recovery");
            s.on_ack(300, &ack(10, 0, 0, 0, 0), &mut cc, &mut out);
            assert!(!s.in_recovery && s.all_acked());
        }
    }

    #[test]
    fn initial_window_is_ten_segments() {
        let (s, _, out) = setup();
        assert_eq!(out.len(), 10);
        assert_eq!(s.pipe, 10);
        assert_eq!(out[9].seq, 9);
        assert_eq!(out[0].bytes, 1500);
    }

    #[test]
    fn three_sacks_above_a_hole_trigger_fast_retransmit() {
        let (mut s, mut cc, mut out) = setup();
        out.clear();
        // Segment 0 lost; 1, 2 SACKed: not yet lost. Each SACK delivers a segment,
        // so slow start sends two new ones per ACK.
        s.on_ack(100, &ack(0, 1, 1, 2, 0), &mut cc, &mut out);
        s.on_ack(100, &ack(0, 2, 1, 3, 0), &mut cc, &mut out);
        assert!(!s.in_recovery);
        assert_eq!(out.len(), 4);
        assert_eq!(cc.cwnd(0), 12.0);
        out.clear();
        s.on_ack(100, &ack(0, 3, 1, 4, 0), &mut cc, &mut out);
        assert!(s.in_recovery);
        assert_eq!(s.stats.losses, 1);
        // cwnd halved to 6; the hole is retransmitted at once (RFC 6675 4.3) even
        // though pipe = 14 sent - 3 SACKed - 1 lost + 1 retransmitted = 11 >= 6.
        assert_eq!(cc.cwnd(0), 6.0);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 0, "first retransmission is the hole");
        assert_eq!(s.pipe, 11);
        // Further SACKs drain the pipe; new data waits until pipe < cwnd.
        out.clear();
        for t in 4..9 {
            s.on_ack(100, &ack(0, t, 1, t + 1, 0), &mut cc, &mut out);
        }
        assert!(out.is_empty());
        assert_eq!(cc.cwnd(0), 6.0, "no growth in recovery");
        s.on_ack(100, &ack(0, 9, 1, 10, 0), &mut cc, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(s.stats.retransmissions, 1);
        // The cumulative ACK for everything ends recovery.
        let n = s.nxt;
        out.clear();
        s.on_ack(200, &ack(n, 0, 0, 0, 0), &mut cc, &mut out);
        assert!(!s.in_recovery);
        assert_eq!(s.pipe, out.len() as u64);
    }

    #[test]
    fn timeout_resends_from_una_and_backs_off() {
        let (mut s, mut cc, mut out) = setup();
        out.clear();
        let first = s.rto_deadline.unwrap();
        s.on_timeout(first, &mut cc, &mut out);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(cc.cwnd(0), 1.0);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].seq, 0);
        assert_eq!(s.rto_deadline.unwrap() - first, 2 * first);
    }

    const MS: Nanos = 1_000_000;

    fn linux() -> (Sender, Controller, Vec<Packet>) {
        let mut cc = build("reno", &Params::new()).unwrap();
        cc.add_subflow(0);
        let tcp = TcpConfig { profile: crate::profile::Profile::Linux, ..Default::default() };
        let mut s = Sender::new(0, 0, &tcp);
        s.set_app_bytes(u64::MAX);
        let mut out = Vec::new();
        s.send(0, &cc, &mut out);
        (s, cc, out)
    }

    /// An ACK the receiver sent for segment `trig` (sent at `ts`).
    fn sack(cum: u64, trig: u64, lo: u64, hi: u64, ts: Nanos) -> Packet {
        ack(cum, trig, lo, hi, ts)
    }

    #[test]
    fn rack_finds_a_lost_retransmission_within_an_rtt() {
        // RTT 100 ms. Segment 0 is lost, 1..9 arrive: RACK marks 0 lost and it is
        // retransmitted at 100 ms; that retransmission is lost too.
        let (mut s, mut cc, mut out) = linux();
        out.clear();
        for t in 1..10 {
            s.on_ack(100 * MS, &sack(0, t, 1, t + 1, 0), &mut cc, &mut out);
        }
        assert!(s.in_recovery);
        let first: Vec<_> = out.iter().filter(|p| p.seq == 0).map(|p| p.ts).collect();
        assert_eq!(first, vec![100 * MS], "segment 0 retransmitted once, at 100 ms");
        let later: Vec<Packet> = out.iter().filter(|p| p.seq >= 10).copied().collect();
        assert!(!later.is_empty(), "new data went out after the retransmission");
        // Segments sent after the retransmission are SACKed one RTT later; the
        // retransmission of 0 is not: it is lost again, found by RACK at once.
        out.clear();
        for p in &later {
            s.on_ack(p.ts + 100 * MS, &sack(0, p.seq, 1, p.seq + 1, p.ts), &mut cc, &mut out);
        }
        assert_eq!(s.stats.lost_retransmissions, 1);
        let again: Vec<_> = out.iter().filter(|p| p.seq == 0).map(|p| p.ts).collect();
        assert_eq!(again.len(), 1, "segment 0 retransmitted a second time");
        assert!(again[0] <= 100 * MS + 125 * MS, "within about one RTT of the first retransmission ({})", again[0]);
        assert_eq!(s.stats.timeouts, 0);
    }

    #[test]
    fn a_spurious_timeout_is_undone() {
        // Ten segments out at 0; the ACKs are delayed past the RTO (1 s).
        let (mut s, mut cc, mut out) = linux();
        out.clear();
        let before = (cc.cwnd(0), cc.ssthresh(0));
        // Without an RTT sample the probe would come with the RTO: take it away.
        s.tlp_at = None;
        s.rearm();
        let rto = s.rto_deadline.unwrap();
        assert_eq!(s.timer, Timer::Rto);
        s.on_timeout(rto, &mut cc, &mut out);
        assert_eq!(s.stats.timeouts, 1);
        assert_eq!(cc.cwnd(0), 1.0);
        // The ACK of the original segment 0 (sent at 0, before the retransmission).
        out.clear();
        s.on_ack(rto + 10 * MS, &ack(1, 0, 0, 0, 0), &mut cc, &mut out);
        assert_eq!(s.stats.spurious_timeouts, 1);
        assert_eq!((cc.cwnd(0), cc.ssthresh(0)), (before.0 + 1.0, before.1), "window restored (plus the ACK's growth)");
        assert!(!out.is_empty(), "the restored window sends at once");
    }

    /// The linux sender after a timeout with ten segments out since 0 (no probe
    /// first): segment 0 retransmitted, the window at one segment. ACKs from here on
    /// echo the retransmission's time, so timestamps cannot tell (RFC 5682 alone decides).
    fn timed_out() -> (Sender, Controller, Vec<Packet>, Nanos, (f64, f64)) {
        let (mut s, mut cc, mut out) = linux();
        let before = (cc.cwnd(0), cc.ssthresh(0));
        s.tlp_at = None;
        s.rearm();
        let rto = s.rto_deadline.unwrap();
        out.clear();
        s.on_timeout(rto, &mut cc, &mut out);
        assert_eq!((out.len(), out[0].seq, cc.cwnd(0)), (1, 0, 1.0), "segment 0 resent, window 1");
        (s, cc, out, rto, before)
    }

    #[test]
    fn frto_sends_new_data_then_undoes_a_spurious_timeout() {
        let (mut s, mut cc, mut out, rto, before) = timed_out();
        // Step 2b: the first ACK that advances lets two new segments out, not the
        // rest of the window again.
        out.clear();
        s.on_ack(rto + 10 * MS, &ack(1, 0, 0, 0, rto), &mut cc, &mut out);
        let seqs: Vec<u64> = out.iter().map(|p| p.seq).collect();
        assert_eq!(seqs, vec![10, 11], "two new segments (RFC 5682 2b)");
        assert_eq!(s.stats.spurious_timeouts, 0);
        // Step 3b: the next ACK advances over segment 1, sent only before the
        // timeout: the original window arrived; the timeout was spurious.
        out.clear();
        s.on_ack(rto + 20 * MS, &ack(2, 1, 0, 0, rto), &mut cc, &mut out);
        assert_eq!(s.stats.spurious_timeouts, 1);
        // Restored as it was before the timeout (growth since discarded), then
        // this ACK's slow-start step, as in `a_spurious_timeout_is_undone`.
        assert_eq!((cc.cwnd(0), cc.ssthresh(0)), (before.0 + 1.0, before.1), "the window before the timeout");
        assert_eq!(s.stats.retransmissions, 1, "only the timeout's retransmission");
    }

    #[test]
    fn frto_keeps_a_real_timeout_when_a_duplicate_ack_follows() {
        let (mut s, mut cc, mut out, rto, before) = timed_out();
        s.on_ack(rto + 10 * MS, &ack(1, 0, 0, 0, rto), &mut cc, &mut out);
        // Step 3a: a duplicate ACK (new segment 10 SACKed, 1 still missing): the
        // segments sent before the timeout were lost; recovery goes on as after
        // any timeout, and nothing is undone.
        out.clear();
        s.on_ack(rto + 20 * MS, &sack(1, 10, 10, 11, rto), &mut cc, &mut out);
        s.on_ack(rto + 30 * MS, &ack(2, 1, 0, 0, rto), &mut cc, &mut out);
        assert_eq!(s.stats.spurious_timeouts, 0);
        assert_eq!(before.1, f64::INFINITY);
        assert_eq!(cc.ssthresh(0), 5.0, "the timeout's reduction stays (half of ten in flight)");
        assert!(cc.cwnd(0) <= 4.0, "slow start from one segment ({})", cc.cwnd(0));
        assert!(s.stats.retransmissions > 1, "the lost window is resent");
    }

    #[test]
    fn a_tail_loss_is_probed_not_timed_out() {
        // All ten segments of the initial window are acknowledged but the last.
        let (mut s, mut cc, mut out) = linux();
        s.set_app_bytes(10 * 1448);
        out.clear();
        for t in 0..9 {
            s.on_ack(100 * MS, &ack(t + 1, t, 0, 0, 0), &mut cc, &mut out);
        }
        assert_eq!(s.timer, Timer::Probe);
        let at = s.rto_deadline.unwrap();
        assert!(at < 100 * MS + 500 * MS, "PTO well before the RTO ({at})");
        s.on_timeout(at, &mut cc, &mut out);
        assert_eq!(s.stats.tlp_probes, 1);
        assert_eq!(out.last().unwrap().seq, 9, "the probe resends the tail");
        assert_eq!(s.stats.timeouts, 0);
    }

    /// The linux sender with `tlp_dsack` set: ten segments out at 0, all but the
    /// last acknowledged at 100 ms, the probe fired (it resends segment 9).
    fn probed_tail(tlp_dsack: bool) -> (Sender, Controller, Vec<Packet>, Nanos) {
        let mut cc = build("reno", &Params::new()).unwrap();
        cc.add_subflow(0);
        let tcp =
            TcpConfig { profile: crate::profile::Profile::Linux, tlp_dsack: Some(tlp_dsack), ..Default::default() };
        let mut s = Sender::new(0, 0, &tcp);
        s.set_app_bytes(10 * 1448);
        let mut out = Vec::new();
        s.send(0, &cc, &mut out);
        for t in 0..9 {
            s.on_ack(100 * MS, &ack(t + 1, t, 0, 0, 0), &mut cc, &mut out);
        }
        let at = s.rto_deadline.unwrap();
        assert_eq!(s.timer, Timer::Probe);
        out.clear();
        s.on_timeout(at, &mut cc, &mut out);
        assert_eq!((out.len(), out[0].seq, s.stats.tlp_probes), (1, 9, 1), "the probe resends the tail");
        (s, cc, out, at)
    }

    #[test]
    fn a_dsack_of_the_probe_spares_the_reduction() {
        // The original segment 9 was only late: its ACK reaches the probe's end, then
        // the probe's copy comes back as a DSACK [9, 10).
        for on in [false, true] {
            let (mut s, mut cc, mut out, at) = probed_tail(on);
            let before = cc.cwnd(0);
            s.on_ack(at + 10 * MS, &acks(10, 9, &[], 0), &mut cc, &mut out);
            s.on_ack(at + 110 * MS, &acks(10, 9, &[(9, 10)], at), &mut cc, &mut out);
            assert_eq!(s.stats.dsacks, 1);
            assert!(s.tlp_high.is_none(), "the episode is over");
            if on {
                assert!(cc.cwnd(0) >= before, "no reduction: {} -> {}", before, cc.cwnd(0));
            } else {
                assert!(
                    cc.cwnd(0) < 0.6 * before,
                    "without the switch the probe's ACK reduces: {} -> {}",
                    before,
                    cc.cwnd(0)
                );
            }
        }
        // The original was lost and the probe repaired it: the ACK at the probe's end
        // waits, the next one beyond it reduces once.
        let (mut s, mut cc, mut out, at) = probed_tail(true);
        let before = cc.cwnd(0);
        s.set_app_bytes(11 * 1448);
        s.on_ack(at + 100 * MS, &acks(10, 9, &[], at), &mut cc, &mut out);
        assert!(s.tlp_high.is_some() && cc.cwnd(0) >= before, "at the probe's end: not yet");
        assert_eq!(out.last().map(|p| p.seq), Some(10), "new data after the probe");
        s.on_ack(at + 200 * MS, &acks(11, 10, &[], at + 100 * MS), &mut cc, &mut out);
        assert!(s.tlp_high.is_none());
        assert!(cc.cwnd(0) < 0.6 * before, "reduced, by the ACK beyond the probe: {} -> {}", before, cc.cwnd(0));
        assert_eq!(cc.ssthresh(0), (before + 1.0) / 2.0, "once: half the window the probe's end grew to");
        // A pure duplicate ACK at the probe's end: both copies arrived, no reduction.
        let (mut s, mut cc, mut out, at) = probed_tail(true);
        let before = cc.cwnd(0);
        s.on_ack(at + 10 * MS, &acks(10, 9, &[], 0), &mut cc, &mut out);
        s.on_ack(at + 110 * MS, &acks(10, 9, &[], at), &mut cc, &mut out);
        assert!(s.tlp_high.is_none() && cc.cwnd(0) >= before);
    }

    #[test]
    fn the_rfc_profile_arms_only_the_rto() {
        let (s, _, _) = setup();
        assert_eq!(s.timer, Timer::Rto);
        assert_eq!(s.rto_deadline, Some(1_000_000_000));
    }

    fn with(tcp: TcpConfig) -> (Sender, Controller, Vec<Packet>) {
        let mut cc = build("reno", &Params::new()).unwrap();
        cc.add_subflow(0);
        let mut s = Sender::new(0, 0, &tcp);
        s.set_app_bytes(u64::MAX);
        let mut out = Vec::new();
        s.send(0, &cc, &mut out);
        (s, cc, out)
    }

    /// An ACK with SACK blocks, first to last.
    fn acks(cum: u64, trig: u64, blocks: &[(u64, u64)], ts: Nanos) -> Packet {
        let mut p = Packet::ack(0, 0, 52, cum, ts, 0, trig, u64::MAX);
        for &(lo, hi) in blocks {
            assert!(p.push_sack(lo, hi));
        }
        p
    }

    fn three_blocks() -> TcpConfig {
        TcpConfig { sack_blocks: Some(3), ..Default::default() }
    }

    #[test]
    fn every_block_of_an_ack_marks_the_scoreboard() {
        let (mut s, mut cc, mut out) = with(three_blocks());
        out.clear();
        // Holes at 0, 2, 4; the ACKs reporting 1 and 3 are lost. The third carries all three blocks.
        s.on_ack(100 * MS, &acks(0, 5, &[(5, 6), (3, 4), (1, 2)], 0), &mut cc, &mut out);
        assert_eq!(s.sacked_out, 3);
        assert!(s.in_recovery, "three segments SACKed above the hole at 0");
        assert_eq!(s.pipe, s.pipe_recount());
        // A repeated block that grew at its lower edge: only the new segment is new.
        s.on_ack(100 * MS, &acks(0, 2, &[(2, 4), (5, 6), (1, 2)], 0), &mut cc, &mut out);
        assert_eq!(s.sacked_out, 4);
        assert_eq!(s.pipe, s.pipe_recount());
        // A block below the cumulative ACK (a DSACK) marks nothing.
        s.on_ack(100 * MS, &acks(4, 0, &[(0, 1), (5, 6)], 0), &mut cc, &mut out);
        assert_eq!((s.una, s.sacked_out, s.stats.dsacks), (4, 1, 1));
        assert_eq!(s.pipe, s.pipe_recount());
    }

    #[test]
    fn one_block_per_ack_grows_the_triggering_block_only() {
        // The rfc profile reads only the first block, grown from the triggering segment.
        let (mut s, mut cc, mut out) = with(TcpConfig::default());
        out.clear();
        s.on_ack(100 * MS, &acks(0, 5, &[(5, 6), (3, 4), (1, 2)], 0), &mut cc, &mut out);
        assert_eq!(s.sacked_out, 1);
    }

    /// A spurious fast retransmit: segment 0 is delayed, 1..3 arrive first.
    fn spurious_fast_retransmit(tcp: TcpConfig) -> (Sender, Controller, (f64, f64)) {
        let (mut s, mut cc, mut out) = with(tcp);
        out.clear();
        s.on_ack(100 * MS, &acks(0, 1, &[(1, 2)], 0), &mut cc, &mut out);
        s.on_ack(100 * MS, &acks(0, 2, &[(1, 3)], 0), &mut cc, &mut out);
        let before = (cc.cwnd(0), cc.ssthresh(0));
        s.on_ack(100 * MS, &acks(0, 3, &[(1, 4)], 0), &mut cc, &mut out);
        assert!(s.in_recovery);
        assert_eq!(s.stats.retransmissions, 1);
        assert!(cc.cwnd(0) < before.0);
        // The original arrives: everything is acknowledged and recovery ends. Its
        // ACK is lost; the next one echoes a later segment, so timestamps cannot tell.
        let n = s.nxt;
        s.on_ack(150 * MS, &acks(n, n - 1, &[], 100 * MS), &mut cc, &mut out);
        assert!(!s.in_recovery);
        assert_eq!(s.stats.undone_recoveries, 0);
        (s, cc, before)
    }

    #[test]
    fn a_dsack_undoes_a_spurious_fast_retransmit_exactly() {
        let tcp = TcpConfig { undo: Some(true), dsack: Some(true), ..three_blocks() };
        let (mut s, mut cc, before) = spurious_fast_retransmit(tcp);
        let mut out = Vec::new();
        // The retransmission of 0 arrives as a duplicate: a DSACK below the cumulative ACK.
        let n = s.una;
        s.on_ack(200 * MS, &acks(n, 0, &[(0, 1)], 100 * MS), &mut cc, &mut out);
        assert_eq!((s.stats.dsacks, s.stats.undone_recoveries), (1, 1));
        assert_eq!((cc.cwnd(0), cc.ssthresh(0)), before, "the window before the reduction, exactly");
        // A second DSACK of the same episode does nothing more.
        let cwnd = cc.cwnd(0);
        s.on_ack(210 * MS, &acks(s.una, 0, &[(0, 1)], 100 * MS), &mut cc, &mut out);
        assert_eq!((s.stats.dsacks, s.stats.undone_recoveries, cc.cwnd(0)), (2, 1, cwnd));
    }

    #[test]
    fn no_undo_without_dsack_or_while_a_retransmission_is_unaccounted() {
        // DSACK off: the duplicate's block is counted but changes nothing.
        let tcp = TcpConfig { undo: Some(true), dsack: Some(false), ..three_blocks() };
        let (mut s, mut cc, _) = spurious_fast_retransmit(tcp);
        let cwnd = cc.cwnd(0);
        s.on_ack(200 * MS, &acks(s.una, 0, &[(0, 1)], 100 * MS), &mut cc, &mut out_vec());
        assert_eq!((s.stats.dsacks, s.stats.undone_recoveries, cc.cwnd(0)), (1, 0, cwnd));
        // Two retransmissions, one reported duplicate: the other may have repaired a loss.
        let tcp = TcpConfig { undo: Some(true), dsack: Some(true), ..three_blocks() };
        let (mut s, mut cc, mut out) = with(tcp);
        out.clear();
        let mut t = 3;
        while s.stats.retransmissions < 3 {
            s.on_ack(100 * MS, &acks(0, t, &[(3, t + 1)], 0), &mut cc, &mut out);
            t += 1;
        }
        assert_eq!(out.iter().filter(|p| p.seq < 3).count(), 3, "0, 1 and 2 lost by DupThresh and resent");
        let cwnd = cc.cwnd(0);
        s.on_ack(200 * MS, &acks(3, 2, &[(3, t)], 100 * MS), &mut cc, &mut out);
        s.on_ack(210 * MS, &acks(3, 0, &[(0, 1), (3, t)], 100 * MS), &mut cc, &mut out);
        s.on_ack(220 * MS, &acks(3, 0, &[(0, 1), (3, t)], 100 * MS), &mut cc, &mut out);
        assert_eq!((s.stats.dsacks, s.stats.undone_recoveries), (2, 0), "a retransmission still unaccounted for");
        assert!(cc.cwnd(0) <= cwnd);
        s.on_ack(230 * MS, &acks(3, 1, &[(1, 3), (3, t)], 100 * MS), &mut cc, &mut out);
        assert_eq!(s.stats.undone_recoveries, 1, "every retransmission reported duplicate");
    }

    fn out_vec() -> Vec<Packet> {
        Vec::new()
    }

    #[test]
    fn a_dsack_widens_rack_reordering_window_once_per_round_trip() {
        let tcp = TcpConfig { profile: crate::profile::Profile::Linux, ..Default::default() };
        let (mut s, mut cc, mut out) = with(tcp);
        out.clear();
        s.on_ack(100 * MS, &acks(1, 0, &[], 0), &mut cc, &mut out);
        let base = s.reo_wnd();
        assert_eq!(base, 25 * MS, "min_rtt / 4");
        s.on_ack(101 * MS, &acks(2, 0, &[(0, 1)], 0), &mut cc, &mut out);
        assert_eq!(s.reo_wnd(), 50 * MS);
        s.on_ack(102 * MS, &acks(3, 0, &[(0, 1)], 0), &mut cc, &mut out);
        assert_eq!(s.reo_wnd(), 50 * MS, "at most once per round trip");
        let n = s.nxt;
        s.on_ack(200 * MS, &acks(n, 0, &[], 100 * MS), &mut cc, &mut out);
        s.on_ack(201 * MS, &acks(n, 0, &[(0, 1)], 100 * MS), &mut cc, &mut out);
        assert_eq!(s.reo_wnd(), 75 * MS);
        assert_eq!(s.stats.dsacks, 3);
    }

    fn rfc() -> TcpConfig {
        TcpConfig { profile: crate::profile::Profile::Rfc, ..Default::default() }
    }

    /// `sack_growth` off and `ack_counting` (ns-3's ProcessAck, TcpNewReno): an ACK
    /// of two segments grows slow start by one, a SACK-only ACK and an advancing ACK
    /// with new SACK information by nothing; the textbook sender grows by each.
    #[test]
    fn ns3_growth_is_per_advancing_ack_without_new_sack() {
        let (mut s, mut cc, mut out) = setup();
        s.on_ack(100, &ack(2, 1, 0, 0, 0), &mut cc, &mut out);
        assert_eq!(cc.cwnd(0), 12.0, "rfc: two segments, two more");
        s.on_ack(100, &ack(2, 3, 3, 4, 0), &mut cc, &mut out);
        assert_eq!(cc.cwnd(0), 13.0, "rfc: a SACKed segment grows it");

        let (mut s, mut cc, mut out) = with(TcpConfig { sack_growth: Some(false), ack_counting: Some(true), ..rfc() });
        s.on_ack(100, &ack(2, 1, 0, 0, 0), &mut cc, &mut out);
        assert_eq!(cc.cwnd(0), 11.0, "one step per ACK");
        s.on_ack(100, &ack(2, 3, 3, 4, 0), &mut cc, &mut out);
        assert_eq!(cc.cwnd(0), 11.0, "a duplicate ACK does not grow it");
        s.on_ack(100, &ack(3, 4, 4, 5, 0), &mut cc, &mut out);
        assert_eq!(cc.cwnd(0), 11.0, "advancing, but with new SACK information");
        s.on_ack(100, &ack(6, 5, 0, 0, 0), &mut cc, &mut out);
        assert_eq!(cc.cwnd(0), 12.0);
    }

    /// ns-3's exit from CA_LOSS: the ACK that reaches the timeout's recovery point
    /// (segment 10 here) grows the window by the segments beyond it only, none here;
    /// the ACK before it grows as usual. The rfc profile grows on both.
    #[test]
    fn ns3_growth_ends_a_timeouts_recovery_at_its_recovery_point() {
        for ns3 in [false, true] {
            let (mut s, mut cc, mut out) = with(TcpConfig { sack_growth: Some(!ns3), ..rfc() });
            s.on_timeout(1_000, &mut cc, &mut out);
            let w0 = cc.cwnd(0);
            s.on_ack(1_100, &ack(1, 0, 0, 0, 0), &mut cc, &mut out);
            let w1 = cc.cwnd(0);
            assert!(w1 > w0, "ns3 {ns3}: the partial ACK grows the window");
            s.on_ack(1_200, &ack(10, 1, 0, 0, 0), &mut cc, &mut out);
            assert_eq!(cc.cwnd(0) == w1, ns3, "ns3 {ns3}: the ACK of the recovery point");
        }
    }

    /// Segment 0 lost, 1-3 SACKed: 14 sent (four by the SACKs), pipe 10 at entry.
    fn enter_recovery(s: &mut Sender, cc: &mut Controller, out: &mut Vec<Packet>) {
        for t in 1..4 {
            s.on_ack(100, &ack(0, t, 1, t + 1, 0), cc, out);
        }
        assert!(s.in_recovery);
    }

    /// `ssthresh_from_flight` (ns-3's TcpNewReno::GetSsThresh and ReTxTimeout):
    /// half the flight, not half of cwnd; a second timeout while the first one's
    /// retransmission of the head is outstanding keeps ssthresh.
    #[test]
    fn ssthresh_from_the_flight_and_once_per_timeout_episode() {
        let (mut s, mut cc, mut out) = setup();
        enter_recovery(&mut s, &mut cc, &mut out);
        assert_eq!(cc.ssthresh(0), 6.0, "rfc: cwnd 12 / 2");
        for keep in [false, true] {
            let (mut s, mut cc, mut out) = with(TcpConfig { ssthresh_from_flight: Some(keep), ..rfc() });
            enter_recovery(&mut s, &mut cc, &mut out);
            if !keep {
                continue;
            }
            assert_eq!(cc.ssthresh(0), 5.0, "pipe 10 / 2");
            let first = s.rto_deadline.unwrap();
            s.on_timeout(first, &mut cc, &mut out);
            assert_eq!(cc.ssthresh(0), 5.5, "pipe 11 / 2");
            assert_eq!(s.pipe, 1, "the head retransmitted");
            s.on_timeout(s.rto_deadline.unwrap(), &mut cc, &mut out);
            assert_eq!((cc.ssthresh(0), cc.cwnd(0)), (5.5, 1.0), "kept; the window still restarts");
        }
        // Without the switch the second timeout halves one segment in flight: 2.
        let (mut s, mut cc, mut out) = setup();
        enter_recovery(&mut s, &mut cc, &mut out);
        s.on_timeout(s.rto_deadline.unwrap(), &mut cc, &mut out);
        s.on_timeout(s.rto_deadline.unwrap(), &mut cc, &mut out);
        assert_eq!(cc.ssthresh(0), 2.0);
    }

    /// `rto_on_retransmit` off (ns-3's SendDataPacket): the fast retransmission
    /// leaves the timer where the last ACK set it. `rto_impatient` (ns-3's
    /// m_isFirstPartialAck): only the first partial ACK of a recovery restarts it.
    #[test]
    fn ns3_retransmission_timer_restarts() {
        // 1 s before the first sample, then the 200 ms minimum (samples of 100 ns).
        let rto = 200_000_000;
        let (mut s, mut cc, mut out) = setup();
        enter_recovery(&mut s, &mut cc, &mut out);
        assert_eq!(s.rto_deadline, Some(100 + rto), "rfc: restarted by the retransmission");
        for impatient in [false, true] {
            let tcp = TcpConfig { rto_on_retransmit: Some(false), rto_impatient: Some(impatient), ..rfc() };
            let (mut s, mut cc, mut out) = with(tcp);
            enter_recovery(&mut s, &mut cc, &mut out);
            assert_eq!(s.rto_deadline, Some(1_000_000_000), "from the first transmission at 0");
            // Segment 4 lost too: 5-9 SACKed, then two partial ACKs.
            for t in 5..10 {
                s.on_ack(150, &ack(0, t, 1, t + 1, 0), &mut cc, &mut out);
            }
            s.on_ack(200, &ack(4, 0, 0, 0, 0), &mut cc, &mut out);
            assert!(s.in_recovery);
            assert_eq!(s.rto_deadline, Some(200 + rto), "the first partial ACK restarts it");
            s.on_ack(300, &ack(4, 11, 11, 12, 0), &mut cc, &mut out);
            s.on_ack(400, &ack(10, 4, 0, 0, 0), &mut cc, &mut out);
            assert!(s.in_recovery, "14 > 10: still a partial ACK");
            let want = if impatient { 200 + rto } else { 400 + rto };
            assert_eq!(s.rto_deadline, Some(want));
        }
    }

    /// `prr_ns3` (ns-3's TcpPrrRecovery::DoRecovery, as traced in ns-3 3.44 on
    /// `ns3_recovery_loss_5`): recovery flight 8, ssthresh 4. The entry ACK counts
    /// one more; each duplicate ACK counts two (one delivered, one credited) while
    /// below the flight size, then one; the proportional count rounds down (ns-3
    /// sends only whole segments), where RFC 6937's ceiling would send one more.
    /// RFC 6937's own example (section 4): a window of 20, one loss, Reno's ssthresh 10.
    /// While pipe is above ssthresh PRR sends one segment for every two delivered
    /// (sndcnt = ceil(prr_delivered x ssthresh / RecoverFS) - prr_out), so the window
    /// comes down to ssthresh by the end of the round; below ssthresh the slow-start
    /// reduction bound lets it grow back at most one segment faster than delivery.
    #[test]
    fn prr_follows_rfc_6937s_example() {
        let (mut s, mut cc, _out) = with(TcpConfig { prr: Some(true), ..rfc() });
        cc.set_ssthresh(0, 10.0);
        s.in_recovery = true;
        s.recover_fs = 20;
        s.pipe = 19;
        let mut sent = Vec::new();
        for delivered in 1..=20 {
            s.prr_delivered = delivered;
            let n = s.prr_sndcnt(&cc);
            s.prr_out += n;
            sent.push(n);
        }
        assert_eq!(sent, [1, 0].repeat(10), "one segment per two delivered");
        assert_eq!(s.prr_out, 10, "ssthresh's worth by the end of the round");
        // Below ssthresh (pipe 4 of 10): at most delivered - sent + 1 (SSRB), and no
        // more than ssthresh - pipe.
        s.pipe = 4;
        s.prr_delivered = 22;
        s.prr_out = 20;
        s.prr_last = 1;
        assert_eq!(s.prr_sndcnt(&cc), 3, "max(22 - 20, 1) + 1");
        s.prr_out = 10;
        assert_eq!(s.prr_sndcnt(&cc), 6, "ssthresh - pipe");
    }

    #[test]
    fn ns3_prr_accounting() {
        let (mut s, _cc, _out) = with(TcpConfig { prr: Some(true), prr_ns3: Some(true), ..rfc() });
        s.in_recovery = true;
        s.recover_fs = 8;
        s.pipe = 8;
        s.prr_delivered = 1 + 1; // TcpPrrRecovery::EnterRecovery: the ACK as a duplicate
        s.prr_out = 0;
        assert_eq!(s.prr_ns3_sndcnt(4.0), 1); // ceil(2 x 4 / 8) in bytes, at least the retransmission
        s.prr_out = 1;
        for (pd, sent) in [(4, 2), (6, 3), (8, 4)] {
            s.prr_ns3_ack(1, false, true, false);
            assert_eq!(s.prr_delivered, pd);
            assert_eq!(s.prr_ns3_sndcnt(4.0), 1, "one segment per duplicate ACK while below the flight size");
            s.prr_out = sent;
        }
        s.prr_ns3_ack(1, false, true, false);
        assert_eq!(s.prr_delivered, 9, "no credit at the flight size");
        assert_eq!(s.prr_ns3_sndcnt(4.0), 0, "floor(4.5) - 4: ns-3 sets cwnd half a segment above pipe");
        s.prr_ns3_ack(1, false, true, false);
        assert_eq!(s.prr_ns3_sndcnt(4.0), 1, "5 - 4");
        // Below ssthresh: PRR-CRB, PRR-SSRB's extra segment only when the ACK
        // acknowledges a retransmission.
        s.pipe = 2;
        s.prr_out = 10;
        s.prr_ns3_ack(1, true, false, false);
        assert_eq!(s.prr_ns3_sndcnt(4.0), 1, "CRB: max(11 - 10, 1)");
        s.prr_ns3_ack(1, true, false, true);
        assert_eq!(s.prr_ns3_sndcnt(4.0), 2, "SSRB: max(12 - 10, 1) + 1, at most ssthresh - pipe");
    }
}
