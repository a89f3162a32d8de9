//! Builds links and flows from the canonical configuration, checking everything
//! the simulator relies on. Errors name the field and what is allowed.

use crate::config::{CapacityConfig, Config, FlowConfig, TcpConfig};
use crate::conn::{AppTiming, DataReceiver, DataSender};
use crate::flow::{Flow, FlowCounters, ReverseRoute, Subflow};
use crate::ids::LinkId;
use crate::link::{Link, LinkStats};
use crate::metrics::{Quantiles, RttStats};
use crate::tcp::{Receiver, Sender};
use mpcc_algo::sched;
use mpcc_algo::{CongestionControl, Params};
use mpcc_core::{Nanos, Rng};
use mpcc_net::queue::QueueEnv;
use mpcc_net::{Capacity, LossModel, Queue};

/// Controllers whose window grows by the segments an ACK delivers even in a profile with
/// `ack_counting` (ns3): `cubic` as ns-3's TcpCubic (TcpCubic::IncreaseWindow), `mpmtp`
/// because its fairness factor balances an increase per delivered packet (Lee & Chung,
/// Eq. 26; docs/algorithms/mpmtp.md). An explicit `tcp.ack_counting` wins.
const SEGMENT_COUNTING: [&str; 2] = ["cubic", "mpmtp"];

/// Random-stream numbers: each component draws from its own stream of the seed.
const STREAM_LINK_LOSS: u64 = 1 << 32;
const STREAM_LINK_CAPACITY: u64 = 2 << 32;
const STREAM_LINK_QUEUE: u64 = 3 << 32;
const STREAM_APP: u64 = 4 << 32;
const STREAM_HOST_JITTER: u64 = 5 << 32;

/// The random stream of flow `flow`'s subflow `sf`'s host (its jitter).
fn host_rng(seed: u64, flow: usize, sf: usize) -> Rng {
    Rng::stream(seed, STREAM_HOST_JITTER + ((flow as u64) << 12) + sf as u64)
}

pub fn links(cfg: &Config) -> Result<Vec<Link>, String> {
    let mut out = Vec::with_capacity(cfg.links.len());
    for (i, lc) in cfg.links.iter().enumerate() {
        let LinkModels { capacity, queue, loss } = link_models(cfg, i)?;
        out.push(Link {
            name: lc.name.clone(),
            queue,
            capacity,
            lossy: !loss.is_lossless(),
            loss,
            delay: lc.delay_ns,
            busy: false,
            tx_from: 0,
            tx_until: 0,
            pipe: std::collections::VecDeque::with_capacity(64),
            stats: LinkStats::default(),
            may_defer: false,
            deferred: None,
            queue_delay: Quantiles::new(cfg.exact_percentiles),
        });
    }
    Ok(out)
}

/// The models of one link, with the random streams the simulator gives them: the
/// testbed's link emulator (crates/mpcc-emu) builds its links here too, so that
/// both apply the same capacity, queue and loss to the same seed.
pub struct LinkModels<P> {
    pub capacity: Capacity,
    pub queue: Queue<P>,
    pub loss: LossModel,
}

