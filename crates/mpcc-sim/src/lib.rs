//! The packet-level discrete-event simulator.
pub mod app;
pub mod build;
pub mod config;
pub mod conn;
pub mod engine;
pub mod flow;
pub mod ids;
pub mod link;
pub mod metrics;
pub mod packet;
pub mod report;
pub mod scheduler;
pub mod sim;
pub mod tcp;
pub mod tsc;

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
}

/// Runs a canonical configuration given as JSON (see `config.rs`). Errors are one
/// line naming the field and what is allowed.
pub fn run_json(config_json: &str) -> Result<RunOutput, String> {
    let cfg: config::Config = serde_json::from_str(config_json).map_err(|e| format!("invalid configuration: {e}"))?;
    run(&cfg)
}

/// Runs a configuration.
pub fn run(cfg: &config::Config) -> Result<RunOutput, String> {
    let t0 = std::time::Instant::now();
    let mut sim = sim::Sim::new(cfg)?;
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let summary = report::summary(&mut sim, wall);
    let mut tables = BTreeMap::new();
    for (name, cols) in [("flow_series", &sim.flow_series), ("link_series", &sim.link_series)] {
        let t: Table = cols.names.iter().map(|n| n.to_string()).zip(cols.data.iter().cloned()).collect();
        tables.insert(name.to_string(), t);
    }
    Ok(RunOutput { summary_json: serde_json::to_string(&summary).expect("summary serialises"), tables })
}
