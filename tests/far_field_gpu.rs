//! The far field as a whole: a crowd drawn with impostors looks like the
//! crowd drawn with meshes while drawing fewer triangles, and the LOD
//! tint shows the impostor band; skipping the casters under a texel and
//! ending the shadows at the shadow distance change the opening views
//! within the bounds docs/lod.md states; a million horses with the
//! default settings give a screenshot on a CPU rasterizer.

mod gpu_common;
use gpu_common as common;

use stampede::crowd::cull::CullSettings;
use stampede::crowd::setup::{Loaded, ModelChoice, load};
use stampede::crowd::shadow::{ShadowDistance, ShadowSettings};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::RendererConfig;
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::vat::Precision;

const SEED: u64 = 3;

fn view(choice: ModelChoice, count: u32, size: (u32, u32)) -> Option<(Headless, Loaded)> {
    let gpu = common::gpu_or_skip("far_field")?;
    let loaded = load(&choice, 30.0, Precision::F16, None).expect("the model bakes");
    let mut config =
        RendererConfig::for_model(&loaded, size.0, size.1, count, SEED, headless::FORMAT);
    config.clip = None;
    config.behaviour = BehaviourSettings::on();
    let mut view = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    // The opening view at the time drawn (the herd has moved on by then).
    view.camera = view.renderer.camera_at(settings().time, 1.0);
    Some((view, loaded))
}

fn settings() -> FrameSettings {
    FrameSettings {
        time: 4.0,
        ..FrameSettings::default()
    }
}

fn draw(view: &mut Headless, cull: CullSettings, shadows: ShadowSettings) -> (RgbaImage, u64, u32) {
    view.renderer.set_cull_settings(cull);
    view.renderer.set_shadow_settings(shadows);
    let image = view.render(&settings()).expect("render");
    let stats = view.renderer.wait_for_cull_stats();
    (image, stats.triangles_total(), stats.impostors())
}

/// The casters and their triangles over every cascade of the last frame.
fn shadow_totals(view: &Headless) -> (u32, u64) {
    let stats = view.renderer.shadow_stats();
    let cascades = stats.iter().flatten();
    (
        cascades.clone().map(|s| s.visible_total()).sum(),
        cascades.map(|s| s.triangles_total()).sum(),
    )
}

/// Pixels of `tinted` that the tint made blue (the impostor band's
/// colour) where `plain` was not.
fn blue(tinted: &RgbaImage, plain: &RgbaImage) -> usize {
    let is_blue = |p: &[u8]| p[2] as i32 > p[0] as i32 + 60 && p[2] as i32 > p[1] as i32 + 25;
    tinted
        .pixels
        .chunks_exact(4)
        .zip(plain.pixels.chunks_exact(4))
        .filter(|(t, p)| is_blue(t) && !is_blue(p))
        .count()
}

/// A thousand horses in the herd's opening view with impostors and
/// without: the pictures agree within the bound (mean channel difference
/// and the share of pixels off by more than 48), the impostors draw fewer
/// triangles, and the LOD tint shows them in their own colour.
#[test]
fn a_thousand_horses_with_impostors_look_like_them_without() {
    let Some((mut view, _)) = view(ModelChoice::Horse, 1000, (320, 180)) else {
        return;
    };
    let shadows = ShadowSettings::default();
    let on = CullSettings::default();
    let off = CullSettings {
        impostors: false,
        ..on
    };
    let (with, with_tris, impostors) = draw(&mut view, on, shadows);
    let (without, without_tris, none) = draw(&mut view, off, shadows);
    let d = common::diff(&with, &without, 48);
    let share = d.failed as f64 / (320.0 * 180.0);
    eprintln!(
        "1,000 horses: {impostors} impostors, {with_tris} triangles with them, {without_tris} without; mean difference {:.2}, {:.2} % of pixels off by more than 48",
        d.mean,
        share * 100.0
    );
    assert_eq!(none, 0);
    assert!(impostors > 100, "the far field is impostors: {impostors}");
    assert!(
        with_tris < without_tris,
        "{with_tris} against {without_tris}"
    );
    assert!(
        d.mean <= 2.0 && share <= 0.01,
        "mean difference {:.2}, {} pixels off",
        d.mean,
        d.failed
    );
    let (tinted, ..) = draw(
        &mut view,
        CullSettings {
            lod_tint: true,
            ..on
        },
        shadows,
    );
    let (tinted_off, ..) = draw(
        &mut view,
        CullSettings {
            lod_tint: true,
            ..off
        },
        shadows,
    );
    let (band, none) = (blue(&tinted, &with), blue(&tinted_off, &without));
    eprintln!("the tint: {band} pixels of the impostor band ({none} without impostors)");
    assert!(band > 200 && none < band / 20, "{band} {none}");
}