/// Builds link `i` of `cfg`; errors name the link's field and what is allowed.
pub fn link_models<P: Copy + 'static>(cfg: &Config, i: usize) -> Result<LinkModels<P>, String> {
    let lc = &cfg.links[i];
    let field = |f: &str| format!("links.{}.{}", lc.name, f);
    let at = |e: String| format!("{}: {e}", field("capacity"));
    let capacity = match &lc.capacity {
        CapacityConfig::Constant { bps } => {
            if !(bps.is_finite() && *bps > 0.0) {
                return Err(format!("{}: {bps} bit/s; allowed: a positive rate", field("rate")));
            }
            Capacity::constant(*bps).map_err(at)?
        }
        CapacityConfig::Schedule { steps, period_ns } => Capacity::schedule(steps, *period_ns).map_err(at)?,
        CapacityConfig::RandomWalk { initial_bps, min_bps, max_bps, step_ns, sigma } => {
            let rng = Rng::stream(cfg.seed, STREAM_LINK_CAPACITY + i as u64);
            Capacity::random_walk(*initial_bps, *min_bps, *max_bps, *step_ns, *sigma, rng).map_err(at)?
        }
        CapacityConfig::Trace { path, bytes_per_opportunity } => {
            Capacity::from_mahimahi_file(path, *bytes_per_opportunity).map_err(at)?
        }
    };
    let queue_field = field("queue");
    let env = QueueEnv { link_bps: capacity.nominal_bps(), rng: Rng::stream(cfg.seed, STREAM_LINK_QUEUE + i as u64) };
    let queue = lc
        .queue
        .params()
        .and_then(|params| mpcc_net::queue::build(&lc.queue.kind, &params, env))
        .map_err(|e| e.line(&queue_field))?;
    let rng = Rng::stream(cfg.seed, STREAM_LINK_LOSS + i as u64);
    let loss = lc
        .loss
        .params()
        .and_then(|params| mpcc_net::loss::build(&lc.loss.kind, &params, rng))
        .map_err(|e| e.line(&field("loss")))?;
    Ok(LinkModels { capacity, queue, loss })
}

