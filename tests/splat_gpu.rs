//! The splat level: the planes the cull pass writes are the CPU twin's
//! (`crowd::splat`) for the instances the CPU's cull rule makes splats;
//! the full-screen pass draws a splat only where it is nearer than what
//! the scene drew there (the depth test, against the CPU's rule on the
//! planes and the depth read back); and a far crowd drawn as splats looks
//! like it drawn as impostors: tests/splat_picture_gpu.rs.

mod gpu_common;
mod splat_common;
use gpu_common as common;
use splat_common::*;

use stampede::crowd::cull::CullSettings;
use stampede::crowd::motion::Aa;
use stampede::crowd::setup::Loaded;
use stampede::crowd::splat::{self, Splat};
use stampede::render::headless::Headless;

/// The splats the CPU makes of the last frame: each instance placed by the
/// CPU, culled by the CPU's rule, a splat when it is an impostor whose
/// sphere is at most the header's size; and the count of those within
/// rounding of the switch (f32 order of operations may decide them).
fn cpu_splats(view: &Headless, loaded: &Loaded) -> (Vec<Splat>, usize) {
    let r = &view.renderer;
    let uniform = r.culler().last_uniform().expect("culled");
    let header = r.splats().expect("splats").header;
    let atlas = r.impostor_atlas().expect("an atlas");
    let sums = atlas.bounds.read_sums(&r.gpu).expect("read back")[0];
    eprintln!(
        "DEBUG sums {sums:?} cells {:?} mean alpha {}",
        atlas.bounds.frame_cells,
        sums[3] as f32 * header.stat_scale[0][0]
    );
    let frame = r.last_frame.expect("a frame");
    let view_proj = glam::Mat4::from_cols_array_2d(&frame.view_proj);
    let sphere = uniform.models[0].sphere;
    let impostor = uniform.models[0].impostor_bits.min(6) << 28;
    let mut splats = Vec::new();
    let mut close = 0;
    for i in 0..uniform.count {
        let (centre, radius, scale) = common::world_sphere(r, loaded, sphere, SEED, i);
        let Some(bits) = uniform.cull(centre, radius, scale) else {
            continue;
        };
        let size = uniform.diameter_px(centre, radius);
        if (size - header.max_px).abs() < 1e-3 * header.max_px
            || (size - uniform.impostor_px).abs() < 1e-3 * uniform.impostor_px
        {
            close += 1;
        }
        if bits != impostor || size > header.max_px {
            continue;
        }
        let tint = stampede::crowd::generate(SEED, i).tint;
        let clip = view_proj * centre.extend(1.0);
        // Within rounding of a pixel's edge: the two pixels may differ.
        if let Some(p) = header.screen(clip)
            && [p.x, p.y].iter().any(|c| (c - c.round()).abs() < 1e-3)
        {
            close += 2;
        }
        splats.extend(Splat::of(&header, &sums, 0, clip, size, tint));
    }
    (splats, close)
}

