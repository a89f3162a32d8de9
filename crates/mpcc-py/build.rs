//! Bakes the source commit (`git describe --always --dirty`) into the extension as
//! `_core.__commit__`, so that an installed wheel, away from any checkout, still
//! says which source it was built from. "unknown" when git or the repository is
//! not there (a build from an exported tree).

use std::process::Command;

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let commit = Command::new("git")
        .args(["describe", "--always", "--dirty"])
        .current_dir(&root)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=MPCC_COMMIT={commit}");
    for f in ["HEAD", "index"] {
        println!("cargo:rerun-if-changed={}", root.join(".git").join(f).display());
    }
}
