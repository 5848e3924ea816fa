//! Sun shadows on the GPU (lavapipe in CI): the ground darkens exactly where
//! the horse's posed vertices, projected along the sun on the CPU, say it
//! must (and nowhere else); the shadow follows the gallop; VAT, live
//! skinning and the bone texture cast the same shadows; a horse the camera
//! culls still casts into view.

mod gpu_common;
mod shadow_common;
use gpu_common as common;
use shadow_common::*;

use glam::{Mat4, Vec3};
use stampede::crowd::anim::BehaviourView;
use stampede::crowd::placement::instance_placement;
use stampede::crowd::setup::Loaded;
use stampede::crowd::{self, FrameSettings, Instance};
use stampede::render::headless::Headless;
use stampede::render::{Camera, TechniqueKind};

/// What the CPU says about one frame: the shadow on the ground and the
/// horse itself, in pixels.
struct Expected {
    shadow: Mask,
    horse: Mask,
}

fn expected(view: &Headless, prepared: &Loaded) -> Expected {
    let frame = view.renderer.last_frame.expect("a frame was drawn");
    let triangles = world_triangles(prepared, &frame);
    Expected {
        shadow: shadow_of(&triangles, &frame),
        horse: rasterize(&triangles, Mat4::from_cols_array_2d(&frame.view_proj)),
    }
}

/// A camera above the horse (instance 0), looking down at it and its
/// shadow from the side away from the sun.
fn camera_over_horse(view: &mut Headless, prepared: &Loaded, s: &FrameSettings) -> Camera {
    view.render(s).expect("render");
    let frame = view.renderer.last_frame.expect("a frame was drawn");
    let tris = world_triangles(prepared, &frame);
    let sun = crowd::sun_direction();
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in tris.iter().flatten() {
        for q in [*p, onto_ground(*p, sun, frame.ground_y)] {
            lo = lo.min(q);
            hi = hi.max(q);
        }
    }
    let centre = (lo + hi) * 0.5;
    Camera {
        target: Vec3::new(centre.x, frame.ground_y, centre.z),
        yaw: 2.4,
        pitch: 1.05,
        distance: (hi - lo).length() * 1.6,
        fov_y: 45f32.to_radians(),
    }
}

/// One horse, the fixed sun, a camera looking down on both: ground pixels
/// inside the shadow the CPU projects from the posed vertices are darker
/// with shadows on than off; ground pixels well away from it (and from the
/// horse) do not change at all. Fails with no shadows, shadows in the wrong
/// place or the wrong shape, and with acne or light leaking elsewhere.
#[test]
fn the_shadow_falls_where_the_posed_vertices_project() {
    let Some((mut view, prepared)) = view(1) else {
        return;
    };
    let s = still(1.3);
    view.camera = camera_over_horse(&mut view, &prepared, &s);
    let off = with_shadows(&mut view, false, &s);
    let on = with_shadows(&mut view, true, &s);
    let e = expected(&view, &prepared);
    let dark = darkening(&on, &off);
    let core = and_not(&grow(&e.shadow, -2), &grow(&e.horse, 2));
    let away = and_not(
        &and_not(&vec![true; dark.len()], &grow(&e.shadow, 4)),
        &grow(&e.horse, 4),
    );
    let core_n = count(&core);
    let darker = (0..dark.len())
        .filter(|&i| core[i] && dark[i] >= 30)
        .count();
    let changed = (0..dark.len()).filter(|&i| away[i] && dark[i] != 0).count();
    let mut debug = on.clone();
    for (i, px) in debug.pixels.chunks_mut(4).enumerate() {
        if core[i] {
            px[0] = px[0].saturating_add(90);
        }
    }
    let dir = std::env::temp_dir();
    let _ = debug.save_png(&dir.join("stampede-shadow-expected.png"));
    eprintln!(
        "core {core_n} px, {darker} darker; away {} px, {changed} changed",
        count(&away)
    );
    assert!(
        core_n > 300,
        "the shadow should cover the ground ({core_n} px)"
    );
    assert!(
        darker * 100 >= core_n * 95,
        "only {darker} of {core_n} shadowed ground pixels got darker"
    );
    assert!(
        changed * 1000 <= count(&away),
        "{changed} pixels away from the shadow changed"
    );
}

/// The shadow at two instants of the gallop differs, and each matches the
/// shadow of the CPU pose at its own instant better than the other's. A
/// caster stuck in the rest pose (or one frame) fails.
#[test]
fn the_shadow_gallops_with_the_pose() {
    let Some((mut view, prepared)) = view(1) else {
        return;
    };
    // Neither a whole number of gallop cycles from 0 (a caster stuck at
    // time 0 must not match by luck).
    let (t1, t2) = (1.37, 1.37 + 0.21);
    view.camera = camera_over_horse(&mut view, &prepared, &still(t1));
    let mut shadows = Vec::new();
    for t in [t1, t2] {
        let s = still(t);
        let off = with_shadows(&mut view, false, &s);
        let on = with_shadows(&mut view, true, &s);
        let e = expected(&view, &prepared);
        let horse = grow(&e.horse, 2);
        let dark: Mask = darkening(&on, &off).iter().map(|&d| d >= 30).collect();
        shadows.push((and_not(&dark, &horse), and_not(&e.shadow, &horse)));
    }
    let (gpu1, cpu1) = &shadows[0];
    let (gpu2, cpu2) = &shadows[1];
    let (own1, own2) = (iou(gpu1, cpu1), iou(gpu2, cpu2));
    let (cross1, cross2) = (iou(gpu1, cpu2), iou(gpu2, cpu1));
    eprintln!(
        "IoU with own pose {own1:.3} {own2:.3}, with the other {cross1:.3} {cross2:.3}, CPU poses {:.3}",
        iou(cpu1, cpu2)
    );
    assert!(iou(cpu1, cpu2) < 0.85, "pick instants whose shadows differ");
    assert!(own1 > 0.9 && own2 > 0.9, "the shadow should match the pose");
    assert!(
        own1 > cross1 + 0.15 && own2 > cross2 + 0.15,
        "each shadow should match its own instant's pose best"
    );
}

