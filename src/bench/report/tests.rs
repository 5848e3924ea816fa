//! Unit tests of the report: ratios, tables, CSV and JSON shapes.
use super::*;

fn p(v: f64) -> Percentiles {
    Percentiles {
        p50: v,
        p90: v * 1.1,
        p99: v * 1.2,
    }
}

fn result(technique: &str, count: u32, cpu: f64, wall: f64, gpu: Option<f64>) -> RunResult {
    RunResult {
        technique: technique.into(),
        count,
        drawn: count,
        cap: None,
        morphs_ignored: false,
        frames: 3,
        cpu_ms: p(cpu),
        gpu_ms: gpu.map(p),
        shadow_gpu_ms: None,
        cull_gpu_ms: None,
        cascade_cull_gpu_ms: None,
        technique_gpu_ms: None,
        pass_instances: None,
        pass_vertices: None,
        wall_ms: p(wall),
        technique_cpu_ms: p(cpu / 2.0),
        behaviour_cpu_ms: p(0.0),
        upload_bytes_per_frame: 0,
        gpu_memory_bytes: 1,
        visible: count,
        triangles: count as u64 * 10,
        unculled: false,
        far_field_off: false,
        square_impostors: false,
        splat_off: false,
        state_computed: false,
        resolved_state: false,
        occlusion_off: false,
        occluded: 0,
        after_cut_wall_ms: Vec::new(),
        exact: None,
        visible_per_level: vec![count],
        impostors: 0,
        splats: 0,
        shadow_casters: Vec::new(),
        shadow_triangles: Vec::new(),
        shadow_casters_dropped: Vec::new(),
        shadow_casters_listed: 0,
        shadow_casters_unseen: Vec::new(),
        shadow_triangles_unseen: Vec::new(),
        aa: "msaa".into(),
        velocity: false,
        aa_baseline: false,
        resolve_gpu_ms: None,
        draw_calls: 1,
        per_model: Vec::new(),
        separate: false,
    }
}

fn report(results: Vec<RunResult>) -> BenchReport {
    let mut r = BenchReport {
        adapter: AdapterReport {
            name: "test".into(),
            backend: "Vulkan".into(),
            device_type: "Cpu".into(),
            driver: "x".into(),
            off: vec!["no early depth test".into()],
        },
        model: ModelReport {
            name: "horse".into(),
            vertices: 1,
            triangles: 1,
            joints: 1,
            clips: 1,
            vat_bytes: 1,
            precision: "f16".into(),
            bake_ms: 1.0,
            count: None,
        },
        models: Vec::new(),
        size: [64, 64],
        culling: true,
        lod: true,
        lod_error_px: 1.0,
        shadows: true,
        occlusion: false,
        aa: "msaa".into(),
        far_field: None,
        frames: 3,
        warmup: 1,
        techniques_available: vec!["vat".into()],
        results,
        ratios: Ratios::default(),
        skipped: Vec::new(),
    };
    r.compute_ratios();
    r
}

#[test]
fn ratio_arithmetic() {
    let r = report(vec![
        result("vat", 100, 2.0, 10.0, Some(4.0)),
        result("skinning", 100, 8.0, 30.0, Some(6.0)),
        result("static", 100, 1.0, 8.0, None),
        result("vat", 1000, 3.0, 40.0, Some(20.0)),
        result("skinning", 1000, 60.0, 200.0, Some(30.0)),
    ]);
    let s = &r.ratios.skinning_over_vat;
    assert_eq!(s.len(), 2);
    assert_eq!(
        s[0],
        RatioAtCount {
            count: 100,
            wall_ms: Some(3.0),
            cpu_ms: Some(4.0),
            gpu_ms: Some(1.5)
        }
    );
    assert_eq!(s[1].count, 1000);
    assert_eq!(s[1].wall_ms, Some(5.0));
    assert_eq!(s[1].cpu_ms, Some(20.0));
    // Static was measured at 100 only, without GPU time.
    let v = &r.ratios.vat_over_static;
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].wall_ms, Some(1.25));
    assert_eq!(v[0].cpu_ms, Some(2.0));
    assert_eq!(v[0].gpu_ms, None);
    let scale = r
        .ratios
        .vat_cpu_largest_over_smallest
        .as_ref()
        .expect("vat at two counts");
    assert_eq!((scale.smallest_count, scale.largest_count), (100, 1000));
    assert_eq!(scale.ratio, Some(1.5));
}

