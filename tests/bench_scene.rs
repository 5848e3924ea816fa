//! `stampede bench` over a scene of several models, through the binary.

mod bench_common;
mod gpu_common;

use bench_common::{out_dir, positive, run_bench};
use serde_json::Value;

/// A scene of several models: measured once per technique at its total,
/// what each model drew reported (adding up to the whole), the draw calls
/// counted, and with --compare-separate the same models drawn by one
/// renderer each into the frame, with the scene ÷ separate ratio; the
/// scene's draw calls do not grow with its models where multi-draw is
/// there (the separate renderers' do).
#[test]
fn a_scene_is_measured_per_model_and_against_separate_renderers() {
    if gpu_common::gpu_or_skip("a_scene_is_measured_per_model").is_none() {
        return;
    }
    let dir = out_dir("bench-scene");
    let (json, csv) = (dir.join("s.json"), dir.join("s.csv"));
    let output = run_bench(
        &dir,
        &[
            "--model",
            "horse:60",
            "--model",
            "bird:40",
            "--techniques",
            "vat",
            "--frames",
            "2",
            "--warmup",
            "1",
            "--size",
            "96x54",
            // At this size every horse would be a splat, which no model's
            // counts hold: the per-model counts are of impostors.
            "--splat",
            "off",
            "--compare-separate",
        ],
        &[("--json", &json), ("--csv", &csv)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "bench failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("horse ×60"), "{stdout}");
    assert!(
        stdout.contains("one scene ÷ separate renderers"),
        "{stdout}"
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("valid JSON");
    let models = v["models"].as_array().expect("models");
    let counts: Vec<(String, u64)> = models
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                m["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(counts, [("horse".into(), 60), ("bird".into(), 40)]);
    assert_eq!(v["model"]["count"].as_u64(), Some(100));
    // The scene's far field: every model's atlas in one, drawn before
    // the timed frames.
    assert_eq!(v["far_field"]["impostors"], true, "{}", v["far_field"]);
    positive(&v["far_field"]["atlas_bytes"], "far_field.atlas_bytes");
    // Each model's own mesh levels, not the first model's for all.
    let levels = v["far_field"]["level_triangles"]
        .as_array()
        .expect("level_triangles");
    assert_eq!(levels.len(), models.len(), "{}", v["far_field"]);
    let finest: Vec<u64> = levels.iter().map(|l| l[0].as_u64().unwrap()).collect();
    assert!(finest[0] != finest[1], "{finest:?}");
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 2, "the scene and the separate renderers");
    for r in results {
        assert_eq!(r["count"].as_u64(), Some(100));
        let per_model = r["per_model"].as_array().expect("per model");
        assert_eq!(per_model.len(), 2);
        let sum = |key: &str| {
            per_model
                .iter()
                .map(|m| m[key].as_u64().unwrap())
                .sum::<u64>()
        };
        assert_eq!(Some(sum("visible")), r["visible"].as_u64(), "{r}");
        assert_eq!(Some(sum("triangles")), r["triangles"].as_u64(), "{r}");
        assert!(sum("visible") > 0, "the view holds the crowd: {r}");
        assert!(r["draw_calls"].as_u64().unwrap() > 0);
    }
    let scene = results.iter().find(|r| r["separate"] == false).unwrap();
    let separate = results.iter().find(|r| r["separate"] == true).unwrap();
    let calls = |r: &Value| r["draw_calls"].as_u64().unwrap();
    // Each renderer draws the same passes as the scene (its cascades, its
    // impostors), so two models' renderers draw at least as many calls.
    assert!(calls(separate) >= calls(scene), "{scene}\n{separate}");
    let ratio = v["ratios"]["scene_over_separate"]
        .as_array()
        .expect("ratio");
    assert_eq!(ratio.len(), 1);
    positive(&ratio[0]["wall_ms"], "scene_over_separate.wall_ms");
    let csv = std::fs::read_to_string(&csv).expect("csv");
    assert!(csv.lines().next().unwrap().ends_with(
        "draw_calls,visible_per_model,triangles_per_model,shadow_casters_dropped_per_cascade,shadow_casters_unseen_per_cascade,shadow_triangles_unseen_per_cascade,exact_visible,exact_occluded,exact_covering_none,exact_visible_triangles,exact_unoccluded_triangles,splats,resolved_state,cull_gpu_p50_ms,cull_gpu_p90_ms,cull_gpu_p99_ms,shadow_casters_listed,cascade_cull_gpu_p50_ms,cascade_cull_gpu_p90_ms,cascade_cull_gpu_p99_ms"
    ));
    assert!(csv.contains(",separate,"), "{csv}");
    let _ = std::fs::remove_dir_all(&dir);
}