/// The caster skipping (under a texel), the shadow distance, the casters'
/// camera-bounded levels and their larger error budget change the herd's
/// opening views within the bound, at a count where the far cascades hold
/// small horses.
#[test]
fn skipping_small_casters_and_ending_shadows_keep_the_opening_views() {
    for count in [20, 2000] {
        let Some((mut view, _)) = view(ModelChoice::Horse, count, (320, 180)) else {
            return;
        };
        let cull = CullSettings::default();
        let all = ShadowSettings {
            min_caster_texels: 0.0,
            distance: ShadowDistance::Off,
            camera_lod: false,
            caster_error_scale: 1.0,
            ..ShadowSettings::default()
        };
        let (everything, ..) = draw(&mut view, cull, all);
        view.renderer.wait_for_cull_stats();
        let (every_caster, every_triangle) = shadow_totals(&view);
        for (what, shadows) in [
            (
                "casters under a texel skipped",
                ShadowSettings {
                    min_caster_texels: 1.0,
                    ..all
                },
            ),
            (
                "the default shadow distance",
                ShadowSettings {
                    distance: ShadowDistance::Auto,
                    ..all
                },
            ),
            (
                "casters at no finer a level than the camera's",
                ShadowSettings {
                    camera_lod: true,
                    ..all
                },
            ),
            (
                "casters' error budget twice the camera's",
                ShadowSettings {
                    caster_error_scale: 2.0,
                    ..all
                },
            ),
            ("all four (the defaults)", ShadowSettings::default()),
        ] {
            let (image, ..) = draw(&mut view, cull, shadows);
            let (casters, triangles) = shadow_totals(&view);
            let d = common::diff(&image, &everything, 48);
            let share = d.failed as f64 / (320.0 * 180.0);
            eprintln!(
                "{count} horses, {what}: {casters} casters (of {every_caster}), {triangles} triangles (of {every_triangle}); mean difference {:.2}, {:.3} % of pixels off by more than 48",
                d.mean,
                share * 100.0
            );
            // The same cascades: skipping and coarser levels only take
            // away. (A shadow distance fits the cascades to a shorter range,
            // so a caster may fall in more of them.)
            if shadows.distance == all.distance {
                assert!(casters <= every_caster && triangles <= every_triangle);
            }
            if (shadows.camera_lod || shadows.caster_error_scale > 1.0)
                && shadows.distance == all.distance
            {
                assert!(
                    triangles < every_triangle,
                    "{count} horses, {what}: coarser levels draw fewer triangles"
                );
            }
            // FAR_FIELD_DUMP=1 writes the pictures to look at.
            if std::env::var("FAR_FIELD_DUMP").is_ok() {
                let dir = std::env::temp_dir();
                image
                    .save_png(&dir.join(format!("far-field-{count}-{}.png", what.len())))
                    .ok();
                everything
                    .save_png(&dir.join(format!("far-field-{count}-all.png")))
                    .ok();
            }
            // Isolated pixels differ where far horses cast as impostors
            // (their shadows' edges and self-shadowing), hence 0.4 %.
            assert!(
                d.mean <= 1.0 && share <= 0.004,
                "{count} horses, {what}: mean difference {:.2}, {} pixels off",
                d.mean,
                d.failed
            );
        }
    }
    // Coarse maps over the whole field, where far casters do fall under a
    // texel: skipping them changes the picture within the same bound.
    let Some((mut view, _)) = view(ModelChoice::Horse, 2000, (320, 180)) else {
        return;
    };
    let coarse = ShadowSettings {
        resolution: 256,
        min_caster_texels: 0.0,
        distance: ShadowDistance::Off,
        camera_lod: false,
        ..ShadowSettings::default()
    };
    let count = |view: &Headless| shadow_totals(view).0;
    let (all, ..) = draw(&mut view, CullSettings::default(), coarse);
    let every_caster = count(&view);
    let (skipped, ..) = draw(
        &mut view,
        CullSettings::default(),
        ShadowSettings {
            min_caster_texels: 1.0,
            ..coarse
        },
    );
    let kept = count(&view);
    let d = common::diff(&skipped, &all, 48);
    let share = d.failed as f64 / (320.0 * 180.0);
    eprintln!(
        "2000 horses, 256² maps: {kept} of {every_caster} casters over a texel; mean difference {:.2}, {:.3} % of pixels off by more than 48",
        d.mean,
        share * 100.0
    );
    assert!(kept < every_caster, "some casters are under a texel");
    assert!(
        d.mean <= 1.0 && share <= 0.002,
        "mean difference {:.2}, {} pixels off",
        d.mean,
        d.failed
    );
}