/// The GPU's planes are the CPU twin's: the same pixels hold splats, with
/// the same nearest key (within a depth step) and the same sums (within
/// the fixed point's rounding); and the switch leaves the nearer far field
/// to the impostors.
#[test]
fn the_planes_are_the_cpu_twins() {
    let Some((mut view, loaded)) = view(400, (160, 90), Aa::Msaa, false) else {
        return;
    };
    far_camera(&mut view, 4.0);
    let cull = CullSettings {
        splat_px: 2.0,
        ..CullSettings::default()
    };
    let (_, impostors, splats) = draw(&mut view, cull);
    let vertices = view
        .renderer
        .splats()
        .expect("splats")
        .read_draw_vertices(&view.renderer.gpu)
        .expect("read back");
    assert_eq!(vertices, 3, "the splat pass draws its triangle");
    let gpu = view
        .renderer
        .splats()
        .expect("splats")
        .read_planes(&view.renderer.gpu)
        .expect("read back");
    let (cpu_list, close) = cpu_splats(&view, &loaded);
    let pixels = view.renderer.splats().unwrap().header.pixels as usize;
    let cpu = splat::planes(pixels as u32, &cpu_list);
    eprintln!(
        "400 horses at 4× the opening distance: {splats} splats ({} on screen by the CPU), {impostors} impostors, {close} within rounding of a switch",
        cpu_list.len()
    );
    assert!(
        splats > 50 && impostors > 5,
        "{splats} splats, {impostors} impostors"
    );
    let mut differ = 0;
    for p in 0..pixels {
        let (g, c) = (gpu[p], cpu[p]);
        let key_ok = (g == 0) == (c == 0)
            && (splat::key_depth(g) - splat::key_depth(c)).abs() <= 2.0 / splat::DEPTH_MAX as f32;
        let sums_ok = (1..5).all(|k| {
            let (g, c) = (gpu[k * pixels + p] as f64, cpu[k * pixels + p] as f64);
            (g - c).abs() <= 16.0 + 1e-3 * c
        });
        if !(key_ok && sums_ok) {
            differ += 1;
        }
    }
    let with = cpu[..pixels].iter().filter(|&&k| k != 0).count();
    eprintln!("{with} pixels hold splats; GPU and CPU differ at {differ}");
    assert!(with > 50);
    assert!(
        differ <= close,
        "{differ} pixels differ, {close} splats within rounding"
    );
}

/// The splats are drawn where they cover anything (a 512th of a pixel)
/// and their depth is no farther than the scene's there (without MSAA, so
/// that the depth can be read back):
/// the depth read back with the splats drawn is what the CPU's rule gives
/// from the planes and the depth without them, and where a splat is behind
/// a nearer horse (or the ground) the picture does not change.
#[test]
fn a_splat_is_never_drawn_in_front_of_a_nearer_horse() {
    let Some((mut view, _)) = view(20_000, (160, 90), Aa::Off, true) else {
        return;
    };
    // At eye level in a large herd: the far side's horses are splats
    // behind the near ones.
    view.camera = common::inside_the_herd(&mut view.renderer);
    let cull = CullSettings {
        splat_px: 3.0,
        ..CullSettings::default()
    };
    view.renderer.set_splats_drawn(false);
    let (without, _, splats) = draw(&mut view, cull);
    let (before, planes) = depth_and_planes(&view);
    view.renderer.set_splats_drawn(true);
    let (with, ..) = draw(&mut view, cull);
    save(&[("depth_with", &with), ("depth_without", &without)]);
    let (after, again) = depth_and_planes(&view);
    assert_eq!(planes, again, "the same frame writes the same planes");
    let pixels = before.len();
    let (mut drawn, mut behind, mut wrong) = (0, 0, Vec::new());
    for p in 0..pixels {
        let key = planes[p];
        let alpha = splat::pixel_alpha(planes[pixels + p] as f32 / splat::SPLAT_ONE);
        let depth = splat::key_depth(key);
        let shows = key != 0 && alpha >= 1.0 / 512.0;
        let expected = if shows && depth <= before[p] {
            drawn += 1;
            depth
        } else {
            if shows {
                behind += 1;
            }
            before[p]
        };
        let same_colour = with.pixels[p * 4..p * 4 + 4] == without.pixels[p * 4..p * 4 + 4];
        if (after[p] - expected).abs() > 1e-7
            || (expected == before[p] && !same_colour && !(shows && depth == before[p]))
        {
            wrong.push(p);
        }
    }
    eprintln!("{splats} splats: {drawn} pixels drawn, {behind} behind what the scene drew there");
    assert!(drawn > 10 && behind > 3, "{drawn} drawn, {behind} behind");
    assert!(
        wrong.is_empty(),
        "{} pixels break the rule (e.g. {:?})",
        wrong.len(),
        &wrong[..wrong.len().min(8)]
    );
}

