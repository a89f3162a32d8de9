//! `mpcc-sim CONFIG.json [--max-memory-bytes N]`: runs a canonical configuration and
//! prints the summary JSON. The native entry point used by benchmarks (no Python
//! start-up). Exit codes as `mpcc run`'s: 2 for a rejected configuration, 3 when the
//! run stopped early at its memory limit (the summary covers what was simulated).
use std::process::ExitCode;

// The simulator's heap is counted so that --max-memory-bytes can stop a run.
#[global_allocator]
static ALLOC: mpcc_sim::mem::CountingAlloc = mpcc_sim::mem::CountingAlloc;

const USAGE: &str = "usage: mpcc-sim CONFIG.json [--max-memory-bytes N]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, limit) = match args.as_slice() {
        [path] => (path, None),
        [path, flag, n] if flag == "--max-memory-bytes" => match n.parse::<u64>() {
            Ok(n) => (path, Some(n)),
            Err(_) => {
                eprintln!("mpcc-sim: error: --max-memory-bytes: '{n}' is not a whole number of bytes");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let text = match mpcc_core::files::read_regular(path, 1 << 30) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("mpcc-sim: error: {e}");
            return ExitCode::from(2);
        }
    };
    match mpcc_sim::run_json_watched(&text, limit, || false) {
        Ok(out) => {
            println!("{}", out.summary_json);
            let summary: serde_json::Value = serde_json::from_str(&out.summary_json).unwrap_or_default();
            match summary["sim"]["stopped_early"].as_str() {
                Some(reason) => {
                    eprintln!("mpcc-sim: warning: {reason}");
                    ExitCode::from(3)
                }
                None => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            eprintln!("mpcc-sim: error: {e}");
            ExitCode::from(2)
        }
    }
}