pub fn flows(cfg: &Config, links: &[Link]) -> Result<Vec<Flow>, String> {
    let mut out = Vec::with_capacity(cfg.flows.len());
    for (i, fc) in cfg.flows.iter().enumerate() {
        let field = |f: &str| format!("flows.{}.{}", fc.name, f);
        let check_route = |r: &[usize], name: &str| -> Result<Vec<LinkId>, String> {
            if r.is_empty() {
                return Err(format!("{}: empty; allowed: a list of one or more link names", field(name)));
            }
            if r.len() > u16::MAX as usize {
                return Err(format!("{}: too many hops", field(name)));
            }
            r.iter()
                .map(|&l| {
                    if l < links.len() {
                        Ok(LinkId(l as u32))
                    } else {
                        Err(format!(
                            "{}: link index {l} does not exist; {} links are defined",
                            field(name),
                            links.len()
                        ))
                    }
                })
                .collect()
        };
        let tcp = &fc.tcp;
        if tcp.mss == 0 || tcp.mss > 65_000 {
            return Err(format!("{}: {}; allowed: 1 to 65000 bytes", field("tcp.mss"), tcp.mss));
        }
        if tcp.dupthresh == 0 || tcp.dupthresh as usize > crate::tcp::sender::MAX_DUPTHRESH {
            return Err(format!(
                "{}: {}; allowed: 1 to {}",
                field("tcp.dupthresh"),
                tcp.dupthresh,
                crate::tcp::sender::MAX_DUPTHRESH
            ));
        }
        if let Some(b) = tcp.init_ssthresh_bytes {
            if b < 2 * tcp.mss as u64 {
                return Err(format!(
                    "{}: {b}; allowed: at least 2 segments ({} bytes)",
                    field("tcp.init_ssthresh_bytes"),
                    2 * tcp.mss
                ));
            }
        }
        let mut params = Params(fc.cc_params.clone());
        // A controller with HyStart takes the profile's switch unless the scenario sets it.
        let info = mpcc_algo::registry::check(&fc.cc, &params).map_err(|e| format!("{}: {e}", field("cc")))?;
        if info.params.iter().any(|p| p.name == "hystart") && !params.0.contains_key("hystart") {
            let m = tcp.mechanisms();
            let hystart = match (m.hystart, m.hystart_ns3) {
                (false, _) => 0.0,
                (true, false) => 1.0, // Linux's thresholds
                (true, true) => 2.0,  // ns-3's
            };
            params.0.insert("hystart".into(), hystart);
        }
        // The profile's choices of controller rules (CUBIC's arithmetic, the ns-3
        // variants; Profile::cc_param_defaults), unless the scenario sets them.
        for (name, value) in tcp.profile.cc_param_defaults() {
            if info.params.iter().any(|p| p.name == name) && !params.0.contains_key(name) {
                params.0.insert(name.into(), value);
            }
        }
        let mut cc = mpcc_algo::build(&fc.cc, &params).map_err(|e| format!("{}: {e}", field("cc")))?;
        let app_bytes = fc.app.bytes();
        // The connection's receive buffer bounds the data level; subflow receivers
        // hold only data inside it, so they need no limit of their own.
        let buf_segs = match tcp.rcv_buf_bytes {
            Some(b) => (b / tcp.mss as u64).max(1),
            None => u64::MAX / 4,
        };
        // The senders' configuration: the profile's ACK counting (ns-3's TcpNewReno) does
        // not apply to the controllers that count segments (SEGMENT_COUNTING). Until
        // 2026-11-26 this override reached only the receivers, so `cubic` counted ACKs too.
        let mut snd_tcp = tcp.clone();
        if SEGMENT_COUNTING.contains(&fc.cc.as_str()) && snd_tcp.ack_counting.is_none() {
            snd_tcp.ack_counting = Some(false);
        }
        let sub_tcp = TcpConfig { rcv_buf_bytes: None, ..snd_tcp.clone() };
        let specs = subflow_specs(fc)?;
        let mut subs = Vec::with_capacity(specs.len());
        for (k, spec) in specs.into_iter().enumerate() {
            let SubflowSpec { path, reverse, start, stop, cost } = spec;
            let (path_field, rev_field) = match &fc.path {
                Some(_) => ("path".to_string(), "reverse_path".to_string()),
                None => (format!("subflows.{k}.path"), format!("subflows.{k}.reverse_path")),
            };
            let fwd = check_route(path, &path_field)?;
            let rev = match reverse {
                Some(r) => ReverseRoute::Links(check_route(r, &rev_field)?),
                None => {
                    ReverseRoute::Delay(fwd.iter().fold(0, |d: Nanos, &l| d.saturating_add(links[l.0 as usize].delay)))
                }
            };
            // Subflow ids are dense and equal to the index in `subs`.
            let sf = cc.add_subflow(start);
            if let Some(b) = tcp.init_ssthresh_bytes {
                mpcc_algo::CongestionControl::set_ssthresh(&mut cc, sf, b as f64 / tcp.mss as f64);
            }
            let mut rcv = Receiver::new(i as u32, &sub_tcp);
            rcv.sub = sf as u16;
            // The sending host's NIC (host.rs): at the first link's rate unless given.
            let mech = tcp.mechanisms();
            let nic = (mech.nic_backpressure || mech.pacing || mech.host_jitter_ns > 0).then(|| {
                let rate =
                    tcp.nic_rate_bps.map_or_else(|| links[fwd[0].0 as usize].capacity.nominal_bps(), |r| r as f64);
                let rng = host_rng(cfg.seed, i, sf);
                let mut nic = crate::host::Nic::new(rate, mech.pacing, mech.nic_backpressure, mech.host_jitter_ns, rng);
                nic.linux_pacing = mech.linux_pacing;
                nic.header_bytes = tcp.header_bytes;
                nic
            });
            subs.push(Subflow {
                nic,
                snd: Sender::new(i as u32, sf, &snd_tcp),
                rcv,
                fwd,
                rev,
                ack_pipe: std::collections::VecDeque::with_capacity(8),
                start,
                stop,
                active: false,
                usable: false,
                cwnd: 0,
                rtt: RttStats::new(cfg.exact_percentiles),
                drops: 0,
                cost_per_mbit: cost,
                last_arrival: 0,
                stale: false,
                acks_in_place: false,
                stale_marks: 0,
                ack_clock: None,
                hs: Default::default(),
                base: FlowCounters::default(),
            });
        }
        let n_subs = subs.len();
        let sched_name = fc.scheduler.as_deref().unwrap_or(sched::DEFAULT);
        let costs: Vec<f64> = subs.iter().map(|s| s.cost_per_mbit).collect();
        let hops: Vec<usize> = subs.iter().map(|s| s.fwd.len()).collect();
        let setup = sched::Setup {
            n: n_subs,
            costs: &costs,
            hops: &hops,
            mss: tcp.mss,
            count_from: fc.start_ns.max(cfg.warmup_ns),
        };
        // The error starts with the field it concerns (scheduler or scheduler_params.<name>).
        let sched = sched::build(sched_name, &fc.scheduler_params, &setup).map_err(|e| field(&e))?;
        if sched::Scheduler::paces(&sched) {
            // The scheduler sets the subflows' pacing rates: they send through the
            // host's pacing (host.rs), with no line rate unless a NIC switch is on.
            for (sf, s) in subs.iter_mut().enumerate() {
                let rng = host_rng(cfg.seed, i, sf);
                s.nic.get_or_insert_with(|| crate::host::Nic::new(f64::INFINITY, false, false, 0, rng)).sched_paced =
                    true;
            }
        }
        // Likewise `receiver` or `receiver_params.<name>`.
        let rx_name = fc.receiver.as_deref().unwrap_or(mpcc_algo::receiver::DEFAULT);
        let rctl = mpcc_algo::receiver::RxController::build(rx_name, &fc.receiver_params, subs.len())
            .map_err(|e| field(&e))?;
        if !rctl.is_none() {
            for s in &mut subs {
                s.ack_clock = Some(crate::tcp::AckClock::default());
            }
        }
        // A Web request reaches the server over the first subflow's reverse route
        // (propagation only: requests are small).
        let req_delay = match &subs[0].rev {
            ReverseRoute::Delay(d) => *d,
            ReverseRoute::Links(r) => r.iter().fold(0, |d: Nanos, &l| d.saturating_add(links[l.0 as usize].delay)),
        };
        let env = crate::app::AppEnv {
            field: &field,
            mss: tcp.mss,
            send_buf: tcp.send_buf_bytes,
            rng: Rng::stream(cfg.seed, STREAM_APP + i as u64),
            count_from: fc.start_ns.max(cfg.warmup_ns),
            req_delay,
            exact_percentiles: cfg.exact_percentiles,
        };
        let app = crate::app::AnyApp::from_config(&fc.app, env)?;
        let mut data = DataSender::new(tcp.mss, buf_segs);
        data.sizes = app.seg_sizes(tcp.mss);
        let own_windows = subs.len() > 1
            && cc.windows_own()
            && subs.iter().all(|s| s.nic.is_none())
            && !fc.scheduler_params.get(sched::PENALIZE.name).is_some_and(|&v| v >= 0.5);
        out.push(Flow {
            name: fc.name.clone(),
            cc_name: fc.cc.clone(),
            cc,
            window_validation: subs.iter().any(|s| s.snd.validates()),
            own_windows,
            none_had_space: false,
            app_timers: app.has_timers(),
            subs,
            opportunistic: fc.scheduler_params.get(sched::OPPORTUNISTIC.name).is_some_and(|&v| v >= 0.5),
            penalize: fc.scheduler_params.get(sched::PENALIZE.name).is_some_and(|&v| v >= 0.5),
            opp_dsn: None,
            penalized_at: vec![0; n_subs],
            sched,
            sched_wake: sched::Wake::default(),
            pace_at: None,
            data_rtx: {
                let m = tcp.mechanisms();
                (m.data_rtx && n_subs > 1).then(|| crate::flow::DataRtx::new(n_subs, m.stale_loss_cnt))
            },
            data,
            rx: DataReceiver::new(buf_segs),
            start: fc.start_ns,
            stop: fc.stop_ns,
            app_bytes,
            delivered_bytes: 0,
            completed_at: None,
            timing: AppTiming::default(),
            app,
            rctl,
            rx_acks: Vec::with_capacity(4),
            rx_decisions: None,
            app_delay: RttStats::new(cfg.exact_percentiles),
            held: 0,
            held_peak: 0,
            held_area: 0,
            held_at: 0,
            header: tcp.header_bytes,
            pacing_ratios: (tcp.pacing_ss_ratio, tcp.pacing_ca_ratio),
            hs: {
                let m = tcp.mechanisms();
                crate::handshake::ConnHandshake {
                    on: m.handshake,
                    syn_rto: m.syn_rto_ns,
                    max_rto: tcp.max_rto_ns,
                    ..Default::default()
                }
            },
            base: FlowCounters::default(),
        });
    }
    attach_cc_recorder(cfg, &mut out)?;
    Ok(out)
}

