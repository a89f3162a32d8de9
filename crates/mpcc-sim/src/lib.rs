//! The packet-level discrete-event simulator.
pub mod app;
pub mod build;
pub mod cc_record;
pub mod config;
pub mod conn;
pub mod engine;
pub mod event_log;
pub mod flow;
pub mod handshake;
pub mod host;
pub mod ids;
pub mod limits;
pub mod link;
pub mod mem;
pub mod metrics;
pub mod packet;
pub mod pcap;
pub mod profile;
pub mod report;
pub mod series;
pub mod sim;
pub mod sketch;
pub mod table;
pub mod tcp;

use std::collections::BTreeMap;

/// Columns of one result table (long format: a `flow` or `link` column holds the
/// entity index; names are in the summary).
pub type Table = BTreeMap<String, Vec<f64>>;

/// What a run returns to the front end.
pub struct RunOutput {
    /// `summary.json` content (see docs/metrics.md), without trailing newline.
    pub summary_json: String,
    /// Time series tables: "flow_series", "link_series".
    pub tables: BTreeMap<String, Table>,
    /// Packet captures: (name, pcap file content).
    pub pcaps: Vec<(String, Vec<u8>)>,
}

/// Runs a canonical configuration given as JSON (see `config.rs`). Errors are one
/// line naming the field and what is allowed.
pub fn run_json(config_json: &str) -> Result<RunOutput, String> {
    run_json_watched(config_json, None, || false).map_err(|e| e.to_string())
}

/// Why a run did not produce a result.
#[derive(Debug)]
pub enum RunError {
    /// The configuration was rejected: one line naming the field.
    Invalid(String),
    /// The caller's `interrupted` said so (Ctrl-C).
    Interrupted,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Invalid(e) => f.write_str(e),
            RunError::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// [`run_json`] that stops early, keeping what it has, once the heap counted by
/// [`mem::CountingAlloc`] exceeds `max_memory_bytes` (the summary's
/// `sim.stopped_early` then says so), and gives up as soon as `interrupted()`
/// returns true (asked every few milliseconds).
pub fn run_json_watched(
    config_json: &str, max_memory_bytes: Option<u64>, interrupted: impl FnMut() -> bool,
) -> Result<RunOutput, RunError> {
    let cfg: config::Config =
        serde_json::from_str(config_json).map_err(|e| RunError::Invalid(format!("invalid configuration: {e}")))?;
    let t0 = std::time::Instant::now();
    let sim = sim::Sim::new(&cfg).map_err(RunError::Invalid)?;
    // The simulation keeps what it needs; the parsed configuration (about 3 KB a
    // flow) would otherwise be held through the run and count in its peak memory.
    drop(cfg);
    run_sim(sim, t0, max_memory_bytes, interrupted)
}

/// Runs a configuration.
pub fn run(cfg: &config::Config) -> Result<RunOutput, String> {
    run_watched(cfg, None, || false).map_err(|e| e.to_string())
}

/// [`run`] with a memory limit and an interruption check (see [`run_json_watched`]).
pub fn run_watched(
    cfg: &config::Config, max_memory_bytes: Option<u64>, interrupted: impl FnMut() -> bool,
) -> Result<RunOutput, RunError> {
    let t0 = std::time::Instant::now();
    let sim = sim::Sim::new(cfg).map_err(RunError::Invalid)?;
    run_sim(sim, t0, max_memory_bytes, interrupted)
}

/// Runs a built simulation (`t0`: when its building started, for the wall time).
fn run_sim(
    mut sim: sim::Sim, t0: std::time::Instant, max_memory_bytes: Option<u64>, mut interrupted: impl FnMut() -> bool,
) -> Result<RunOutput, RunError> {
    let stop = sim.run_until(|| {
        if interrupted() {
            return Some(sim::Stop::Interrupted);
        }
        match max_memory_bytes {
            Some(limit) if mem::in_use() as u64 > limit => Some(sim::Stop::MemoryLimit(limit)),
            _ => None,
        }
    });
    if let Some(sim::Stop::Interrupted) = stop {
        return Err(RunError::Interrupted);
    }
    // The congestion-control record, if one was kept: flushed, its first error reported.
    if let Some(rec) = sim.flows.iter().flat_map(|f| f.subs.iter()).find_map(|s| s.snd.recorder().cloned()) {
        rec.borrow_mut().finish().map_err(RunError::Invalid)?;
    }
    let wall = t0.elapsed().as_secs_f64();
    let summary_json = report::summary_json(&mut sim, wall);
    let mut tables = BTreeMap::new();
    for (name, cols) in [("flow_series", &sim.flow_series), ("link_series", &sim.link_series)] {
        let t: Table = cols.names.iter().map(|n| n.to_string()).zip(cols.data.iter().cloned()).collect();
        tables.insert(name.to_string(), t);
    }
    tables.insert("delay_cdf".to_string(), report::delay_cdf(&sim));
    if let Some(m) = sim.metric_series.take() {
        tables.insert("metric_series".to_string(), m.names.into_iter().zip(m.data).collect());
    }
    if let Some(log) = &sim.log {
        tables.insert("event_log".to_string(), log.table());
    }
    let pcaps =
        sim.pcap.take().map(|p| p.captures.into_iter().map(|c| (c.name, c.bytes)).collect()).unwrap_or_default();
    Ok(RunOutput { summary_json, tables, pcaps })
}