#[test]
fn culled_over_unculled_pairs_each_technique_and_count() {
    let mut off = result("vat", 100, 2.0, 40.0, None);
    off.unculled = true;
    let mut static_off = result("static", 100, 1.0, 20.0, None);
    static_off.unculled = true;
    let r = report(vec![
        result("vat", 100, 1.0, 10.0, None),
        off,
        result("static", 100, 1.0, 8.0, None),
        static_off,
    ]);
    let c = &r.ratios.culled_over_unculled;
    assert_eq!(c.len(), 2);
    assert_eq!((c[0].technique.as_str(), c[0].count), ("vat", 100));
    assert_eq!(c[0].wall_ms, Some(0.25));
    assert_eq!(c[1].wall_ms, Some(0.4));
    // VAT ÷ static compares the culled runs only.
    assert_eq!(r.ratios.vat_over_static[0].wall_ms, Some(1.25));
    assert!(r.text().contains("vat culled ÷ unculled"), "{}", r.text());
}

#[test]
fn missing_techniques_give_no_ratios() {
    let r = report(vec![result("vat", 10, 1.0, 1.0, None)]);
    assert!(r.ratios.skinning_over_vat.is_empty());
    assert!(r.ratios.vat_over_static.is_empty());
    assert_eq!(r.ratios.vat_cpu_largest_over_smallest, None);
    assert!(r.text().contains("n/a"));
}

#[test]
fn csv_has_a_row_per_result() {
    let r = report(vec![
        result("vat", 10, 1.0, 2.0, None),
        result("vat", 20, 1.0, 2.0, Some(0.5)),
    ]);
    let csv = r.csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3);
    let columns = lines[0].split(',').count();
    assert!(lines.iter().all(|l| l.split(',').count() == columns));
    assert!(lines[1].contains(",,"), "no GPU time leaves cells empty");
}

#[test]
fn json_round_trips() {
    let r = report(vec![result("vat", 10, 1.0, 2.0, None)]);
    let text = serde_json::to_string(&r).expect("serializable");
    let back: BenchReport = serde_json::from_str(&text).expect("parses");
    assert_eq!(back, r);
    let v: serde_json::Value = serde_json::from_str(&text).expect("parses");
    assert!(v["results"][0]["gpu_ms"].is_null());
}

/// The GPU ratios compare every timed pass: a technique that moves work
/// from the scene pass into a pass of its own (compute skinning's skin
/// pass), the shadow passes or the cull passes (the splats) is charged for
/// it.
#[test]
fn gpu_ratios_add_the_shadow_cull_and_own_passes() {
    let mut computed = result("compute-skinning", 100, 1.0, 10.0, Some(2.0));
    computed.technique_gpu_ms = Some(p(3.0));
    computed.shadow_gpu_ms = Some(p(1.0));
    computed.cull_gpu_ms = Some(p(2.0));
    let mut vat = result("vat", 100, 1.0, 10.0, Some(4.0));
    vat.shadow_gpu_ms = Some(p(2.0));
    vat.cull_gpu_ms = Some(p(2.0));
    let r = report(vec![vat, computed]);
    let ratio = &r.ratios.compute_skinning_over_vat[0];
    assert_eq!(ratio.gpu_ms, Some(1.0), "(2 + 1 + 3 + 2) ÷ (4 + 2 + 2)");
}

#[test]
fn a_scene_reports_per_model_and_over_its_separate_renderers() {
    let draws = |v: [u32; 2]| {
        ["horse", "bird"]
            .iter()
            .zip(v)
            .map(|(n, visible)| ModelDraws {
                name: n.to_string(),
                count: 60,
                visible,
                triangles: visible as u64 * 100,
            })
            .collect::<Vec<_>>()
    };
    let mut scene = result("vat", 120, 2.0, 10.0, Some(4.0));
    scene.per_model = draws([50, 40]);
    scene.draw_calls = 3;
    let mut separate = result("vat", 120, 4.0, 20.0, Some(5.0));
    separate.per_model = draws([50, 40]);
    separate.draw_calls = 6;
    separate.separate = true;
    let mut r = report(vec![scene, separate]);
    r.models = vec![r.model.clone(), r.model.clone()];
    r.compute_ratios();
    let ratio = &r.ratios.scene_over_separate;
    assert_eq!(ratio.len(), 1);
    assert_eq!(ratio[0].wall_ms, Some(0.5));
    assert_eq!(ratio[0].cpu_ms, Some(0.5));
    // The ratios of the techniques compare the scene's own results only.
    assert!(r.find("vat", 120).is_some_and(|f| !f.separate));
    let text = r.text();
    assert!(text.contains("vat (separate)"), "{text}");
    assert!(
        text.contains("3 draw calls; drawn per model: horse 50/60"),
        "{text}"
    );
    assert!(text.contains("one scene ÷ separate renderers"), "{text}");
    let csv = r.csv();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    assert!(rows.iter().all(|row| row.len() == header.len()));
    assert_eq!(rows[1][col("settings")], "separate");
    assert_eq!(rows[1][col("draw_calls")], "6");
    assert_eq!(rows[0][col("visible_per_model")], "horse:50;bird:40");
}
