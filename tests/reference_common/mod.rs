//! The reference frames' matrix, its records and their comparison
//! (tests/reference_frames.rs). How a renderer is made and driven is in
//! `adapter.rs`, the only part that follows the renderer's interface.
#![allow(dead_code)]

mod adapter;

use serde::{Deserialize, Serialize};
use stampede::crowd::FrameSettings;
use stampede::crowd::cull::CullSettings;
use stampede::crowd::motion::Aa;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::{BehaviourSettings, Motion};
use stampede::gpu::GpuContext;
use stampede::render::TechniqueKind;
use stampede::vat::Precision;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

pub const SIZE: (u32, u32) = (128, 72);
pub const SEED: u64 = 11;
/// The two frames of every view, in seconds of scene time.
pub const TIMES: [f64; 2] = [1.5, 1.5 + 1.0 / 30.0];

/// The models the scenarios draw, loaded once.
pub struct Models {
    pub horse: Loaded,
    pub standing: Loaded,
    pub packed: Loaded,
    pub bird: Loaded,
    pub fox: Loaded,
}

impl Models {
    /// The models, or `None` (the reason printed) without the shared Fox.
    pub fn load() -> Option<Self> {
        let fox = shared_model("Fox.glb")?;
        let bake = |choice: &ModelChoice, precision| {
            load(choice, 30.0, precision, None).expect("the model bakes")
        };
        let mut standing = bake(&ModelChoice::Horse, Precision::F16);
        standing.motion = Motion::Stand;
        Some(Self {
            horse: bake(&ModelChoice::Horse, Precision::F16),
            standing,
            packed: bake(&ModelChoice::Horse, Precision::Packed),
            bird: bake(&ModelChoice::Bird, Precision::F16),
            fox: bake(&ModelChoice::File(fox), Precision::F16),
        })
    }
}

fn shared_model(name: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/models");
    if dir.is_dir() {
        return Some(dir.join(name));
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{} is missing on CI", dir.display());
    }
    eprintln!("skipped: {} is missing", dir.display());
    None
}

/// One scenario: its models with their counts, and the behaviour.
pub struct Scenario<'a> {
    pub name: &'static str,
    pub models: Vec<(&'a Loaded, u32)>,
    pub behaviour: bool,
}

pub fn scenarios(m: &Models) -> Vec<Scenario<'_>> {
    let s = |name, models, behaviour| Scenario {
        name,
        models,
        behaviour,
    };
    vec![
        s("herd", vec![(&m.horse, 300)], true),
        s("band", vec![(&m.horse, 24)], true),
        s("track", vec![(&m.horse, 200)], false),
        s("flock", vec![(&m.bird, 150)], true),
        s("stand", vec![(&m.standing, 150)], false),
        s("packed", vec![(&m.packed, 150)], true),
        s("pair", vec![(&m.horse, 120), (&m.bird, 80)], false),
        s("pair-living", vec![(&m.horse, 120), (&m.bird, 80)], true),
        s(
            "trio",
            vec![(&m.horse, 100), (&m.bird, 60), (&m.fox, 40)],
            true,
        ),
    ]
}

/// The six ways through the cull pass.
pub const CULLS: [&str; 6] = [
    "off",
    "culling",
    "lod",
    "impostors",
    "occlusion",
    "occlusion-meshes",
];

pub fn cull_settings(name: &str) -> CullSettings {
    let on = CullSettings::default();
    match name {
        "off" => CullSettings {
            culling: false,
            lod: false,
            ..on
        },
        "culling" => CullSettings { lod: false, ..on },
        "lod" => on.without_far_field(),
        "impostors" => on,
        "occlusion" => CullSettings {
            occlusion: true,
            ..on
        },
        "occlusion-meshes" => CullSettings {
            occlusion: true,
            ..on.without_far_field()
        },
        other => panic!("no cull path {other}"),
    }
}