/// Where no impostor is under the switch the splat pass draws nothing (its
/// indirect draw has no vertices until the cull pass writes a splat; with
/// splats it has 3, `the_planes_are_the_cpu_twins`): the picture is the
/// one with splats off, byte for byte.
#[test]
fn without_splats_the_picture_is_unchanged() {
    let Some((mut view, _)) = view(400, (160, 90), Aa::Msaa, false) else {
        return;
    };
    far_camera(&mut view, 0.5);
    // The smallest switch: no horse here is under a tenth of a pixel.
    let on = CullSettings {
        splat_px: 0.1,
        ..CullSettings::default()
    };
    let (with, impostors, splats) = draw(&mut view, on);
    let (without, ..) = draw(
        &mut view,
        CullSettings {
            splats: false,
            ..on
        },
    );
    eprintln!("{impostors} impostors, {splats} splats");
    assert!(impostors > 0, "impostors are drawn");
    assert_eq!(splats, 0);
    view.renderer.set_cull_settings(on);
    view.render(&settings()).expect("render");
    let vertices = view
        .renderer
        .splats()
        .expect("splats")
        .read_draw_vertices(&view.renderer.gpu)
        .expect("read back");
    assert_eq!(vertices, 0, "the pass draws nothing");
    assert!(
        with.pixels == without.pixels,
        "the splat pass changed the picture"
    );
}

/// New targets (the panel's anti-aliasing switched and back) make the
/// splat pass again with planes of its own; the cull pass writes those, not
/// the old ones: the far crowd's picture comes back byte for byte.
#[test]
fn splats_follow_new_targets() {
    let Some((mut view, _)) = view(20_000, (160, 90), Aa::Msaa, false) else {
        return;
    };
    far_camera(&mut view, 3.0);
    let on = CullSettings::default();
    let (first, _, splats) = draw(&mut view, on);
    let options = view.renderer.targets.options;
    for aa in [Aa::Off, Aa::Msaa] {
        let changed = stampede::render::passes::targets::TargetOptions { aa, ..options };
        view.renderer
            .set_target_options(changed)
            .expect("new targets");
        draw(&mut view, on);
    }
    let (again, _, splats_again) = draw(&mut view, on);
    assert!(splats > 1000, "{splats} splats");
    assert_eq!(splats, splats_again);
    assert!(
        first.pixels == again.pixels,
        "the splats' picture changed with new targets"
    );
}

/// A browser's WebGPU binds 10 storage buffers per stage, one fewer than
/// the camera's cull with splats reads as storage: there the cull pass
/// reads its parameters as a uniform (`cull::params_as_uniform`). A device
/// held to 10 draws the far crowd's splats, and the whole picture (the
/// shadow cascades are culled the same way), as the full device does, byte
/// for byte.
#[test]
fn ten_storage_buffers_draw_the_same_splats() {
    use stampede::render::passes::cull::params_as_uniform;
    let Some((mut full, _)) = view(20_000, (160, 90), Aa::Msaa, false) else {
        return;
    };
    let Some(gpu) = gpu_common::gpu_withholding_or_skip(
        "splat_gpu",
        stampede::gpu::Withheld {
            storage_buffers: Some(10),
            ..Default::default()
        },
    ) else {
        return;
    };
    let (mut ten, _) = view_on(gpu, 20_000, (160, 90), Aa::Msaa, false);
    assert!(!params_as_uniform(&full.renderer.gpu.device));
    assert!(params_as_uniform(&ten.renderer.gpu.device));
    let mut pictures = Vec::new();
    for view in [&mut full, &mut ten] {
        far_camera(view, 3.0);
        let (picture, impostors, splats) = draw(view, CullSettings::default());
        assert_eq!(view.renderer.splat_error, None, "splats are drawn");
        eprintln!("{impostors} impostors, {splats} splats");
        assert!(splats > 1000, "{splats} splats");
        pictures.push((picture, impostors, splats));
    }
    let (a, b) = (&pictures[0], &pictures[1]);
    assert_eq!((a.1, a.2), (b.1, b.2), "the same impostors and splats");
    let differ =
        a.0.pixels
            .chunks_exact(4)
            .zip(b.0.pixels.chunks_exact(4))
            .filter(|(x, y)| x != y)
            .count();
    assert_eq!(differ, 0, "{differ} pixels differ with 10 storage buffers");
}
