//! The CPU cull rule's tests (`crowd::cull`).

use super::*;

fn view() -> CullView {
    let proj = glam::camera::rh::proj::directx::perspective(60f32.to_radians(), 1.0, 0.1, 100.0);
    let v = glam::camera::rh::view::look_at_mat4(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
    CullView {
        view_proj: proj * v,
        eye: Vec3::new(0.0, 0.0, 10.0),
        pixel_scale: 100.0 / (30f32.to_radians()).tan(),
        orthographic: false,
        receivers: None,
        min_size_px: 0.0,
        impostors: true,
        camera: None,
        error_scale: 1.0,
    }
}

fn uniform(settings: &CullSettings) -> CullUniform {
    CullUniform::new(
        &view(),
        settings,
        (Vec3::ZERO, 1.0),
        &[0.0, 0.01, 0.05, 0.2],
        0.02,
        1,
        64,
        false,
        MAX_LEVELS as u32,
    )
}

#[test]
fn planes_keep_the_inside_and_cut_the_outside() {
    let u = uniform(&CullSettings::default());
    assert!(u.cull(Vec3::ZERO, 1.0, 1.0).is_some());
    // Behind the eye, beyond the far plane, far to the side.
    assert!(u.cull(Vec3::new(0.0, 0.0, 20.0), 1.0, 1.0).is_none());
    assert!(u.cull(Vec3::new(0.0, 0.0, -200.0), 1.0, 1.0).is_none());
    assert!(u.cull(Vec3::new(50.0, 0.0, 0.0), 1.0, 1.0).is_none());
    // Straddling the right plane: its centre is outside, its edge is in.
    let x_edge = 10.0 * 30f32.to_radians().tan();
    assert!(
        u.cull(Vec3::new(x_edge + 0.5, 0.0, 0.0), 1.0, 1.0)
            .is_some()
    );
    assert!(
        u.cull(Vec3::new(x_edge + 1.5, 0.0, 0.0), 1.0, 1.0)
            .is_none()
    );
    // Culling off keeps everyone.
    let off = uniform(&CullSettings {
        culling: false,
        ..Default::default()
    });
    assert!(off.cull(Vec3::new(50.0, 0.0, 0.0), 1.0, 1.0).is_some());
}

#[test]
fn far_instances_take_coarser_levels_and_nearest_frames() {
    let u = uniform(&CullSettings::default());
    let level = |z: f32| {
        u.cull(Vec3::new(0.0, 0.0, z), 1.0, 1.0)
            .map(|e| e >> INDEX_BITS & LEVEL_MASK)
    };
    // Near: full detail; far: coarser, never finer as it recedes.
    assert_eq!(level(8.0), Some(0));
    let mut last = 0;
    for z in [5.0, 0.0, -20.0, -50.0, -85.0] {
        let l = level(z).expect("in view");
        assert!(l >= last, "level {l} after {last} at z {z}");
        last = l;
    }
    assert_eq!(last, 3);
    let nearest = |z: f32| u.cull(Vec3::new(0.0, 0.0, z), 1.0, 1.0).unwrap() & NEAREST_BIT;
    assert_eq!(nearest(8.0), 0);
    assert_ne!(nearest(-85.0), 0);
    // LOD off: always level 0 with both frames.
    let off = uniform(&CullSettings {
        lod: false,
        ..Default::default()
    });
    assert_eq!(off.cull(Vec3::new(0.0, 0.0, -85.0), 1.0, 1.0), Some(0));
}

#[test]
fn a_bigger_budget_never_picks_a_finer_level() {
    for budget in [0.5f32, 1.0, 2.0, 8.0] {
        let a = uniform(&CullSettings {
            lod_error_px: budget,
            ..Default::default()
        });
        let b = uniform(&CullSettings {
            lod_error_px: budget * 2.0,
            ..Default::default()
        });
        for z in [-80.0, -40.0, -10.0, 0.0, 5.0] {
            let c = Vec3::new(0.0, 0.0, z);
            assert!(
                b.cull(c, 1.0, 1.0).unwrap() >> INDEX_BITS & LEVEL_MASK
                    >= a.cull(c, 1.0, 1.0).unwrap() >> INDEX_BITS & LEVEL_MASK
            );
        }
    }
}

#[test]
fn small_instances_become_impostors_and_tiny_ones_are_skipped() {
    let settings = CullSettings {
        impostor_px: 20.0,
        ..Default::default()
    };
    let u = CullUniform::new(
        &view(),
        &settings,
        (Vec3::ZERO, 1.0),
        &[0.0, 0.01, 0.05, 0.2],
        0.02,
        1,
        64,
        true,
        MAX_LEVELS as u32,
    );
    assert_ne!(u.flags & FLAG_IMPOSTOR, 0);
    // The sphere's diameter (2) covers 2 × 173.2 / distance pixels.
    let region = |z: f32| u.cull(Vec3::new(0.0, 0.0, z), 1.0, 1.0).map(entry_region);
    assert!(region(8.0).unwrap() < 4, "near: a mesh level");
    // 2 × 173.2 / 20 = 17.3 units away is the switch.
    assert!(region(10.0 - 17.0).unwrap() < 4);
    assert_eq!(
        region(10.0 - 18.0),
        Some(4),
        "far: the impostor region after 4 levels"
    );
    assert_eq!(region(-85.0), Some(4));
    // No atlas, LOD off, or a view without impostors (a light's): mesh
    // levels only.
    for u in [
        CullUniform::new(
            &view(),
            &settings,
            (Vec3::ZERO, 1.0),
            &[0.0, 0.01],
            0.02,
            1,
            64,
            false,
            MAX_LEVELS as u32,
        ),
        CullUniform::new(
            &view(),
            &CullSettings {
                lod: false,
                ..settings
            },
            (Vec3::ZERO, 1.0),
            &[0.0, 0.01],
            0.02,
            1,
            64,
            true,
            MAX_LEVELS as u32,
        ),
        CullUniform::new(
            &CullView {
                impostors: false,
                ..view()
            },
            &settings,
            (Vec3::ZERO, 1.0),
            &[0.0, 0.01],
            0.02,
            1,
            64,
            true,
            MAX_LEVELS as u32,
        ),
    ] {
        assert_eq!(u.flags & FLAG_IMPOSTOR, 0);
        assert!(entry_region(u.cull(Vec3::new(0.0, 0.0, -85.0), 1.0, 1.0).unwrap()) < 2);
    }
    // A minimum size skips what projects under it, with culling on.
    let small = CullView {
        min_size_px: 5.0,
        ..view()
    };
    let u = CullUniform::new(
        &small,
        &CullSettings::default(),
        (Vec3::ZERO, 1.0),
        &[0.0],
        0.0,
        1,
        64,
        false,
        MAX_LEVELS as u32,
    );
    // 2 × 173.2 / 5 = 69.3 units away is the limit.
    assert!(u.cull(Vec3::new(0.0, 0.0, 10.0 - 69.0), 1.0, 1.0).is_some());
    assert!(u.cull(Vec3::new(0.0, 0.0, 10.0 - 70.0), 1.0, 1.0).is_none());
    let off = CullUniform::new(
        &small,
        &CullSettings {
            culling: false,
            ..Default::default()
        },
        (Vec3::ZERO, 1.0),
        &[0.0],
        0.0,
        1,
        64,
        false,
        MAX_LEVELS as u32,
    );
    assert!(
        off.cull(Vec3::new(0.0, 0.0, 10.0 - 70.0), 1.0, 1.0)
            .is_some()
    );
}

#[test]
fn six_levels_are_chosen_like_four() {
    let errors = [0.0, 0.01, 0.05, 0.2, 0.5, 1.0];
    let proj = glam::camera::rh::proj::directx::perspective(60f32.to_radians(), 1.0, 0.1, 10_000.0);
    let look = glam::camera::rh::view::look_at_mat4(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
    let deep = CullView {
        view_proj: proj * look,
        ..view()
    };
    let u = CullUniform::new(
        &deep,
        &CullSettings {
            impostors: false,
            ..Default::default()
        },
        (Vec3::ZERO, 1.0),
        &errors,
        0.02,
        1,
        64,
        true,
        MAX_LEVELS as u32,
    );
    assert_eq!(u.models[0].levels, 6);
    for (l, e) in errors.iter().enumerate() {
        assert_eq!(u.level_error(l as u32), *e);
    }
    let mut last = 0;
    for z in [8.0, 0.0, -20.0, -50.0, -85.0, -300.0, -2000.0] {
        let l = entry_region(u.cull(Vec3::new(0.0, 0.0, z), 1.0, 1.0).expect("in view"));
        assert!(l >= last, "level {l} after {last} at {z}");
        last = l;
    }
    assert_eq!(last, 5, "the coarsest level far away");
}

#[test]
fn receivers_keep_casters_whose_shadow_reaches_the_view() {
    // The camera looks down -Z from z = 10 (60°, near 0.1, far 100);
    // shadows travel down and towards +X.
    let sweep = Vec3::new(1.0, -1.0, 0.0).normalize();
    let light = CullView {
        receivers: Some(Receivers {
            view_proj: view().view_proj,
            sweep,
            margin: 0.0,
            ground: None,
        }),
        // A light box that takes in everything, so only the
        // receivers decide.
        view_proj: glam::camera::rh::proj::directx::orthographic(
            -500.0, 500.0, -500.0, 500.0, -500.0, 500.0,
        ),
        ..view()
    };
    let u = CullUniform::new(
        &light,
        &CullSettings::default(),
        (Vec3::ZERO, 1.0),
        &[0.0],
        0.0,
        1,
        64,
        false,
        MAX_LEVELS as u32,
    );
    assert_ne!(u.flags & FLAG_RECEIVERS, 0);
    // In view: kept.
    assert!(u.cull(Vec3::ZERO, 1.0, 1.0).is_some());
    // Left of the view and above it: its shadow moves right and down
    // into the view.
    assert!(u.cull(Vec3::new(-30.0, 30.0, 0.0), 1.0, 1.0).is_some());
    // Right of the view: its shadow moves further right.
    assert!(u.cull(Vec3::new(30.0, 0.0, 0.0), 1.0, 1.0).is_none());
    // Behind the camera: shadows never travel along -Z... nor +Z.
    assert!(u.cull(Vec3::new(0.0, 0.0, 30.0), 1.0, 1.0).is_none());
    // Below the view: moves further down.
    assert!(u.cull(Vec3::new(0.0, -30.0, 0.0), 1.0, 1.0).is_none());
    // Culling off keeps them all; no receivers keeps them too.
    let off = CullUniform::new(
        &light,
        &CullSettings {
            culling: false,
            ..Default::default()
        },
        (Vec3::ZERO, 1.0),
        &[0.0],
        0.0,
        1,
        64,
        false,
        MAX_LEVELS as u32,
    );
    assert!(off.cull(Vec3::new(30.0, 0.0, 0.0), 1.0, 1.0).is_some());
    let plain = CullUniform::new(
        &CullView {
            receivers: None,
            ..light
        },
        &CullSettings::default(),
        (Vec3::ZERO, 1.0),
        &[0.0],
        0.0,
        1,
        64,
        false,
        MAX_LEVELS as u32,
    );
    assert!(plain.cull(Vec3::new(30.0, 0.0, 0.0), 1.0, 1.0).is_some());
}

#[test]
fn the_sweep_ends_under_the_ground() {
    // As above: the camera looks down -Z from z = 10, shadows travel down
    // and towards +X. A caster up and to the left of the view reaches it
    // when its shadow may travel on; with the ground 20 units up its
    // sphere is under the ground 15.6 units on, still left of the view.
    let sweep = Vec3::new(1.0, -1.0, 0.0).normalize();
    let light = |ground| CullView {
        receivers: Some(Receivers {
            view_proj: view().view_proj,
            sweep,
            margin: 0.0,
            ground,
        }),
        view_proj: glam::camera::rh::proj::directx::orthographic(
            -500.0, 500.0, -500.0, 500.0, -500.0, 500.0,
        ),
        ..view()
    };
    let uniform = |ground| {
        CullUniform::new(
            &light(ground),
            &CullSettings::default(),
            (Vec3::ZERO, 1.0),
            &[0.0],
            0.0,
            1,
            64,
            false,
            MAX_LEVELS as u32,
        )
    };
    let caster = Vec3::new(-30.0, 30.0, 0.0);
    assert!(uniform(None).cull(caster, 1.0, 1.0).is_some());
    let grounded = uniform(Some(0.0));
    assert_ne!(grounded.flags & FLAG_GROUND, 0);
    assert!(grounded.cull(caster, 1.0, 1.0).is_some(), "lands in view");
    assert!(uniform(Some(20.0)).cull(caster, 1.0, 1.0).is_none());
    // A caster in view is kept whatever the ground, and the length is
    // where the sphere's top passes under it.
    assert!(uniform(Some(20.0)).cull(Vec3::ZERO, 1.0, 1.0).is_some());
    let l = sweep_length(caster, 1.0, sweep, 20.0).expect("goes down");
    assert!((l - 11.0 * 2f32.sqrt()).abs() < 1e-4, "{l}");
    assert_eq!(sweep_length(caster, 1.0, Vec3::X, 0.0), None);
}

#[test]
fn casters_take_no_finer_a_level_than_the_camera_would() {
    // A light view whose texels are so fine that every caster gets full
    // detail by its error in texels.
    let errors = [0.0, 0.01, 0.05, 0.2, 0.9, 1.2];
    let light = |camera| CullView {
        view_proj: glam::camera::rh::proj::directx::orthographic(
            -500.0, 500.0, -500.0, 500.0, -500.0, 500.0,
        ),
        pixel_scale: 1e4,
        orthographic: true,
        impostors: false,
        camera,
        ..view()
    };
    let camera = CameraLod {
        eye: Vec3::new(0.0, 0.0, 10.0),
        pixel_scale: 100.0 / (30f32.to_radians()).tan(),
    };
    // `atlas`: an impostor atlas is there to draw from.
    let uniform_of = |view: &CullView, settings: &CullSettings, atlas| {
        CullUniform::new(
            view,
            settings,
            (Vec3::ZERO, 1.0),
            &errors,
            0.0,
            1,
            64,
            atlas,
            4,
        )
    };
    let uniform = |camera, settings: &CullSettings| uniform_of(&light(camera), settings, false);
    let settings = CullSettings::default();
    let texels = uniform(None, &settings);
    let seen = uniform(Some(camera), &settings);
    assert_ne!(seen.flags & FLAG_CAMERA_LOD, 0);
    for z in [5.0f32, -20.0, -100.0, -300.0] {
        let at = Vec3::new(0.0, 0.0, z);
        assert_eq!(entry_region(texels.cull(at, 1.0, 1.0).unwrap()), 0);
        // The camera's own rule, as its view would pick the level.
        let distance = 10.0 - z;
        let size = 2.0 * camera.pixel_scale / distance;
        let mut want = (1..errors.len())
            .rev()
            .find(|&l| errors[l] * camera.pixel_scale / (distance - 1.0) <= 1.0)
            .unwrap_or(0) as u32;
        if size <= settings.impostor_px {
            want = want.max(4);
        }
        let got = entry_region(seen.cull(at, 1.0, 1.0).unwrap());
        assert_eq!(got, want, "at {z}: {size} px");
        assert_eq!(seen.camera_level(&seen.models[0], at, 1.0, 1.0), want);
    }
    // The far band: 30 units away the 2-unit sphere is 11.5 px across, an
    // impostor for the camera, which would pick level 2 for the mesh.
    let band = Vec3::new(0.0, 0.0, -20.0);
    assert_eq!(entry_region(seen.cull(band, 1.0, 1.0).unwrap()), 4);
    // With an atlas (and the light view allowing impostors) the band
    // casts as impostors, by the camera's size, not the map's.
    let view_with_atlas = CullView {
        impostors: true,
        ..light(Some(camera))
    };
    let with_atlas = uniform_of(&view_with_atlas, &settings, true);
    assert_eq!(
        entry_region(with_atlas.cull(band, 1.0, 1.0).unwrap()),
        errors.len() as u32
    );
    // A near caster keeps its mesh.
    let near = Vec3::new(0.0, 0.0, 5.0);
    assert_eq!(
        entry_region(with_atlas.cull(near, 1.0, 1.0).unwrap()),
        with_atlas.camera_level(&with_atlas.models[0], near, 1.0, 1.0)
    );
    // Without impostors there is no far band, only the camera's rule.
    let no_impostors = CullSettings {
        impostors: false,
        ..CullSettings::default()
    };
    let u = uniform(Some(camera), &no_impostors);
    assert_eq!(u.models[0].far_level, errors.len() as u32);
    assert_eq!(entry_region(u.cull(band, 1.0, 1.0).unwrap()), 2);
    // A light view's error scale multiplies the budget of both rules: at
    // twice the camera's, each caster takes the level the camera would
    // pick with a 2 px budget (never a finer one).
    let scaled = |scale| {
        let view = CullView {
            error_scale: scale,
            ..light(Some(camera))
        };
        uniform_of(&view, &no_impostors, false)
    };
    let (one, two) = (scaled(1.0), scaled(2.0));
    assert_eq!(two.budget_px, 2.0 * one.budget_px);
    let mut coarser = 0;
    for z in [8.0f32, 5.0, 0.0, -5.0, -20.0, -60.0] {
        let at = Vec3::new(0.0, 0.0, z);
        let distance = 10.0 - z;
        let want = (1..errors.len())
            .rev()
            .find(|&l| errors[l] * camera.pixel_scale / (distance - 1.0) <= 2.0)
            .unwrap_or(0) as u32;
        let (a, b) = (
            entry_region(one.cull(at, 1.0, 1.0).unwrap()),
            entry_region(two.cull(at, 1.0, 1.0).unwrap()),
        );
        assert_eq!(b, want, "at {z}");
        assert!(b >= a, "at {z}: never finer");
        coarser += (b > a) as u32;
    }
    assert!(coarser > 0, "some casters get a coarser level");
}