/// What one view drew.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// FNV-1a of the second frame's RGBA8 pixels (hex), or why the
    /// technique could not draw the scenario.
    pub picture: String,
    pub drawn: u32,
    pub requested: u32,
    pub draw_calls: u32,
    pub upload_bytes: u64,
    /// The technique that drew (VAT when the asked one could not).
    pub technique: String,
    /// The camera's counts: instances and triangles per region, occluded.
    pub visible: Vec<u32>,
    pub triangles: Vec<u64>,
    pub occluded: u32,
    pub model_visible: Vec<u32>,
    /// Each shadow cascade's casters and triangles.
    pub cascades: Vec<(u32, u64)>,
    /// The technique's own pass: instances and vertices.
    pub pass: Option<(u32, u64)>,
}

pub fn fnv1a(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The views of one renderer, in order: shadows, then cull path, then
/// technique. The quick run keeps, for each (shadows, cull path), one
/// technique, turning with the scenario, so that every technique meets
/// every cull path over the scenarios.
fn views(scenario: usize, full: bool) -> Vec<(bool, &'static str, TechniqueKind)> {
    let kinds = TechniqueKind::ALL;
    let mut out = Vec::new();
    for shadows in [false, true] {
        for (c, cull) in CULLS.iter().enumerate() {
            for (k, &kind) in kinds.iter().enumerate() {
                let turn = (scenario + c + 3 * shadows as usize) % kinds.len();
                if full || k == turn {
                    out.push((shadows, *cull, kind));
                }
            }
        }
    }
    out
}

/// Draws the matrix: `name → record`, names like
/// `herd/msaa/shadows/impostors/vat`.
pub fn draw_matrix(gpu: &Arc<GpuContext>, models: &Models, full: bool) -> BTreeMap<String, Record> {
    let mut out = BTreeMap::new();
    for (s, scenario) in scenarios(models).iter().enumerate() {
        for aa in [Aa::Msaa, Aa::Taa] {
            draw_views(gpu, scenario, aa, &views(s, full), &mut out);
        }
    }
    out
}

/// Draws `views` (shadows, cull path, technique) of `scenario` under `aa`
/// with one renderer, in order, into `out`.
pub fn draw_views(
    gpu: &Arc<GpuContext>,
    scenario: &Scenario<'_>,
    aa: Aa,
    views: &[(bool, &str, TechniqueKind)],
    out: &mut BTreeMap<String, Record>,
) {
    let png_dir = std::env::var_os("STAMPEDE_REFERENCE_PNG").map(PathBuf::from);
    if let Some(dir) = &png_dir {
        std::fs::create_dir_all(dir).expect("the picture folder");
    }
    let behaviour = BehaviourSettings {
        enabled: scenario.behaviour,
        ..BehaviourSettings::default()
    };
    let mut view = adapter::Drawn::new(gpu, &scenario.models, behaviour, aa);
    for &(shadows, cull, kind) in views {
        let name = format!(
            "{}/{}/{}/{}/{}",
            scenario.name,
            aa.label(),
            if shadows { "shadows" } else { "no-shadows" },
            cull,
            kind.name()
        );
        let started = std::time::Instant::now();
        let (record, image) = view.draw(kind, cull_settings(cull), shadows);
        eprintln!(
            "{name}: {} ({:.0} ms)",
            record.picture,
            started.elapsed().as_secs_f64() * 1e3
        );
        if let (Some(dir), Some(image)) = (&png_dir, image) {
            let file = dir.join(name.replace('/', "_") + ".png");
            image.save_png(&file).expect("the picture is written");
        }
        out.insert(name, record);
    }
}

/// The cull paths occlusion culling is added to, each with the path it
/// adds to: its pictures must be the same (the occluded are hidden).
pub const OCCLUSION_PAIRS: [(&str, &str); 2] =
    [("occlusion", "impostors"), ("occlusion-meshes", "lod")];

/// The views of `records` where occlusion culling changed the picture:
/// under MSAA, each occlusion view whose picture differs from the same
/// view's without it. (Under TAA the history of the frame before differs:
/// occlusion culling's first frame draws differently by design.)
pub fn occlusion_changes(records: &BTreeMap<String, Record>) -> Vec<String> {
    let mut changed = Vec::new();
    for (name, record) in records {
        let parts: Vec<&str> = name.split('/').collect();
        let [scenario, "msaa", shadows, cull, kind] = parts.as_slice() else {
            continue;
        };
        let Some((_, without)) = OCCLUSION_PAIRS.iter().find(|(with, _)| with == cull) else {
            continue;
        };
        let partner = format!("{scenario}/msaa/{shadows}/{without}/{kind}");
        if let Some(other) = records.get(&partner)
            && other.picture != record.picture
        {
            changed.push(format!(
                "{name}: {} against {partner}: {}",
                record.picture, other.picture
            ));
        }
    }
    changed
}

fn reference_path(run: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/reference/frames-{run}.json"))
}

/// What decides a picture's bytes besides the renderer: the adapter and
/// its driver and, for a CPU rasterizer such as lavapipe, the CPU whose
/// instructions its JIT compiles for (the same Mesa and LLVM on two CPUs
/// round some pixels differently). A 64-bit FNV-1a hash, hex.
pub fn rasterizer(gpu: &GpuContext) -> String {
    let info = &gpu.info;
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("flags"))
                .map(str::to_owned)
        })
        .unwrap_or_default();
    let text = format!(
        "{} | {} | {} | {:?} | {cpu}",
        info.name, info.driver, info.driver_info, info.backend
    );
    fnv1a(text.as_bytes())
}