/// A million horses with the default settings: the screenshot is written
/// (the frame takes seconds on a CPU rasterizer, which the read-back now
/// waits for), and the far field draws them in a bounded number of
/// triangles.
#[test]
fn a_million_horses_with_the_defaults_give_a_screenshot() {
    if common::gpu_or_skip("a million horses").is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("stampede-million-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let png = dir.join("m.png");
    let started = std::time::Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args([
            "--headless",
            "--count",
            "1000000",
            "--size",
            "96x54",
            "--time",
            "2",
            "--screenshot",
        ])
        .arg(&png)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the stampede binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "a million horses: {:.1} s\n{err}",
        started.elapsed().as_secs_f64()
    );
    assert!(out.status.success(), "{err}");
    let image = RgbaImage::load_png(&png).expect("the screenshot");
    assert_eq!((image.width, image.height), (96, 54));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A horse cast as an impostor (the atlas seen from the sun) throws about
/// the shadow its mesh throws. With the switch at its largest the camera
/// draws a small herd close up as impostors and, by the camera's rule, the
/// cascades cast them as impostors too; the shadows (pixels darker than
/// the same view without shadows) against the same view with the casters
/// drawn as meshes (the camera's rule off). The impostor's shadow is its
/// silhouette from the atlas direction nearest the sun (yaws 30° apart,
/// elevations up to 25°), stretched along a low sun: close up the two
/// overlap by IoU 0.60 (docs/lod.md); without the impostors' shadow draw
/// they share nothing.
#[test]
fn an_impostor_casts_the_shadow_its_mesh_casts() {
    let Some((mut view, _)) = view(ModelChoice::Horse, 5, (320, 180)) else {
        return;
    };
    let cull = CullSettings {
        impostor_px: 256.0,
        ..CullSettings::default()
    };
    let shadows = ShadowSettings::default();
    let (lit, ..) = draw(
        &mut view,
        cull,
        ShadowSettings {
            enabled: false,
            ..shadows
        },
    );
    let (impostor, ..) = draw(&mut view, cull, shadows);
    let cast_as_impostors: u32 = view
        .renderer
        .shadow_stats()
        .iter()
        .flatten()
        .map(|s| s.impostors())
        .sum();
    let (mesh, ..) = draw(
        &mut view,
        cull,
        ShadowSettings {
            camera_lod: false,
            ..shadows
        },
    );
    let shade = |image: &RgbaImage| -> Vec<bool> {
        image
            .pixels
            .chunks_exact(4)
            .zip(lit.pixels.chunks_exact(4))
            .map(|(p, l)| {
                let sum = |q: &[u8]| q[..3].iter().map(|&c| c as i32).sum::<i32>();
                sum(l) - sum(p) > 30
            })
            .collect()
    };
    if std::env::var("FAR_FIELD_DUMP").is_ok() {
        let dir = std::env::temp_dir();
        impostor
            .save_png(&dir.join("far-field-impostor-shadow.png"))
            .ok();
        mesh.save_png(&dir.join("far-field-mesh-shadow.png")).ok();
        lit.save_png(&dir.join("far-field-no-shadow.png")).ok();
    }
    let (a, b) = (shade(&impostor), shade(&mesh));
    let both = a.iter().zip(&b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(&b).filter(|(x, y)| **x || **y).count();
    let iou = both as f32 / either.max(1) as f32;
    eprintln!(
        "{cast_as_impostors} casters as impostors: shadow IoU {iou:.3} against the meshes' over {either} pixels"
    );
    assert!(cast_as_impostors > 0, "the cascades cast impostors");
    assert!(either > 500, "there are shadows to compare: {either}");
    assert!(iou >= 0.5, "IoU {iou}");
}

/// Tight impostor quads (each fitted to its cell's covered texels, widened
/// by the mip level's reach) draw the picture the sphere's squares draw,
/// within a small bound (the quads' edges move, so the interpolated
/// coordinates round differently), with and without MSAA; and the squares
/// are what the renderer drew before tight quads.
#[test]
fn tight_impostor_quads_draw_the_squares_picture() {
    use stampede::crowd::motion::Aa;
    use stampede::render::passes::targets::TargetOptions;
    let Some(gpu) = common::gpu_or_skip("far_field") else {
        return;
    };
    let loaded = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("the model bakes");
    for aa in [Aa::Msaa, Aa::Off] {
        let mut config = RendererConfig::for_model(&loaded, 320, 180, 1000, SEED, headless::FORMAT);
        config.clip = None;
        config.behaviour = BehaviourSettings::on();
        config.targets = TargetOptions {
            aa,
            ..Default::default()
        };
        let mut view =
            Headless::new(gpu.clone(), &loaded.model, &loaded.vat, &config).expect("renderer");
        view.camera = view.renderer.camera_at(settings().time, 1.0);
        let shadows = ShadowSettings::default();
        let tight = CullSettings::default();
        assert!(tight.tight_impostors, "tight quads are the default");
        let squares = CullSettings {
            tight_impostors: false,
            ..tight
        };
        let (a, _, impostors) = draw(&mut view, tight, shadows);
        let (b, _, same) = draw(&mut view, squares, shadows);
        assert_eq!(impostors, same);
        assert!(impostors > 100, "the far field is impostors: {impostors}");
        let d = common::diff(&a, &b, 24);
        let differ = a
            .pixels
            .chunks(4)
            .zip(b.pixels.chunks(4))
            .filter(|(x, y)| x != y)
            .count();
        let share = differ as f64 / (320.0 * 180.0);
        eprintln!(
            "{aa:?}: {impostors} impostors, tight against square quads: mean difference {:.4}, {:.3} % of pixels differ, {} by more than 24",
            d.mean,
            share * 100.0,
            d.failed
        );
        assert!(
            d.mean <= 0.05 && share <= 0.005 && d.failed <= 3,
            "{aa:?}: mean {}, {differ} pixels differ, {} by more than 24",
            d.mean,
            d.failed
        );
    }
}
