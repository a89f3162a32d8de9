//! The simulator's own range checks, in one place, for what the Python schema
//! should already have refused: a configuration that reaches the native entry
//! point (`mpcc-sim CONFIG.json`) directly must not make times wrap around
//! (`u64` nanoseconds), rates serialise in no time or forever, or a timer fire at
//! once and forever. The ceilings are generous: the front end's are stricter
//! (docs/scenarios.md). Errors name the canonical field and what is allowed.

use crate::app::config::RangeChecks;
use crate::config::{CapacityConfig, Config, FlowConfig, TcpConfig};
use mpcc_core::Nanos;

/// Any time, delay or period: 10^7 s (116 days). Sums of a few such values stay
/// far below 2^64 ns.
pub const MAX_TIME_NS: Nanos = 10_000_000 * 1_000_000_000;
/// Rates: from 1 bit/s to 10 Tbit/s.
pub const MIN_RATE_BPS: f64 = 1.0;
pub const MAX_RATE_BPS: f64 = 1e13;
/// Header bytes on the wire (with the MSS, a packet's size must fit a u32).
pub const MAX_HEADER_BYTES: u32 = 65_535;
/// Sizes in bytes (files, Web objects, buffers): 2^53, exact in a double.
pub const MAX_BYTES: u64 = 1 << 53;

pub fn check(cfg: &Config) -> Result<(), String> {
    time("duration_ns", cfg.duration_ns, 1)?;
    if cfg.warmup_ns >= cfg.duration_ns {
        return Err(format!("warmup_ns: {}; allowed: below duration_ns ({})", cfg.warmup_ns, cfg.duration_ns));
    }
    time("sample_interval_ns", cfg.sample_interval_ns, 0)?;
    for l in &cfg.links {
        let field = |f: &str| format!("links.{}.{f}", l.name);
        time(&field("delay_ns"), l.delay_ns, 0)?;
        match &l.capacity {
            CapacityConfig::Constant { bps } => rate(&field("capacity.bps"), *bps, false)?,
            CapacityConfig::Schedule { steps, period_ns } => {
                time(&field("capacity.period_ns"), *period_ns, 0)?;
                for (k, (t, bps)) in steps.iter().enumerate() {
                    time(&field(&format!("capacity.steps.{k}.time_ns")), *t, 0)?;
                    rate(&field(&format!("capacity.steps.{k}.bps")), *bps, true)?;
                }
            }
            CapacityConfig::RandomWalk { initial_bps, min_bps, max_bps, step_ns, .. } => {
                rate(&field("capacity.initial_bps"), *initial_bps, false)?;
                rate(&field("capacity.min_bps"), *min_bps, false)?;
                rate(&field("capacity.max_bps"), *max_bps, false)?;
                time(&field("capacity.step_ns"), *step_ns, 1)?;
            }
            CapacityConfig::Trace { .. } => {}
        }
    }
    for f in &cfg.flows {
        flow(cfg, f)?;
    }
    Ok(())
}

fn flow(cfg: &Config, f: &FlowConfig) -> Result<(), String> {
    let field = |x: &str| format!("flows.{}.{x}", f.name);
    time(&field("start_ns"), f.start_ns, 0)?;
    if let Some(t) = f.stop_ns {
        time(&field("stop_ns"), t, 0)?;
    }
    for (k, s) in f.subflows.iter().flatten().enumerate() {
        for (name, t) in [("start_ns", s.start_ns), ("stop_ns", s.stop_ns)] {
            if let Some(t) = t {
                time(&field(&format!("subflows.{k}.{name}")), t, 0)?;
            }
        }
    }
    // A route's total delay is a time too (a delay-only reverse path is that sum).
    let routes = f
        .path
        .iter()
        .chain(f.reverse_path.iter())
        .chain(f.subflows.iter().flatten().flat_map(|s| std::iter::once(&s.path).chain(s.reverse_path.iter())));
    for route in routes {
        let total = route.iter().filter_map(|&i| cfg.links.get(i)).fold(0u128, |d, l| d + l.delay_ns as u128);
        if total > MAX_TIME_NS as u128 {
            return Err(format!(
                "{}: a route's delays add up to {total} ns; allowed: at most {MAX_TIME_NS} ns",
                field("path")
            ));
        }
    }
    tcp(&field, &f.tcp)?;
    f.app.check_ranges(&field, &RangeChecks { time, rate, size })
}

/// A host's processing delay is microseconds; a second is far past any host.
const MAX_HOST_JITTER_NS: u64 = 1_000_000_000;

