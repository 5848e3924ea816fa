//! `stampede bench` end to end: a small run through the binary writes JSON
//! with every field of the schema, positive numbers where they must be,
//! a CSV row per result and a chart; the comparisons and the exact
//! visibility count. (A scene of several models:
//! tests/bench_scene.rs.)

mod bench_common;
mod gpu_common;

use bench_common::{out_dir, percentiles, positive, run_bench};
use serde_json::Value;
use std::process::Command;

#[test]
fn small_bench_writes_valid_json_csv_and_chart() {
    if gpu_common::gpu_or_skip("small_bench_writes_valid_json_csv_and_chart").is_none() {
        return;
    }
    let dir = out_dir("bench");
    let (json, csv, chart) = (dir.join("b.json"), dir.join("b.csv"), dir.join("b.png"));
    let output = run_bench(
        &dir,
        &[
            "--techniques",
            "vat,static",
            "--counts",
            "30,10",
            "--frames",
            "3",
            "--warmup",
            "1",
            "--size",
            "256x128",
        ],
        &[("--json", &json), ("--csv", &csv), ("--chart", &chart)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bench failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("adapter:"), "{stdout}");
    assert!(stdout.contains("VAT ÷ static"), "{stdout}");

    let text = std::fs::read_to_string(&json).expect("--json was written");
    let v: Value = serde_json::from_str(&text).expect("--json is valid JSON");
    for key in ["name", "backend", "device_type", "driver"] {
        let s = v["adapter"][key].as_str().unwrap_or_default();
        assert!(!s.is_empty(), "adapter.{key} missing in {text}");
    }
    assert!(v["model"]["name"].as_str().is_some_and(|s| !s.is_empty()));
    for key in ["vertices", "triangles", "clips", "vat_bytes"] {
        positive(&v["model"][key], &format!("model.{key}"));
    }
    assert_eq!(v["size"], serde_json::json!([256, 128]));
    // The impostor atlas (on by default) is drawn before the timed frames
    // and reported: its bytes, build time, cell and cells.
    let far = &v["far_field"];
    assert_eq!(far["impostors"], true, "{text}");
    for key in ["atlas_bytes", "atlas_build_ms", "atlas_cell", "atlas_cells"] {
        positive(&far[key], &format!("far_field.{key}"));
    }

    let results = v["results"].as_array().expect("results is an array");
    assert_eq!(results.len(), 4, "2 techniques × 2 counts: {text}");
    let mut seen = Vec::new();
    for r in results {
        let technique = r["technique"].as_str().expect("technique is a string");
        let count = r["count"].as_u64().expect("count is a number");
        seen.push((technique.to_owned(), count));
        let what = format!("{technique} × {count}");
        // Per cascade: the casters drawn, and those the receivers rule
        // dropped.
        let cascades = |k: &str| r[k].as_array().map(Vec::len);
        assert_eq!(
            cascades("shadow_casters_dropped"),
            cascades("shadow_casters"),
            "{what}: dropped casters per cascade"
        );
        // And those the camera did not draw.
        assert_eq!(
            cascades("shadow_casters_unseen"),
            cascades("shadow_casters"),
            "{what}: unseen casters per cascade"
        );
        percentiles(&r["cpu_ms"], &format!("{what} cpu_ms"));
        percentiles(&r["wall_ms"], &format!("{what} wall_ms"));
        let gpu = r
            .get("gpu_ms")
            .expect("gpu_ms is present (null when unsupported)");
        if !gpu.is_null() {
            percentiles(gpu, &format!("{what} gpu_ms"));
        }
        assert!(
            r["upload_bytes_per_frame"].as_u64().is_some(),
            "{what}: upload_bytes_per_frame"
        );
        positive(&r["gpu_memory_bytes"], &format!("{what} gpu_memory_bytes"));
        assert_eq!(r["drawn"].as_u64(), Some(count), "{what}: nothing caps 30");
        // Culled on the GPU and read back: some of the crowd, and the
        // triangles of what was kept.
        let visible = r["visible"].as_u64().expect("visible is a number");
        let triangles = r["triangles"].as_u64().expect("triangles is a number");
        assert!(
            visible >= 1 && visible <= count,
            "{what}: visible {visible}"
        );
        assert!(
            triangles >= visible
                && triangles <= visible * v["model"]["triangles"].as_u64().unwrap_or(0),
            "{what}: {triangles} triangles for {visible} visible"
        );
        // The wall time includes the CPU time.
        let (cpu, wall) = (&r["cpu_ms"]["p50"], &r["wall_ms"]["p50"]);
        assert!(
            cpu.as_f64() <= wall.as_f64(),
            "{what}: cpu {cpu} > wall {wall}"
        );
    }
    seen.sort();
    assert_eq!(
        seen,
        [("static", 10), ("static", 30), ("vat", 10), ("vat", 30)].map(|(t, c)| (t.to_owned(), c))
    );

    let ratios = &v["ratios"];
    let vat_static = ratios["vat_over_static"]
        .as_array()
        .expect("vat_over_static");
    assert_eq!(vat_static.len(), 2);
    for r in vat_static {
        positive(&r["wall_ms"], "vat_over_static.wall_ms");
        positive(&r["cpu_ms"], "vat_over_static.cpu_ms");
    }
    assert_eq!(ratios["skinning_over_vat"], serde_json::json!([]));
    assert_eq!(ratios["compute_skinning_over_vat"], serde_json::json!([]));
    let scale = &ratios["vat_cpu_largest_over_smallest"];
    assert_eq!(scale["smallest_count"], 10);
    assert_eq!(scale["largest_count"], 30);
    positive(&scale["ratio"], "vat_cpu_largest_over_smallest.ratio");

    let csv = std::fs::read_to_string(&csv).expect("--csv was written");
    assert_eq!(csv.lines().count(), 5, "header + 4 rows:\n{csv}");
    assert!(
        csv.lines().next().is_some_and(|h| h
            .contains(",visible,triangles,shadow_gpu_p50_ms,shadow_gpu_p90_ms,shadow_gpu_p99_ms,technique_gpu_p50_ms,technique_gpu_p90_ms,technique_gpu_p99_ms,pass_instances,pass_vertices,")
            && h.ends_with(",shadow_casters_per_cascade,shadow_triangles_per_cascade,occluded,aa,velocity,resolve_gpu_p50_ms,resolve_gpu_p90_ms,resolve_gpu_p99_ms,draw_calls,visible_per_model,triangles_per_model,shadow_casters_dropped_per_cascade,shadow_casters_unseen_per_cascade,shadow_triangles_unseen_per_cascade,exact_visible,exact_occluded,exact_covering_none,exact_visible_triangles,exact_unoccluded_triangles")),
        "{csv}"
    );
    assert_eq!(v["culling"], serde_json::json!(true));
    // Shadows are on by default; their passes are timed where the scene's is.
    assert_eq!(v["shadows"], serde_json::json!(true));
    for r in v["results"].as_array().expect("results") {
        assert_eq!(
            r["shadow_gpu_ms"].is_null(),
            r["gpu_ms"].is_null(),
            "shadow time where the scene pass is timed: {r}"
        );
    }
    let png = std::fs::read(&chart).expect("--chart was written");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "chart is a PNG"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_flags_are_refused() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_stampede"))
            .arg("bench")
            .args(args)
            .output()
            .expect("the binary runs")
    };
    for args in [
        &["--techniques", "raytracing"][..],
        &["--counts", "ten"][..],
        &["--frames", "0"][..],
        &["--size", "wide"][..],
        &["--lod-error", "-1"][..],
        &["--lod-error", "nan"][..],
        &["--culling", "maybe"][..],
        &["--model", "horse", "--compare-separate"][..],
        &["--model", "horse:10", "--counts", "5"][..],
        &["--model", "horse:10", "--model", "bird:10", "--counts", "5"][..],
        &["--model", "horse:10", "--model", "horse:20"][..],
    ] {
        let out = run(args);
        assert!(!out.status.success(), "{args:?} was accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("error"), "{args:?}: {stderr}");
    }
}

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
    let ratios = v["ratios"]["culled_over_unculled"]
        .as_array()
        .expect("ratios");
    assert_eq!(ratios.len(), 1);
    positive(&ratios[0]["wall_ms"], "culled_over_unculled.wall_ms");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Compute skinning is measured with its skin pass: that pass's GPU time
/// apart from the scene pass's, the instances it skinned, and the compute
/// skinning ÷ VAT ratio; VAT has no such pass.
#[test]
fn compute_skinning_is_measured_with_its_skin_pass() {
    if gpu_common::gpu_or_skip("compute_skinning_is_measured_with_its_skin_pass").is_none() {
        return;
    }
    let dir = out_dir("bench-compute");
    let json = dir.join("c.json");
    let output = run_bench(
        &dir,
        &[
            "--techniques",
            "vat,compute-skinning",
            "--counts",
            "20",
            "--frames",
            "2",
            "--warmup",
            "1",
            "--size",
            "160x90",
            // At 160x90 every horse is under the impostor switch, and an
            // impostor (in the scene and in the shadows) needs no skinning.
            "--impostors",
            "off",
        ],
        &[("--json", &json)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "bench failed:\n{stdout}");
    assert!(stdout.contains("compute skinning ÷ VAT at"), "{stdout}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid JSON");
    let results = v["results"].as_array().expect("results");
    let find = |t: &str| {
        results
            .iter()
            .find(|r| r["technique"] == t)
            .unwrap_or_else(|| panic!("no {t} result: {v}"))
    };
    let (vat, computed) = (find("vat"), find("compute-skinning"));
    assert!(vat["technique_gpu_ms"].is_null() && vat["pass_instances"].is_null());
    let skinned = computed["pass_instances"]
        .as_u64()
        .expect("instances skinned");
    assert!((1..=20).contains(&skinned), "{skinned} skinned");
    assert_eq!(
        computed["technique_gpu_ms"].is_null(),
        computed["gpu_ms"].is_null(),
        "the skin pass is timed where the scene pass is: {computed}"
    );
    let ratios = v["ratios"]["compute_skinning_over_vat"]
        .as_array()
        .expect("ratios");
    assert_eq!(ratios.len(), 1);
    positive(&ratios[0]["wall_ms"], "compute_skinning_over_vat.wall_ms");
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
        csv.lines().skip(1).all(|l| !l.ends_with(",,,,,")),
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