/// VAT, live skinning, the bone texture and CPU skinning draw the same
/// shadowed picture of the same instant (the technique tests' limit; the
/// static floor, another pose, must exceed it), and the shadows are in it.
#[test]
fn techniques_cast_the_same_shadows() {
    let Some((mut view, _)) = view(16) else {
        return;
    };
    let s = FrameSettings {
        time: 1.0 + 0.43 / 30.0,
        ..FrameSettings::default()
    };
    let mut render = |kind| {
        view.renderer.set_technique(kind).expect("technique builds");
        with_shadows(&mut view, true, &s)
    };
    let vat = render(TechniqueKind::Vat);
    let skinning = render(TechniqueKind::Skinning);
    let bone = render(TechniqueKind::BoneTexture);
    let cpu = render(TechniqueKind::Cpu);
    let still = render(TechniqueKind::Static);
    view.renderer
        .set_technique(TechniqueKind::Vat)
        .expect("technique builds");
    let unshadowed = with_shadows(&mut view, false, &s);
    let darker = darkening(&vat, &unshadowed)
        .iter()
        .filter(|&&d| d >= 30)
        .count();
    eprintln!("{darker} pixels darkened by shadows");
    assert!(darker > 200, "the shadows should show ({darker} px)");
    common::assert_images_agree(
        "shadowed: ",
        &vat,
        &[
            ("skinning", &skinning),
            ("bone texture", &bone),
            ("cpu", &cpu),
        ],
        &still,
    );
}

/// A horse the camera's cull pass drops (its bounding sphere is wholly
/// behind the camera) still casts its shadow into view: each cascade is
/// culled from the sun. Fails when the casters are drawn from the camera's
/// visible list.
#[test]
fn a_horse_out_of_view_casts_into_view() {
    let Some((mut view, prepared)) = view(1) else {
        return;
    };
    let s = still(1.3);
    view.render(&s).expect("render");
    let frame = view.renderer.last_frame.expect("a frame was drawn");
    let cull = view.renderer.culler().last_uniform().expect("culled");
    let inst: Instance = crowd::generate(SEED, 0);
    let place = instance_placement(
        &inst,
        0,
        &frame,
        &prepared.vat.clips,
        &prepared.ground_speeds,
        BehaviourView::Off,
    )
    .expect("loops have a CPU placement");
    let centre = place.to_world(Vec3::from_slice(&cull.models[0].sphere[..3]), inst.scale);
    let radius = cull.models[0].sphere[3] * inst.scale;
    // The point of the shadow farthest from the sphere; the camera stands
    // just outside the sphere on the line to it, looking at it.
    let sun = crowd::sun_direction();
    let tip = world_triangles(&prepared, &frame)
        .iter()
        .flatten()
        .map(|p| onto_ground(*p, sun, frame.ground_y))
        .max_by(|a, b| (*a - centre).length().total_cmp(&(*b - centre).length()))
        .expect("a mesh");
    let gap = (tip - centre).length() - radius;
    assert!(
        gap > 0.0,
        "the shadow should reach beyond the bounding sphere"
    );
    let dir = (tip - centre).normalize();
    let eye = centre + dir * (radius + 0.1 * gap);
    view.camera = Camera {
        target: tip,
        yaw: (-dir.x).atan2(-dir.z),
        pitch: (-dir.y).asin(),
        distance: (tip - eye).length(),
        fov_y: 50f32.to_radians(),
    };
    let off = with_shadows(&mut view, false, &s);
    let on = with_shadows(&mut view, true, &s);
    let gpu = view.renderer.gpu.clone();
    let lists = view
        .renderer
        .culler()
        .read_lists(&gpu)
        .expect("read the visible lists");
    let visible: usize = lists.entries.iter().map(Vec::len).sum();
    let e = expected(&view, &prepared);
    let core = and_not(&grow(&e.shadow, -2), &grow(&e.horse, 2));
    let dark = darkening(&on, &off);
    let core_n = count(&core);
    let darker = (0..dark.len())
        .filter(|&i| core[i] && dark[i] >= 30)
        .count();
    let _ = on.save_png(&std::env::temp_dir().join("stampede-shadow-culled.png"));
    eprintln!(
        "camera sees {visible} instances, horse {} px, shadow core {core_n} px, {darker} darker",
        count(&e.horse)
    );
    assert_eq!(visible, 0, "the camera's cull pass should drop the horse");
    assert_eq!(count(&e.horse), 0, "the horse should be out of view");
    assert!(core_n > 200, "its shadow should be in view ({core_n} px)");
    assert!(
        darker * 100 >= core_n * 95,
        "only {darker} of {core_n} shadowed pixels got darker"
    );
}
