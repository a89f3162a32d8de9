//! mpcc-emu PLAN.json: the testbed's link emulator.
//!
//! Opens the plan's TUN devices in their namespaces, prints `{"ready": true}`,
//! waits for a line on standard input, prints `{"t0_ns": T}` (CLOCK_MONOTONIC, the
//! scenario's time zero) and forwards packets through the emulated links until
//! standard input has another line or closes, or SIGTERM/SIGINT arrives. Then it
//! writes the plan's results file and exits. One thread: the loop sleeps in ppoll
//! until the next packet or the next event of the link models.

mod fabric;
mod packet;
mod plan;
mod rtt;
mod tun;

use fabric::{Dir, Fabric, LinkState};
use mpcc_core::Nanos;
use packet::{ipv4_addrs, SLOT_BYTES};
use plan::{AddrTable, Plan};
use serde_json::json;
use std::io::{BufRead, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec out-parameter.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// How late packets were written compared with the model's time, in 10 us bins.
struct Lateness {
    bins: Vec<u64>,
    sum_ns: u128,
    max_ns: u64,
    n: u64,
}

impl Lateness {
    fn record(&mut self, ns: u64) {
        let b = ((ns / 10_000) as usize).min(self.bins.len() - 1);
        self.bins[b] += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
        self.n += 1;
    }
    fn quantile_us(&self, q: f64) -> f64 {
        let want = (q * self.n as f64).ceil() as u64;
        let mut seen = 0;
        for (i, c) in self.bins.iter().enumerate() {
            seen += c;
            if seen >= want.max(1) {
                return (i as f64 + 1.0) * 10.0;
            }
        }
        0.0
    }
}

fn link_row(t: Nanos, l: usize, s: &LinkState) -> serde_json::Value {
    json!([
        t,
        l,
        s.capacity_bps,
        s.queue_packets,
        s.queue_bytes,
        s.tx_bytes,
        s.queue_drops + s.loss_drops,
        s.dequeued,
        s.sojourn_sum_ns
    ])
}

fn fail(msg: String) -> ! {
    eprintln!("mpcc-emu: {msg}");
    std::process::exit(2);
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| fail("usage: mpcc-emu PLAN.json".into()));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let plan: Plan = serde_json::from_str(&text).unwrap_or_else(|e| fail(format!("{path}: {e}")));
    let mut fabric = Fabric::new(&plan).unwrap_or_else(|e| fail(e));
    let table = AddrTable::new(&plan.subflows).unwrap_or_else(|e| fail(e));
    let ports: Vec<OwnedFd> = plan
        .ports
        .iter()
        .map(|p| tun::open_in_netns(&p.netns, &p.name).unwrap_or_else(|e| fail(format!("TUN {}: {e}", p.name))))
        .collect();
    // SAFETY: installing async-signal-safe handlers; 1 ns timer slack so that
    // ppoll wakes when asked, not up to 50 us later.
    unsafe {
        libc::signal(libc::SIGTERM, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::signal(libc::SIGINT, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        libc::prctl(libc::PR_SET_TIMERSLACK, 1);
    }
    let stdout = std::io::stdout();
    writeln!(stdout.lock(), "{}", json!({"ready": true})).ok();
    stdout.lock().flush().ok();
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
        return; // asked to stop before starting
    }
    // Whatever the hosts sent while being configured is not part of the run.
    let mut scratch = vec![0u8; SLOT_BYTES];
    for p in &ports {
        while let Ok(Some(_)) = tun::read(p.as_raw_fd(), &mut scratch) {}
    }
    let t0 = monotonic_ns();
    writeln!(stdout.lock(), "{}", json!({"t0_ns": t0})).ok();
    stdout.lock().flush().ok();

    let cfg = &plan.config;
    let interval = cfg.sample_interval_ns;
    let mut next_sample: Nanos = 0;
    let mut series = Vec::new();
    let mut warm: Option<(Vec<LinkState>, Vec<fabric::SubCounters>)> = None;
    let mut late = Lateness { bins: vec![0; 10_001], sum_ns: 0, max_ns: 0, n: 0 };
    let (mut unrouted, mut pool_full, mut write_failures) = (0u64, 0u64, 0u64);
    let mut fds: Vec<libc::pollfd> =
        ports.iter().map(|p| libc::pollfd { fd: p.as_raw_fd(), events: libc::POLLIN, revents: 0 }).collect();
    fds.push(libc::pollfd { fd: 0, events: libc::POLLIN, revents: 0 });
    let n_ports = ports.len();
    let is_client: Vec<bool> = {
        let mut v = vec![true; n_ports];
        for s in &plan.subflows {
            v[s.server_port] = false;
        }
        v
    };
    let mut now: Nanos;
    loop {
        now = monotonic_ns().saturating_sub(t0);
        // Model time advances to `now`, stopping at each sampling instant.
        loop {
            let target = if interval > 0 { next_sample.min(now) } else { now };
            fabric.run_until(target);
            if interval > 0 && next_sample <= now {
                for l in 0..fabric.links.len() {
                    let s = fabric.link_state(l, next_sample);
                    series.push(link_row(next_sample, l, &s));
                }
                next_sample += interval;
            } else {
                break;
            }
        }
        if warm.is_none() && now >= cfg.warmup_ns {
            let states = (0..fabric.links.len()).map(|l| fabric.link_state(l, now)).collect();
            warm = Some((states, fabric.subs.iter().map(|s| s.counters).collect()));
        }
        // Packets read now enter the model now.
        for (pi, p) in ports.iter().enumerate() {
            for _ in 0..256 {
                let Some(slot) = fabric.pool.take() else {
                    pool_full += 1;
                    let _ = tun::read(p.as_raw_fd(), &mut scratch);
                    break;
                };
                match tun::read(p.as_raw_fd(), fabric.pool.buffer(slot)) {
                    Ok(Some(n)) if n > 0 && n < SLOT_BYTES => {
                        fabric.pool.set_len(slot, n);
                        let (dir, sub) = match ipv4_addrs(fabric.pool.bytes(slot)) {
                            Some((src, _)) if is_client[pi] => (Dir::Forward, table.lookup(src)),
                            Some((_, dst)) => (Dir::Reverse, table.lookup(dst)),
                            None => (Dir::Forward, None),
                        };
                        match sub {
                            Some(s) => fabric.inject(now, slot, s, dir),
                            None => {
                                unrouted += 1;
                                fabric.pool.free(slot);
                            }
                        }
                    }
                    Ok(Some(_)) => {
                        unrouted += 1;
                        fabric.pool.free(slot);
                    }
                    Ok(None) => {
                        fabric.pool.free(slot);
                        break;
                    }
                    Err(e) => fail(format!("reading {}: {e}", plan.ports[pi].name)),
                }
            }
        }
        fabric.run_until(now);
        let wall = monotonic_ns().saturating_sub(t0);
        for d in std::mem::take(&mut fabric.out) {
            if !tun::write(ports[d.port].as_raw_fd(), fabric.pool.bytes(d.slot)) {
                write_failures += 1;
            }
            late.record(wall.saturating_sub(d.at));
            fabric.pool.free(d.slot);
        }
        if STOP.load(Ordering::SeqCst) || fds[n_ports].revents != 0 {
            break;
        }
        let next = match (fabric.next_event(), interval > 0) {
            (Some(e), true) => e.min(next_sample),
            (Some(e), false) => e,
            (None, true) => next_sample,
            (None, false) => now + 1_000_000_000,
        };
        let wait = next.saturating_sub(monotonic_ns().saturating_sub(t0));
        let ts = libc::timespec { tv_sec: (wait / 1_000_000_000) as _, tv_nsec: (wait % 1_000_000_000) as _ };
        for f in fds.iter_mut() {
            f.revents = 0;
        }
        // SAFETY: fds is a valid array of pollfd; the timeout a valid timespec.
        unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as _, &ts, std::ptr::null()) };
    }
    write_results(&plan, &mut fabric, now, series, warm, &late, [unrouted, pool_full, write_failures]);
}

