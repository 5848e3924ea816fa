//! `stampede bench`'s comparisons, each measured in one run through the
//! binary: culling and LOD off, occlusion culling off (with the exact
//! visibility count), square impostor quads, and the other anti-aliasing
//! modes; each baseline is marked in the JSON and CSV and has its ratio.
//! (The report itself: tests/bench.rs.)

mod bench_common;
mod gpu_common;

use bench_common::{out_dir, positive, run_bench};
use serde_json::Value;

#[test]
fn compare_culling_measures_both_ways_in_one_run() {
    if gpu_common::gpu_or_skip("compare_culling_measures_both_ways_in_one_run").is_none() {
        return;
    }
    let dir = out_dir("bench-cull");
    let json = dir.join("c.json");
    let output = run_bench(
        &dir,
        &[
            "--techniques",
            "vat",
            "--counts",
            "200",
            "--frames",
            "2",
            "--warmup",
            "1",
            "--size",
            "160x90",
            "--compare-culling",
        ],
        &[("--json", &json)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "bench failed:\n{stdout}");
    assert!(stdout.contains("vat culled ÷ unculled"), "{stdout}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid JSON");
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "culled and unculled");
    let (culled, unculled): (Vec<&Value>, Vec<&Value>) = results
        .iter()
        .partition(|r| r["unculled"] == Value::Bool(false));
    assert_eq!((culled.len(), unculled.len()), (1, 1));
    // Unculled draws everyone at full detail; culled draws fewer triangles.
    let tris = v["model"]["triangles"].as_u64().expect("triangles");
    assert_eq!(unculled[0]["visible"].as_u64(), Some(200));
    assert_eq!(unculled[0]["triangles"].as_u64(), Some(200 * tris));
    assert!(culled[0]["triangles"].as_u64() < Some(200 * tris));
    // The cull passes are timed where the scene is, and only when they run.
    let timed = !culled[0]["gpu_ms"].is_null();
    assert_eq!(!culled[0]["cull_gpu_ms"].is_null(), timed, "{}", culled[0]);
    // So are the shadow cascades' (shadows are on), apart, and printed.
    assert_eq!(
        !culled[0]["cascade_cull_gpu_ms"].is_null(),
        timed,
        "{}",
        culled[0]
    );
    if timed {
        positive(&culled[0]["cull_gpu_ms"]["p50"], "culled cull_gpu_ms");
        positive(
            &culled[0]["cascade_cull_gpu_ms"]["p50"],
            "culled cascade_cull_gpu_ms",
        );
        assert!(
            stdout.contains("vat at 200: the cascades' cull passes"),
            "{stdout}"
        );
    }
    assert!(unculled[0]["cull_gpu_ms"].is_null(), "{}", unculled[0]);
    assert!(
        unculled[0]["cascade_cull_gpu_ms"].is_null(),
        "{}",
        unculled[0]
    );
    let ratios = v["ratios"]["culled_over_unculled"]
        .as_array()
        .expect("ratios");
    assert_eq!(ratios.len(), 1);
    positive(&ratios[0]["wall_ms"], "culled_over_unculled.wall_ms");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--compare-occlusion` measures the run with occlusion culling on and
/// again with it off: the occluded count per result (large inside a dense
/// herd, 0 for the baseline), fewer drawn with it, the ratio with its
/// triangles, and the frames after a camera cut.
#[test]
fn compare_occlusion_measures_both_ways_with_the_occluded() {
    if gpu_common::gpu_or_skip("compare_occlusion_measures_both_ways_with_the_occluded").is_none() {
        return;
    }
    let dir = out_dir("bench-occlusion");
    let (json, csv) = (dir.join("o.json"), dir.join("o.csv"));
    let output = run_bench(
        &dir,
        &[
            "--techniques",
            "vat",
            "--counts",
            "3000",
            "--frames",
            "1",
            "--warmup",
            "3",
            "--size",
            "192x108",
            "--behaviour",
            "on",
            "--camera",
            "90,1,4",
            "--shadows",
            "off",
            "--compare-occlusion",
            "--exact-visibility",
        ],
        &[("--json", &json), ("--csv", &csv)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "bench failed:\n{stdout}");
    assert!(stdout.contains("vat occlusion on ÷ off"), "{stdout}");
    assert!(stdout.contains("occlusion culling on"), "{stdout}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid JSON");
    let results = v["results"].as_array().expect("results");
    let (on, off): (Vec<&Value>, Vec<&Value>) = results
        .iter()
        .partition(|r| r["occlusion_off"] == Value::Bool(false));
    assert_eq!((on.len(), off.len()), (1, 1));
    let occluded = on[0]["occluded"].as_u64().expect("occluded");
    assert!(occluded > 0, "inside the herd some are hidden");
    assert_eq!(off[0]["occluded"].as_u64(), Some(0));
    assert_eq!(
        on[0]["visible"].as_u64().unwrap() + occluded,
        off[0]["visible"].as_u64().unwrap(),
        "the occluded are exactly the ones not drawn"
    );
    assert_eq!(on[0]["after_cut_wall_ms"].as_array().map(Vec::len), Some(3));
    // The exact visibility count: every drawn instance shows, is hidden or
    // covers no sample; what occlusion culling hid is among the hidden or
    // covers no sample (a horse too small to reach one may be behind
    // others too); the same instances show with it on and off (the same
    // picture).
    let exact = |r: &Value, key: &str| r["exact"][key].as_u64().expect(key);
    for r in [on[0], off[0]] {
        let sum = exact(r, "visible") + exact(r, "occluded") + exact(r, "covering_none");
        assert_eq!(sum, r["visible"].as_u64().unwrap(), "{r}");
    }
    assert!(
        exact(off[0], "occluded") + exact(off[0], "covering_none") >= occluded,
        "{}",
        off[0]
    );
    assert_eq!(exact(on[0], "visible"), exact(off[0], "visible"));
    assert!(
        stdout.contains("a perfect occlusion culler would draw"),
        "{stdout}"
    );
    let ratios = v["ratios"]["occlusion_over_off"]
        .as_array()
        .expect("ratios");
    assert_eq!(ratios.len(), 1);
    assert!(ratios[0]["triangles"].as_f64().unwrap() <= 1.0);
    let csv = std::fs::read_to_string(&csv).expect("csv");
    assert!(csv.lines().next().unwrap().contains(",occluded,aa,"));
    assert!(
        csv_column(&csv, "exact_visible")
            .iter()
            .all(|c| !c.is_empty()),
        "the exact counts in every row: {csv}"
    );
    assert!(csv.lines().any(|l| l.contains(",occlusion-off,")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--compare-impostor-quads` measures the run with tight impostor quads
/// and again with the spheres' squares: the same instances and triangles
/// drawn, each result says which, the report says the quads and gives the
/// ratio.
#[test]
fn compare_impostor_quads_measures_tight_against_squares() {
    if gpu_common::gpu_or_skip("compare_impostor_quads_measures_tight_against_squares").is_none() {
        return;
    }
    let dir = out_dir("bench-impostor-quads");
    let json = dir.join("q.json");
    let output = run_bench(
        &dir,
        &[
            "--techniques",
            "vat",
            "--counts",
            "3000",
            "--frames",
            "1",
            "--warmup",
            "2",
            "--size",
            "192x108",
            "--shadows",
            "off",
            "--compare-impostor-quads",
        ],
        &[("--json", &json)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "bench failed:\n{stdout}");
    assert!(
        stdout.contains("vat tight ÷ square impostor quads"),
        "{stdout}"
    );
    assert!(stdout.contains("tight quads"), "{stdout}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid JSON");
    assert_eq!(v["far_field"]["tight_impostors"], Value::Bool(true));
    let results = v["results"].as_array().expect("results");
    let (tight, square): (Vec<&Value>, Vec<&Value>) = results
        .iter()
        .partition(|r| r["square_impostors"] == Value::Bool(false));
    assert_eq!((tight.len(), square.len()), (1, 1));
    for key in ["visible", "triangles"] {
        assert_eq!(tight[0][key], square[0][key], "{key}: the same crowd drawn");
    }
    let ratios = v["ratios"]["tight_over_square_impostors"]
        .as_array()
        .expect("ratios");
    assert_eq!(ratios.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--aa taa --compare-aa` measures the run with TAA and again with 4x
/// MSAA, with nothing, and with nothing but the velocity target: each
/// result says which, TAA's has the resolve's GPU time (where the adapter
/// has timestamps), and the ratios name each baseline.
#[test]
fn compare_aa_measures_taa_against_msaa_off_and_the_velocity_target() {
    if gpu_common::gpu_or_skip("compare_aa_measures_taa_against_msaa_off_and_the_velocity_target")
        .is_none()
    {
        return;
    }
    let dir = out_dir("bench-aa");
    let (json, csv) = (dir.join("a.json"), dir.join("a.csv"));
    let output = run_bench(
        &dir,
        &[
            "--techniques",
            "vat",
            "--counts",
            "200",
            "--frames",
            "3",
            "--warmup",
            "2",
            "--size",
            "160x90",
            "--shadows",
            "off",
            "--aa",
            "taa",
            "--compare-aa",
        ],
        &[("--json", &json), ("--csv", &csv)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "bench failed:\n{stdout}");
    for line in [
        "anti-aliasing ÷ 4x MSAA",
        "anti-aliasing ÷ none",
        "velocity target ÷ none",
    ] {
        assert!(stdout.contains(line), "no '{line}' in:\n{stdout}");
    }
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid JSON");
    assert_eq!(v["aa"], "taa");
    let results = v["results"].as_array().expect("results");
    let kinds: Vec<(String, bool, bool)> = results
        .iter()
        .map(|r| {
            (
                r["aa"].as_str().unwrap().to_owned(),
                r["velocity"].as_bool().unwrap(),
                r["aa_baseline"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("taa".to_owned(), true, false),
            ("msaa".to_owned(), false, true),
            ("off".to_owned(), false, true),
            ("off".to_owned(), true, true),
        ]
    );
    let timed = results[0]["gpu_ms"].is_object();
    assert_eq!(
        results[0]["resolve_gpu_ms"].is_object(),
        timed,
        "the resolve is timed with the scene"
    );
    assert!(
        results[1]["resolve_gpu_ms"].is_null(),
        "MSAA has no resolve pass"
    );
    for name in ["aa_over_msaa", "aa_over_off", "velocity_over_off"] {
        assert_eq!(
            v["ratios"][name].as_array().map(Vec::len),
            Some(1),
            "{name}"
        );
    }
    let csv = std::fs::read_to_string(&csv).expect("csv");
    assert_eq!(
        csv.lines().filter(|l| l.contains(",aa-baseline,")).count(),
        3,
        "{csv}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--compare-state` measures the run with each listed instance's state
/// kept by the cull pass and again computed by every vertex: the same
/// instances and triangles drawn, each result says which and whether its
/// lists kept the state, and the report gives the ratio.
#[test]
fn compare_state_measures_the_kept_state_against_computing_it() {
    if gpu_common::gpu_or_skip("compare_state_measures_the_kept_state_against_computing_it")
        .is_none()
    {
        return;
    }
    let dir = out_dir("bench-state");
    let (json, csv) = (dir.join("s.json"), dir.join("s.csv"));
    let output = run_bench(
        &dir,
        &[
            "--techniques",
            "vat",
            "--counts",
            "300",
            "--frames",
            "1",
            "--warmup",
            "1",
            "--size",
            "160x90",
            "--shadows",
            "off",
            "--compare-state",
        ],
        &[("--json", &json), ("--csv", &csv)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "bench failed:\n{stdout}");
    assert!(stdout.contains("vat state kept ÷ computed"), "{stdout}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid JSON");
    assert_eq!(v["far_field"]["resolved_state"], Value::Bool(true));
    let results = v["results"].as_array().expect("results");
    let (kept, computed): (Vec<&Value>, Vec<&Value>) = results
        .iter()
        .partition(|r| r["state_computed"] == Value::Bool(false));
    assert_eq!((kept.len(), computed.len()), (1, 1));
    assert_eq!(kept[0]["resolved_state"], Value::Bool(true));
    assert_eq!(computed[0]["resolved_state"], Value::Bool(false));
    for key in ["visible", "triangles"] {
        assert_eq!(
            kept[0][key], computed[0][key],
            "{key}: the same crowd drawn"
        );
    }
    let ratios = v["ratios"]["state_kept_over_computed"]
        .as_array()
        .expect("ratios");
    assert_eq!(ratios.len(), 1);
    let csv = std::fs::read_to_string(&csv).expect("csv");
    assert!(csv.lines().any(|l| l.contains(",state-computed,")), "{csv}");
    // The kept state's column: 1 for the kept run, 0 for the computed.
    assert_eq!(csv_column(&csv, "resolved_state"), ["1", "0"], "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The cells of the CSV's column `name`, a row each (no cell holds a
/// comma).
fn csv_column<'a>(csv: &'a str, name: &str) -> Vec<&'a str> {
    let column = csv
        .lines()
        .next()
        .and_then(|h| h.split(',').position(|c| c == name))
        .unwrap_or_else(|| panic!("no {name} column: {csv}"));
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').nth(column).unwrap_or_default())
        .collect()
}
