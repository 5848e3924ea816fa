//! Reference frames: the pictures and counts of a matrix of views, each
//! compared with what the renderer drew when the matrix was recorded.
//!
//! The matrix: every technique × six ways through the cull pass (culling
//! off; culling alone; culling and LOD; with impostors; occlusion culling
//! with and without impostors) × shadows off and on, for each scenario
//! (the horse's herd, a band, its track, the bird's flock, a standing
//! crowd, a packed bake, and scenes of two and three models) under 4×
//! MSAA and under TAA. One renderer per scenario and anti-aliasing draws
//! its views in a fixed order, switching live (the way the panel does),
//! two frames each (occlusion culling's first phase and TAA's history
//! need the frame before); the second frame is what is compared, with
//! its culling counts, drawn instances, draw calls and upload bytes.
//!
//! A picture is compared by a 64-bit FNV-1a hash of its pixels, byte for
//! byte, on the rasterizer the matrix was recorded on (the adapter, its
//! driver and the CPU a CPU rasterizer compiles for; `frames-*.rasterizer`);
//! elsewhere only the counts are compared, and the test says so. Under MSAA, a view with occlusion culling must also draw the
//! picture of the same view without it (`occlusion_changes`). Two runs
//! are recorded, each in its own file under `tests/reference/`: `quick`
//! (every technique and every cull path at least once in each scenario,
//! the subset the test suite runs) and `full` (the whole matrix, run
//! with `STAMPEDE_REFERENCE=full`).
//! `STAMPEDE_REFERENCE_RECORD=1` writes the file instead of comparing;
//! `STAMPEDE_REFERENCE_PNG=DIR` also writes every picture there.

mod gpu_common;
mod reference_common;

use reference_common::*;
use stampede::crowd::motion::Aa;

#[test]
fn the_reference_frames_are_drawn_again() {
    let Some(gpu) = gpu_common::gpu_or_skip("reference_frames") else {
        return;
    };
    let run = std::env::var("STAMPEDE_REFERENCE").unwrap_or_else(|_| "quick".into());
    let full = match run.as_str() {
        "quick" => false,
        "full" => true,
        other => panic!("STAMPEDE_REFERENCE={other}: quick or full"),
    };
    let Some(models) = Models::load() else {
        return;
    };
    let records = draw_matrix(&gpu, &models, full);
    let changed = occlusion_changes(&records);
    check_or_record(&gpu, &run, &records);
    assert!(
        changed.is_empty(),
        "occlusion culling changed {} pictures:\n{}",
        changed.len(),
        changed.join("\n")
    );
}

/// Occlusion culling hides only what is hidden: with it, every
/// technique draws the picture it draws without it, shadows on (the
/// compute techniques' early step once skinned with the late step's
/// parameters, so their casters outside the camera's view were not
/// skinned). The band and the packed bake, whose shadows fall from
/// horses the camera does not see.
#[test]
fn occlusion_culling_leaves_every_technique_s_picture_alone() {
    let Some(gpu) = gpu_common::gpu_or_skip("reference_frames") else {
        return;
    };
    let Some(models) = Models::load() else {
        return;
    };
    let mut views = Vec::new();
    for &kind in stampede::render::TechniqueKind::ALL {
        for (with, without) in OCCLUSION_PAIRS {
            views.push((true, with, kind));
            views.push((true, without, kind));
        }
    }
    let mut records = std::collections::BTreeMap::new();
    for scenario in scenarios(&models)
        .iter()
        .filter(|s| ["band", "packed"].contains(&s.name))
    {
        draw_views(&gpu, scenario, Aa::Msaa, &views, &mut records);
    }
    assert_eq!(records.len(), 2 * views.len(), "every view is drawn");
    let changed = occlusion_changes(&records);
    assert!(
        changed.is_empty(),
        "occlusion culling changed {} of {} pictures:\n{}",
        changed.len(),
        records.len() / 2,
        changed.join("\n")
    );
}