fn write_results(
    plan: &Plan, fabric: &mut Fabric, end: Nanos, series: Vec<serde_json::Value>,
    warm: Option<(Vec<LinkState>, Vec<fabric::SubCounters>)>, late: &Lateness,
    [unrouted, pool_full, write_failures]: [u64; 3],
) {
    let warmup = plan.config.warmup_ns.min(end);
    let (warm_links, warm_subs) = warm.unwrap_or_default();
    let links: Vec<_> = (0..fabric.links.len())
        .map(|l| {
            let s = fabric.link_state(l, end);
            let w = warm_links.get(l).copied().unwrap_or_default();
            let st = fabric.links[l].tx_packets;
            json!({
                "name": fabric.links[l].name,
                "tx_packets": st,
                "end": link_row(end, l, &s),
                "at_warmup": link_row(warmup, l, &w),
                "queue_drops": s.queue_drops, "loss_drops": s.loss_drops,
                "capacity_bits": fabric.capacity_bits(l, warmup, end),
            })
        })
        .collect();
    let subs: Vec<_> = fabric
        .subs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let w = warm_subs.get(i).copied().unwrap_or_default();
            let c = &s.counters;
            json!({
                "packets": c.packets, "bytes": c.bytes, "drops": c.drops, "delivered": c.delivered,
                "payload": c.payload,
                "drops_at_warmup": w.drops, "packets_at_warmup": w.packets, "payload_at_warmup": w.payload,
                "rtt_s": s.rtt.samples,
            })
        })
        .collect();
    let out = json!({
        "end_ns": end,
        "warmup_ns": warmup,
        "links": links,
        "subflows": subs,
        "series": series,
        "unrouted": unrouted,
        "pool_full_drops": pool_full,
        "write_failures": write_failures,
        "pool_high_water": fabric.pool.capacity(),
        "timing": {
            "writes": late.n,
            "late_mean_us": if late.n > 0 { late.sum_ns as f64 / late.n as f64 / 1e3 } else { 0.0 },
            "late_p50_us": late.quantile_us(0.5),
            "late_p99_us": late.quantile_us(0.99),
            "late_max_us": late.max_ns as f64 / 1e3,
        },
    });
    if let Err(e) = std::fs::write(&plan.results, out.to_string()) {
        fail(format!("writing {}: {e}", plan.results));
    }
}