fn tcp(field: &dyn Fn(&str) -> String, t: &TcpConfig) -> Result<(), String> {
    if t.header_bytes > MAX_HEADER_BYTES {
        return Err(format!(
            "{}: {}; allowed: 0 to {MAX_HEADER_BYTES} bytes",
            field("tcp.header_bytes"),
            t.header_bytes
        ));
    }
    let m = t.mechanisms();
    time(&field("tcp.min_rto_ns"), m.min_rto_ns, 1)?;
    time(&field("tcp.max_rto_ns"), t.max_rto_ns, 1)?;
    time(&field("tcp.delack_timeout_ns"), m.delack_timeout_ns, 0)?;
    if m.host_jitter_ns > MAX_HOST_JITTER_NS {
        return Err(format!(
            "{}: {}; allowed: 0 to {MAX_HOST_JITTER_NS} ns (1 s)",
            field("tcp.host_jitter_ns"),
            m.host_jitter_ns
        ));
    }
    if m.min_rto_ns > t.max_rto_ns {
        return Err(format!(
            "{}: {}; allowed: at most max_rto_ns ({})",
            field("tcp.min_rto_ns"),
            m.min_rto_ns,
            t.max_rto_ns
        ));
    }
    if let Some(n) = t.nic_rate_bps {
        rate(&field("tcp.nic_rate_bps"), n as f64, false)?;
    }
    for (name, r) in [("tcp.pacing_ss_ratio", t.pacing_ss_ratio), ("tcp.pacing_ca_ratio", t.pacing_ca_ratio)] {
        if !(1..=10_000).contains(&r) {
            return Err(format!("{}: {r}; allowed: 1 to 10000 (percent)", field(name)));
        }
    }
    if !(m.min_rto_ns..=t.max_rto_ns).contains(&t.initial_rto_ns) {
        return Err(format!(
            "{}: {}; allowed: from min_rto_ns ({}) to max_rto_ns ({})",
            field("tcp.initial_rto_ns"),
            t.initial_rto_ns,
            m.min_rto_ns,
            t.max_rto_ns
        ));
    }
    for (name, b) in [
        ("tcp.rcv_buf_bytes", t.rcv_buf_bytes),
        ("tcp.send_buf_bytes", t.send_buf_bytes),
        ("tcp.init_ssthresh_bytes", t.init_ssthresh_bytes),
    ] {
        if let Some(b) = b {
            size(&field(name), b)?;
        }
    }
    Ok(())
}

fn time(field: &str, t: Nanos, min: Nanos) -> Result<(), String> {
    if (min..=MAX_TIME_NS).contains(&t) {
        Ok(())
    } else {
        Err(format!("{field}: {t} ns; allowed: {min} to {MAX_TIME_NS} ns"))
    }
}

fn rate(field: &str, bps: f64, zero_ok: bool) -> Result<(), String> {
    if (zero_ok && bps == 0.0) || (MIN_RATE_BPS..=MAX_RATE_BPS).contains(&bps) {
        Ok(())
    } else {
        let zero = if zero_ok { "0 or " } else { "" };
        Err(format!("{field}: {bps} bit/s; allowed: {zero}{MIN_RATE_BPS} to {MAX_RATE_BPS} bit/s"))
    }
}

fn size(field: &str, b: u64) -> Result<(), String> {
    if b <= MAX_BYTES {
        Ok(())
    } else {
        Err(format!("{field}: {b} bytes; allowed: at most {MAX_BYTES} (2^53)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_application_entries_state_these_bounds() {
        use crate::app::{MAX_BYTES as BYTES, MAX_RATE as RATE, MAX_TIME as TIME};
        assert_eq!((TIME, RATE, BYTES), (MAX_TIME_NS as f64, MAX_RATE_BPS, MAX_BYTES as f64));
    }

    fn config(edit: impl FnOnce(&mut serde_json::Value)) -> Result<(), String> {
        let mut v = json!({"duration_ns": 1_000_000_000u64, "seed": 1,
            "links": [{"name": "b", "capacity": {"kind": "constant", "bps": 1e7}, "delay_ns": 10_000_000,
                       "queue": {"kind": "droptail", "packets": 10}}],
            "flows": [{"name": "a", "cc": "reno", "path": [0], "app": {"kind": "bulk"}}]});
        edit(&mut v);
        check(&serde_json::from_value(v).unwrap())
    }

    #[test]
    fn a_valid_configuration_passes() {
        assert_eq!(config(|_| {}), Ok(()));
    }

    #[test]
    fn what_would_wrap_or_never_end_is_refused_by_name() {
        type Edit = fn(&mut serde_json::Value);
        let cases: [(&str, Edit); 8] = [
            ("links.b.delay_ns", |v| v["links"][0]["delay_ns"] = json!(18_446_744_073_500_000_000u64)),
            ("links.b.capacity.bps", |v| v["links"][0]["capacity"]["bps"] = json!(1e-30)),
            ("flows.a.tcp.header_bytes", |v| v["flows"][0]["tcp"] = json!({"header_bytes": 4_294_967_000u64})),
            ("flows.a.tcp.initial_rto_ns", |v| v["flows"][0]["tcp"] = json!({"initial_rto_ns": 0})),
            ("flows.a.tcp.min_rto_ns", |v| v["flows"][0]["tcp"] = json!({"min_rto_ns": 0, "initial_rto_ns": 0})),
            ("duration_ns", |v| v["duration_ns"] = json!(u64::MAX)),
            ("warmup_ns", |v| v["warmup_ns"] = json!(2_000_000_000u64)),
            ("flows.a.app.bytes", |v| v["flows"][0]["app"] = json!({"kind": "file", "bytes": u64::MAX})),
        ];
        for (field, edit) in cases {
            let e = config(edit).unwrap_err();
            assert!(e.starts_with(&format!("{field}: ")), "{e}");
        }
    }
}