/// Attaches a recorder (cc_record.rs) to the connection `cfg.record_cc` names (by
/// default the first flow with more than one subflow, else the first flow).
fn attach_cc_recorder(cfg: &Config, flows: &mut [Flow]) -> Result<(), String> {
    let Some(rc) = &cfg.record_cc else {
        return Ok(());
    };
    let idx = match &rc.flow {
        Some(name) => flows
            .iter()
            .position(|f| &f.name == name)
            .ok_or_else(|| format!("record_cc.flow: no flow named \"{name}\""))?,
        None => flows.iter().position(|f| f.subs.len() > 1).unwrap_or(0),
    };
    let Some(f) = flows.get_mut(idx) else {
        return Ok(());
    };
    let windows: Vec<(f64, f64)> = (0..f.subs.len()).map(|sf| (f.cc.cwnd(sf), f.cc.ssthresh(sf))).collect();
    let rec = crate::cc_record::open(&rc.path, &f.cc_name, &f.name, &windows)?;
    for s in f.subs.iter_mut() {
        s.snd.set_recorder(rec.clone());
    }
    Ok(())
}

/// A subflow as the configuration gives it, times resolved.
struct SubflowSpec<'a> {
    path: &'a [usize],
    reverse: Option<&'a [usize]>,
    start: u64,
    stop: Option<u64>,
    cost: f64,
}

