//! Mesh and animation LOD on the GPU: LOD on draws close to LOD off with
//! fewer triangles, a bigger pixel budget never draws more, the GPU's
//! choice of level and nearest frame equals the CPU rule, and an instance
//! marked for the nearest frame is drawn with the nearest frame.

mod gpu_common;
use gpu_common as common;

use stampede::crowd::FrameSettings;
use stampede::crowd::cull::CullSettings;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::lod::LodOptions;
use stampede::render::RendererConfig;
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::vat::Precision;

const SEED: u64 = 21;

fn view(count: u32, size: (u32, u32), lod: LodOptions) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("lod")?;
    let loaded = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("the horse bakes");
    let mut config =
        RendererConfig::for_model(&loaded, size.0, size.1, count, SEED, headless::FORMAT);
    config.clip = None;
    config.lod = lod;
    let view = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    Some((view, loaded))
}

fn settings() -> FrameSettings {
    FrameSettings {
        time: 2.3,
        ..FrameSettings::default()
    }
}

fn draw(
    view: &mut Headless,
    cull: CullSettings,
    s: &FrameSettings,
) -> (RgbaImage, u64, [u32; stampede::crowd::cull::MAX_REGIONS]) {
    view.renderer.set_cull_settings(cull);
    let image = view.render(s).expect("render");
    let stats = view.renderer.wait_for_cull_stats();
    (image, stats.triangles_total(), stats.visible)
}

/// The bound LOD on must stay within at 1 px: mean channel difference and
/// the share of pixels that differ by more than 48 of 255.
const MEAN_LIMIT: f64 = 1.5;
const FAILED_SHARE_LIMIT: f64 = 0.01;

#[test]
fn lod_on_draws_close_to_lod_off_with_fewer_triangles() {
    let Some((mut view, _)) = view(600, (320, 180), LodOptions::default()) else {
        return;
    };
    assert!(
        view.renderer.lod(0).levels.len() >= 3,
        "the horse has a LOD chain"
    );
    let s = settings();
    let off = CullSettings {
        lod: false,
        ..CullSettings::default()
    };
    let (full, full_tris, full_vis) = draw(&mut view, off, &s);
    let (lod, lod_tris, lod_vis) = draw(&mut view, CullSettings::default(), &s);
    assert_eq!(
        full_vis.iter().sum::<u32>(),
        lod_vis.iter().sum::<u32>(),
        "LOD changes levels, not who is drawn"
    );
    assert!(
        lod_vis[1..].iter().sum::<u32>() > 0,
        "some horses take a coarser level: {lod_vis:?}"
    );
    assert!(
        (lod_tris as f64) < full_tris as f64 * 0.8,
        "LOD on draws fewer triangles: {lod_tris} vs {full_tris}"
    );
    let d = common::diff(&full, &lod, 48);
    let share = d.failed as f64 / (full.width * full.height) as f64;
    eprintln!(
        "LOD on at 1 px: {lod_tris} of {full_tris} triangles, levels {lod_vis:?}; mean diff {:.3}, {:.3}% pixels over 48",
        d.mean,
        share * 100.0
    );
    assert!(
        d.mean < MEAN_LIMIT && share < FAILED_SHARE_LIMIT,
        "LOD on strays from LOD off: mean {:.3}, {:.3}% of pixels",
        d.mean,
        share * 100.0
    );
    // A much bigger budget draws fewer triangles still, and looks worse.
    let (coarse, coarse_tris, _) = draw(
        &mut view,
        CullSettings {
            lod_error_px: 50.0,
            ..CullSettings::default()
        },
        &s,
    );
    assert!(
        coarse_tris < lod_tris,
        "50 px: {coarse_tris} vs 1 px: {lod_tris}"
    );
    assert!(common::diff(&full, &coarse, 48).mean >= d.mean);
}

#[test]
fn a_bigger_budget_never_draws_more_triangles() {
    let Some((mut view, _)) = view(400, (192, 108), LodOptions::default()) else {
        return;
    };
    let s = settings();
    let mut last = u64::MAX;
    for px in [0.0f32, 0.5, 1.0, 4.0, 16.0, 1000.0] {
        let (_, tris, _) = draw(
            &mut view,
            CullSettings {
                lod_error_px: px,
                ..CullSettings::default()
            },
            &s,
        );
        assert!(
            tris <= last,
            "{px} px drew {tris} triangles, more than {last}"
        );
        last = tris;
    }
}

#[test]
fn instances_marked_nearest_draw_the_nearest_frame() {
    // One level only: LOD on changes nothing but the frame sampling.
    let Some((mut view, _)) = view(
        200,
        (192, 108),
        LodOptions {
            targets: vec![1.0],
            coarse: Vec::new(),
            ..LodOptions::default()
        },
    ) else {
        return;
    };
    assert_eq!(view.renderer.lod(0).levels.len(), 1);
    // Between two baked frames.
    let s = FrameSettings {
        time: 2.0 + 0.45 / 30.0,
        ..settings()
    };
    let lerped = CullSettings {
        lod: false,
        ..CullSettings::default()
    };
    let (lerp_img, _, _) = draw(&mut view, lerped, &s);
    let (nearest_img, _, _) = draw(
        &mut view,
        lerped,
        &FrameSettings {
            interpolate: false,
            ..s
        },
    );
    // Everyone under a 1000 px budget samples the nearest frame (drawn as
    // meshes: an impostor shows the atlas's frame, not the bake's).
    let (lod_img, _, _) = draw(
        &mut view,
        CullSettings {
            lod_error_px: 1000.0,
            impostors: false,
            ..CullSettings::default()
        },
        &s,
    );
    let lists = view
        .renderer
        .culler()
        .read_lists(&view.renderer.gpu)
        .expect("read back");
    let marked = lists.entries[0]
        .iter()
        .filter(|e| *e & (1 << 31) != 0)
        .count();
    assert_eq!(
        marked,
        lists.entries[0].len(),
        "every visible instance is marked nearest"
    );
    assert!(
        common::diff(&lerp_img, &nearest_img, 0).failed > 50,
        "the frames differ at this time"
    );
    let d = common::diff(&nearest_img, &lod_img, 0);
    assert_eq!(
        d.failed, 0,
        "animation LOD draws the nearest frame ({} pixels differ)",
        d.failed
    );
}

#[test]
fn the_lod_tint_colours_coarse_levels() {
    let Some((mut view, _)) = view(300, (192, 108), LodOptions::default()) else {
        return;
    };
    let s = settings();
    let (plain, _, levels) = draw(&mut view, CullSettings::default(), &s);
    assert!(
        levels[1..].iter().sum::<u32>() > 0,
        "some coarse levels: {levels:?}"
    );
    let (tinted, _, _) = draw(
        &mut view,
        CullSettings {
            lod_tint: true,
            ..CullSettings::default()
        },
        &s,
    );
    assert_eq!(view.renderer.last_frame.map(|f| f.lod_tint), Some(1));
    let d = common::diff(&plain, &tinted, 24);
    assert!(
        d.failed > 100,
        "the tint shows ({} pixels changed)",
        d.failed
    );
    // Both off: no cull pass, so no tint either.
    let off = CullSettings {
        culling: false,
        lod: false,
        lod_tint: true,
        ..CullSettings::default()
    };
    let (_, _, _) = draw(&mut view, off, &s);
    assert_eq!(view.renderer.last_frame.map(|f| f.lod_tint), Some(0));
}
