//! `mpcc-sim CONFIG.json`: runs a canonical configuration and prints the summary
//! JSON. The native entry point used by benchmarks (no Python start-up).
use std::process::ExitCode;

#[global_allocator]
static ALLOC: mpcc_sim::mem::CountingAlloc = mpcc_sim::mem::CountingAlloc;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: mpcc-sim CONFIG.json");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("mpcc-sim: error: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match mpcc_sim::run_json(&text) {
        Ok(out) => {
            println!("{}", out.summary_json);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mpcc-sim: error: {e}");
            ExitCode::from(2)
        }
    }
}
