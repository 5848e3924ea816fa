//! What the `stampede bench` tests share: a scratch folder, checks of the
//! JSON's numbers, and the binary run with its output files.
#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stampede-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir is writable");
    dir
}

pub fn positive(v: &Value, what: &str) -> f64 {
    let x = v
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {v}"));
    assert!(x > 0.0 && x.is_finite(), "{what} = {x} must be positive");
    x
}

pub fn percentiles(v: &Value, what: &str) {
    let p50 = positive(&v["p50"], &format!("{what}.p50"));
    let p90 = positive(&v["p90"], &format!("{what}.p90"));
    let p99 = positive(&v["p99"], &format!("{what}.p99"));
    assert!(
        p50 <= p90 && p90 <= p99,
        "{what}: {p50} {p90} {p99} out of order"
    );
}

/// `stampede bench ARGS`, then each (flag, path) of `outputs` (`--json`,
/// `--csv`, `--chart`), with `dir` as its runtime folder.
pub fn run_bench(dir: &Path, args: &[&str], outputs: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stampede"));
    command.arg("bench").args(args);
    for (flag, path) in outputs {
        command.arg(flag).arg(path);
    }
    command
        .env("XDG_RUNTIME_DIR", dir)
        .output()
        .expect("the binary runs")
}
