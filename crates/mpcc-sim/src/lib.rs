//! The packet-level discrete-event simulator.
pub mod config;

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
    let _cfg: config::Config = serde_json::from_str(config_json).map_err(|e| format!("invalid configuration: {e}"))?;
    Err("simulator not implemented yet".into())
}
