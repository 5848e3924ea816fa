//! The library compiles for the browser (`wasm32-unknown-unknown`): no C
//! or C++ in the tree (meshoptimizer is its pure-Rust port, checked against
//! the C++ chains by tests/lod_chains.rs) and no desktop clipboard. A web
//! front end builds on this; this test keeps the library from drifting
//! back. It skips with the reason when the target is not installed (under
//! `CI=true` that is a failure).

use std::path::Path;
use std::process::Command;

const TARGET: &str = "wasm32-unknown-unknown";

fn target_installed() -> bool {
    let out = Command::new("rustc")
        .args(["--print", "target-libdir", "--target", TARGET])
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let dir = String::from_utf8_lossy(&o.stdout).trim().to_string();
            Path::new(&dir).join("..").is_dir()
                && std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some())
        }
        _ => false,
    }
}

#[test]
fn the_library_compiles_for_wasm32() {
    if !target_installed() {
        let why = format!("the {TARGET} target is not installed (rustup target add {TARGET})");
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
        eprintln!("skipped: {why}");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO"))
        .args([
            "check",
            "--lib",
            "--target",
            TARGET,
            "--message-format=short",
        ])
        .env("CARGO_TARGET_DIR", root.join("target/wasm32-check"))
        .current_dir(root)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the library does not compile for {TARGET}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
