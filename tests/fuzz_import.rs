//! Property test: mutated glTF/GLB bytes through import and a small bake.
//! Every case must end in `Ok` or a checked error that names the file: no
//! panic (not even one the importer's `catch_unwind` net catches), no case
//! over 2 s (timed a second time before it counts, so contention on a shared
//! machine is not taken for a slow input), no case growing the heap by more
//! than 512 MiB.
//!
//! `FUZZ_CASES=N` and `FUZZ_SEED=S` change the run; `FUZZ_CASE=K` runs one
//! case alone (the numbers a failure prints).

mod common;
mod fuzz;

use fuzz::mutate::{Rng, build_glb, mutate};
use fuzz::{Outcome, Seed, Watchdog, judge, run_case};
use serde_json::json;
use stampede::{ImportError, Model};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

#[global_allocator]
static ALLOC: fuzz::alloc::Counting = fuzz::alloc::Counting;

/// The allocation figures are process-wide: one measuring test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Cases per run, sized to keep the test well under a minute in a debug
/// build on two busy cores.
const DEFAULT_CASES: u64 = 500;
const DEFAULT_SEED: u64 = 0x5EED_0F57_A39E_DE01;

fn env_u64(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={text} is not a number")))
}

fn seeds() -> Vec<Seed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds = vec![
        Seed::read(root.join("assets/horse.glb")),
        Seed::read(root.join("assets/bird.glb")),
    ];
    const SHARED: &[&str] = &[
        "SimpleSkin.gltf",
        "RiggedSimple.glb",
        "AnimatedMorphCube.gltf",
        "CesiumMan.glb",
        "Fox.glb",
    ];
    if let Some(dir) = common::shared_model("") {
        seeds.extend(SHARED.iter().map(|name| Seed::read(dir.join(name))));
    }
    seeds
}

#[test]
fn mutated_files_never_panic_hang_or_balloon() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let seeds = seeds();
    let donors: Vec<&[u8]> = seeds.iter().map(|s| &s.bytes[..]).collect();
    let run_seed = env_u64("FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    let cases: Vec<u64> = match env_u64("FUZZ_CASE") {
        Some(k) => vec![k],
        None => (0..env_u64("FUZZ_CASES").unwrap_or(DEFAULT_CASES)).collect(),
    };
    let watchdog = Watchdog::start();
    let started = Instant::now();
    let mut failures = Vec::new();
    let mut outcomes = [0usize; 3];
    let (mut slowest, mut biggest) = ((0.0f64, 0), (0usize, 0));

    // The seeds themselves first, then the mutants.
    for seed in &seeds {
        watchdog.begin(&format!("seed {} unmutated", seed.name));
        let report = run_case(&seed.bytes, &seed.path);
        watchdog.end();
        if let Some(problem) = judge(&report) {
            failures.push(format!("{} unmutated: {problem}", seed.name));
        }
    }
    for &case in &cases {
        let mut rng = Rng::new(run_seed ^ case.wrapping_mul(0xA24B_AED4_963E_E407));
        let seed = &seeds[rng.below(seeds.len())];
        let (bytes, steps) = mutate(&mut rng, &seed.bytes, &donors);
        let name = format!(
            "case {case} (FUZZ_SEED={run_seed:#x}): {} + {steps:?}",
            seed.name
        );
        watchdog.begin(&name);
        let mut report = run_case(&bytes, &seed.path);
        if report.outcome.is_ok() && report.elapsed > fuzz::CASE_TIME_LIMIT {
            // Timed again once, so that a moment of contention on a shared
            // machine is not taken for a slow input; a slow input is slow
            // both times.
            report = run_case(&bytes, &seed.path);
        }
        watchdog.end();
        let ms = report.elapsed.as_secs_f64() * 1e3;
        if ms > slowest.0 {
            slowest = (ms, case);
        }
        if report.peak > biggest.0 {
            biggest = (report.peak, case);
        }
        if let Ok(outcome) = report.outcome {
            outcomes[outcome as usize] += 1;
        }
        if let Some(problem) = judge(&report) {
            let ext = seed.path.extension().unwrap_or_default().to_string_lossy();
            let saved = std::env::temp_dir().join(format!("stampede-fuzz-case-{case}.{ext}"));
            std::fs::write(&saved, &bytes).ok();
            failures.push(format!(
                "{name}: {problem} (input saved to {})",
                saved.display()
            ));
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let corpus: usize = seeds.iter().map(|s| s.bytes.len()).sum();
    eprintln!(
        "fuzz: {} seed files ({} KiB), {} mutated cases in {secs:.1} s: {} refused at import, \
         {} imported but refused by the bake, {} imported and baked; slowest case {} ({:.0} ms), \
         largest peak {} KiB (case {})",
        seeds.len(),
        corpus >> 10,
        cases.len(),
        outcomes[Outcome::Refused as usize],
        outcomes[Outcome::ImportedBakeRefused as usize],
        outcomes[Outcome::ImportedAndBaked as usize],
        slowest.1,
        slowest.0,
        biggest.0 >> 10,
        biggest.1,
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len() + seeds.len(),
        failures.join("\n")
    );
}

/// One triangle whose POSITION accessor claims 2^30 vertices (12 GiB of
/// floats) over a 36-byte buffer.
fn huge_claim(with_view: bool) -> (serde_json::Value, Vec<u8>) {
    let bin: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .chain([0, 0, 0, 0])
        .collect();
    let mut position = json!({"componentType": 5126, "count": 1u64 << 30, "type": "VEC3",
        "min": [0, 0, 0], "max": [1, 1, 0]});
    if with_view {
        position["bufferView"] = json!(0);
    } else {
        // No view: zeros, with one sparse value that the 4 extra bytes index.
        position["sparse"] = json!({"count": 1,
            "indices": {"bufferView": 1, "componentType": 5125},
            "values": {"bufferView": 0}});
    }
    let doc = json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 4}],
        "accessors": [position],
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
    });
    (doc, bin)
}

#[test]
fn a_file_claiming_4_gb_of_vertices_is_refused_before_allocating() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for with_view in [true, false] {
        let (doc, bin) = huge_claim(with_view);
        let glb = build_glb(&serde_json::to_vec(&doc).unwrap(), Some(&bin));
        *fuzz::alloc::CURRENT_CASE.lock().unwrap() =
            format!("the 2^30-vertex file, view {with_view}");
        let baseline = fuzz::alloc::reset_peak();
        let err = Model::from_slice(&glb, "huge.glb").expect_err("2^30 vertices must be refused");
        let peak = fuzz::alloc::peak_since(baseline);
        let text = err.to_string();
        eprintln!("{text} (peak {} KiB)", peak >> 10);
        assert!(
            matches!(err, ImportError::Accessor { accessor: 0, .. }),
            "a checked accessor error, not {err:?}"
        );
        assert!(
            text.contains("huge.glb") && text.contains("1073741824"),
            "{text}"
        );
        assert!(
            peak < 16 << 20,
            "refused only after allocating {peak} bytes"
        );
    }
}
