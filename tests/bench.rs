//! `stampede bench` end to end: a small run through the binary writes JSON
//! with every field of the schema, positive numbers where they must be,
//! a CSV row per result and a chart; bad flags refused; compute skinning's
//! own pass. (The comparisons: tests/bench_compare.rs; a scene of several
//! models: tests/bench_scene.rs.)

mod bench_common;
mod gpu_common;

use bench_common::{out_dir, percentiles, positive, run_bench};
use serde_json::Value;
use std::process::Command;

#[test]
fn small_bench_writes_valid_json_csv_and_chart() {
    let Some(gpu) = gpu_common::gpu_or_skip("small_bench_writes_valid_json_csv_and_chart") else {
        return;
    };
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
    // The report's off: lines are the device's (lavapipe has the early
    // depth test; `--early-depth off` below).
    let off = v["adapter"]["off"].as_array().expect("adapter.off");
    let early = wgpu::Features::SHADER_EARLY_DEPTH_TEST;
    assert_eq!(
        off.iter()
            .any(|l| l.as_str().is_some_and(|l| l.contains("early depth"))),
        !gpu.device.features().contains(early),
        "{text}"
    );
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
        // The cascades went over the camera's list of casters (on by
        // default): every cascade's casters are on it, and it is no longer
        // than the crowd.
        assert_eq!(far["caster_list"], true, "{text}");
        let listed = r["shadow_casters_listed"].as_u64().expect("listed casters");
        let most = r["shadow_casters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_u64())
            .max()
            .unwrap_or(0);
        assert!(
            most <= listed && listed <= count,
            "{what}: {listed} casters listed, a cascade drew {most}"
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
            && h.ends_with(",shadow_casters_per_cascade,shadow_triangles_per_cascade,occluded,aa,velocity,resolve_gpu_p50_ms,resolve_gpu_p90_ms,resolve_gpu_p99_ms,draw_calls,visible_per_model,triangles_per_model,shadow_casters_dropped_per_cascade,shadow_casters_unseen_per_cascade,shadow_triangles_unseen_per_cascade,exact_visible,exact_occluded,exact_covering_none,exact_visible_triangles,exact_unoccluded_triangles,splats,resolved_state,cull_gpu_p50_ms,cull_gpu_p90_ms,cull_gpu_p99_ms,shadow_casters_listed,cascade_cull_gpu_p50_ms,cascade_cull_gpu_p90_ms,cascade_cull_gpu_p99_ms")),
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
        assert_eq!(
            r["cull_gpu_ms"].is_null(),
            r["gpu_ms"].is_null(),
            "cull time where the scene pass is timed: {r}"
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

/// `--early-depth off` opens the device as a browser's (no early depth
/// test for shaders that write depth): the report says so, in the text
/// and the JSON, and the impostors are drawn all the same.
#[test]
fn early_depth_off_is_a_device_without_it() {
    if gpu_common::gpu_or_skip("early_depth_off_is_a_device_without_it").is_none() {
        return;
    }
    let dir = out_dir("bench-early-depth");
    let json = dir.join("b.json");
    let output = run_bench(
        &dir,
        &[
            "--techniques",
            "vat",
            "--counts",
            "300",
            "--frames",
            "2",
            "--warmup",
            "1",
            "--size",
            "160x90",
            "--splat",
            "off",
            "--early-depth",
            "off",
        ],
        &[("--json", &json)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bench failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("off: no early depth test"), "{stdout}");
    let text = std::fs::read_to_string(&json).expect("--json was written");
    let v: Value = serde_json::from_str(&text).expect("--json is valid JSON");
    let off = v["adapter"]["off"].as_array().expect("adapter.off");
    assert!(
        off.iter()
            .any(|l| l.as_str().is_some_and(|l| l.contains("early depth"))),
        "{text}"
    );
    let impostors = v["results"][0]["impostors"].as_u64().unwrap_or(0);
    assert!(impostors > 0, "{text}");
}