fn rasterizer_path(run: &str) -> PathBuf {
    reference_path(run).with_extension("rasterizer")
}

/// A record as it can be compared on another rasterizer: its picture's
/// hash left out (a refusal's reason is kept).
fn without_picture(r: &Record) -> Record {
    let p = &r.picture;
    let hash = p.len() >= 16 && p[..16].chars().all(|c| c.is_ascii_hexdigit());
    Record {
        picture: if hash { p[16..].to_owned() } else { p.clone() },
        ..r.clone()
    }
}

/// Writes the records (`STAMPEDE_REFERENCE_RECORD=1`) with the rasterizer
/// they were drawn on, or compares them with the file, listing every view
/// that differs. On another rasterizer (`rasterizer`) the pictures' hashes
/// cannot be compared byte for byte, and only the counts are: the test
/// says so.
pub fn check_or_record(gpu: &GpuContext, run: &str, records: &BTreeMap<String, Record>) {
    let path = reference_path(run);
    let here = rasterizer(gpu);
    if std::env::var("STAMPEDE_REFERENCE_RECORD").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("the folder");
        let text = serde_json::to_string_pretty(records).expect("serializes");
        std::fs::write(&path, text + "\n").expect("the reference is written");
        std::fs::write(rasterizer_path(run), format!("{here}\n")).expect("written");
        eprintln!(
            "recorded {} views in {} (rasterizer {here})",
            records.len(),
            path.display()
        );
        return;
    }
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (record it first)", path.display()));
    let reference: BTreeMap<String, Record> = serde_json::from_str(&text).expect("parses");
    let recorded_on = std::fs::read_to_string(rasterizer_path(run)).unwrap_or_default();
    let pictures = recorded_on.trim() == here;
    if !pictures {
        eprintln!(
            "the reference was recorded on rasterizer {:?}, this is {here}: the pictures are not \
             compared, only the counts, draw calls, uploads and refusals",
            recorded_on.trim()
        );
    }
    let comparable = |r: &Record| {
        if pictures {
            r.clone()
        } else {
            without_picture(r)
        }
    };
    let mut differ = Vec::new();
    for (name, want) in &reference {
        match records.get(name) {
            None => differ.push(format!("{name}: not drawn")),
            Some(got) if comparable(got) != comparable(want) => {
                differ.push(format!("{name}:\n  recorded {want:?}\n  drawn    {got:?}"))
            }
            Some(_) => {}
        }
    }
    for name in records.keys().filter(|n| !reference.contains_key(*n)) {
        differ.push(format!("{name}: not in the reference"));
    }
    assert!(
        differ.is_empty(),
        "{} of {} views differ from {}:\n{}",
        differ.len(),
        reference.len(),
        path.display(),
        differ.join("\n")
    );
}

/// The frame settings of a view's frame `k`.
pub fn settings(k: usize) -> FrameSettings {
    FrameSettings {
        time: TIMES[k],
        ..FrameSettings::default()
    }
}