/// The subflows of a flow: its `path` (one subflow living as long as the flow),
/// or its `subflows`.
fn subflow_specs(fc: &FlowConfig) -> Result<Vec<SubflowSpec<'_>>, String> {
    let field = |f: &str| format!("flows.{}.{}", fc.name, f);
    match (&fc.path, &fc.subflows) {
        (Some(_), Some(_)) => {
            Err(format!("{}: given with path; allowed: either path (one route) or subflows", field("subflows")))
        }
        (None, None) => {
            Err(format!("{}: missing; allowed: path (one route) or subflows (a list of routes)", field("path")))
        }
        (Some(p), None) => Ok(vec![SubflowSpec {
            path: p,
            reverse: fc.reverse_path.as_deref(),
            start: fc.start_ns,
            stop: None,
            cost: 0.0,
        }]),
        (None, Some(list)) => {
            if fc.reverse_path.is_some() {
                return Err(format!(
                    "{}: only with path; allowed: a reverse_path in each subflow",
                    field("reverse_path")
                ));
            }
            if list.is_empty() || list.len() > MAX_SUBFLOWS {
                return Err(format!("{}: {} subflows; allowed: 1 to {MAX_SUBFLOWS}", field("subflows"), list.len()));
            }
            list.iter()
                .enumerate()
                .map(|(k, sc)| {
                    let start = sc.start_ns.unwrap_or(fc.start_ns);
                    if start < fc.start_ns {
                        return Err(format!(
                            "{}: {start} ns; allowed: at or after the flow's start_ns ({} ns)",
                            field(&format!("subflows.{k}.start_ns")),
                            fc.start_ns
                        ));
                    }
                    if sc.stop_ns.is_some_and(|t| t <= start) {
                        return Err(format!(
                            "{}: allowed: after the subflow's start",
                            field(&format!("subflows.{k}.stop_ns"))
                        ));
                    }
                    if !(sc.cost_per_mbit.is_finite() && sc.cost_per_mbit >= 0.0) {
                        return Err(format!(
                            "{}: {}; allowed: a finite number at least 0",
                            field(&format!("subflows.{k}.cost_per_mbit")),
                            sc.cost_per_mbit
                        ));
                    }
                    let cost = sc.cost_per_mbit;
                    Ok(SubflowSpec {
                        path: &sc.path,
                        reverse: sc.reverse_path.as_deref(),
                        start,
                        stop: sc.stop_ns,
                        cost,
                    })
                })
                .collect()
        }
    }
}

/// Subflows per connection (Linux allows 8 by default; this only guards the u16 index).
const MAX_SUBFLOWS: usize = 1024;
