//! Every Rust mirror of a WGSL struct has the WGSL struct's layout: each
//! field's offset and size, and the struct's size, compared with naga's
//! layouter on the composed modules the renderer builds. The last tests show
//! that a field reordered on either side is caught.

use stampede::crowd::cull::{CullModelGpu, CullUniform};
use stampede::crowd::flock::{Boid, FlockUniform};
use stampede::crowd::herd::HerdTable;
use stampede::crowd::occlusion::OcclusionUniform;
use stampede::crowd::scene::CrowdModelGpu;
use stampede::crowd::shadow::{CasterUniform, ShadowUniform};
use stampede::crowd::splat::SplatHeader;
use stampede::crowd::tracks::GroundTracksGpu;
use stampede::crowd::{FrameUniform, Instance};
use stampede::render::TechniqueKind;
use stampede::render::data::gpu_data::{
    SkinInfo, SkinParams, SkinVertex, SkinnedVertex, VatClipGpu, VatPackingGpu,
};
use stampede::render::passes::cull::pyramid::PyramidStep;
use stampede::render::passes::cull::pyramid_view::PyramidViewUniform;
use stampede::render::passes::post::motion_blur::BlurUniform;
use stampede::render::passes::post::motion_view::MotionViewUniform;
use stampede::render::passes::post::taa::TaaUniform;
use stampede::render::util::shaders;

#[macro_use]
mod layout_common;
use layout_common::{Layout, compare, crowd_source, wgsl_layout};

fn instance_layout() -> Layout {
    rust_layout!(Instance {
        lane,
        phase,
        scale,
        time_offset,
        speed,
        clip,
        tint,
        height
    })
}

#[test]
fn rust_mirrors_match_their_wgsl_structs() {
    let crowd = crowd_source();
    let flock = shaders::FLOCK.source().expect("composes");
    let ground = shaders::GROUND.source().expect("composes");
    let checks = [
        (
            "GroundTracks",
            &ground,
            rust_layout!(GroundTracksGpu { count, _pad, rings }),
        ),
        (
            "Frame",
            &crowd,
            rust_layout!(FrameUniform {
                view_proj,
                inv_view_proj,
                camera_pos,
                sun_dir,
                sun_color,
                sky_zenith,
                sky_horizon,
                ground_bounce,
                fog,
                time_hi,
                time_lo,
                playback,
                spread,
                field_radius,
                clip,
                interpolate,
                motion,
                stride,
                model_size,
                ground_y,
                instance_count,
                clip_count,
                behaviour,
                fade,
                flap_clip,
                glide_clip,
                culled,
                lod_tint,
                viewport_height,
                motion_view_proj,
                previous_view_proj,
                previous_time_hi,
                previous_time_lo,
                jitter,
                velocity,
                resolved,
                _pad,
            }),
        ),
        ("Instance", &crowd, instance_layout()),
        (
            "CrowdModel",
            &crowd,
            rust_layout!(CrowdModelGpu {
                first_instance,
                count,
                first_clip,
                clip_count,
                clip,
                motion,
                field_radius,
                model_size,
                offset,
                joins,
                rank_base,
                gait_clips,
                gait_rates,
                undrawn,
                slot_shift,
                _pad,
            }),
        ),
        (
            "VatClip",
            &crowd,
            rust_layout!(VatClipGpu {
                layer,
                first_row,
                frame_count,
                looping,
                duration,
                rows_per_frame,
                width,
                ground_speed,
                vertex_base,
            }),
        ),
        (
            "SkinVertex",
            &crowd,
            rust_layout!(SkinVertex {
                position,
                joints01,
                normal,
                joints23,
                weights
            }),
        ),
        (
            "SkinInfo",
            &crowd,
            rust_layout!(SkinInfo {
                joints,
                vertices,
                previous,
                _pad
            }),
        ),
        (
            "Boid",
            &crowd,
            rust_layout!(Boid {
                pos,
                phase,
                vel,
                climb,
                flap,
                bank,
                _pad
            }),
        ),
        (
            "HerdTable",
            &crowd,
            rust_layout!(HerdTable {
                gaits,
                starts,
                first,
                segment,
                fade,
                lag_speed,
                speeds,
                clips,
                band,
                path_length,
                spacing,
                time,
                laps,
                previous_time,
                _pad,
            }),
        ),
        (
            "FlockUniform",
            &flock,
            rust_layout!(FlockUniform {
                bounds_min,
                bounds_max,
                grid_origin,
                grid_dims,
                count,
                dt,
                separation_radius,
                neighbor_radius,
                w_separation,
                w_alignment,
                w_cohesion,
                max_speed,
                min_speed,
                margin,
                w_bounds,
                max_accel,
                fade,
                bank_accel,
                w_roost,
                _pad,
            }),
        ),
    ];
    let mut problems = Vec::new();
    for (name, source, rust) in &checks {
        problems.extend(compare(name, rust, &wgsl_layout(source, name)));
    }
    // The shadows, in the module the ground (a receiver) is drawn with and
    // in a crowd module (receivers and casters).
    for source in [shaders::GROUND.source().expect("composes"), crowd_source()] {
        problems.extend(compare(
            "Shadows",
            &rust_layout!(ShadowUniform {
                cascades,
                texel,
                count,
                enabled,
                tint,
                resolution,
                fade,
                _pad,
                splits,
                forward,
            }),
            &wgsl_layout(&source, "Shadows"),
        ));
        problems.extend(compare(
            "Caster",
            &rust_layout!(CasterUniform { view_proj }),
            &wgsl_layout(&source, "Caster"),
        ));
    }
    problems.extend(layout_common::impostor::mirrors());
    let cull = shaders::CULL.source().expect("composes");
    problems.extend(compare(
        "CullParams",
        &rust_layout!(CullUniform {
            planes,
            eye,
            count,
            flags,
            budget_px,
            region,
            model_count,
            orthographic,
            impostor_px,
            counter_word,
            receivers,
            sweep,
            min_size_px,
            ground,
            _pad,
            camera,
            caster_planes,
            caster_views,
            _caster_pad,
            caster_bounds,
            models,
        }),
        &wgsl_layout(&cull, "CullParams"),
    ));
    problems.extend(compare(
        "CullModel",
        &rust_layout!(CullModelGpu {
            sphere,
            level_error,
            levels,
            nearest_error,
            far_level,
            impostor_bits,
            first_region,
            impostor_region,
            hidden,
            _pad,
            half,
        }),
        &wgsl_layout(&cull, "CullModel"),
    ));
    // Occlusion culling: the cull pass's phases, the pyramid's steps and
    // its debug view.
    let occlusion = shaders::CULL_OCCLUSION.source().expect("composes");
    problems.extend(compare(
        "OcclusionParams",
        &rust_layout!(OcclusionUniform {
            view,
            proj,
            view_proj,
            viewport,
            size,
            mips,
            phase,
            counter_word,
            capacity,
            _pad,
            offsets,
        }),
        &wgsl_layout(&occlusion, "OcclusionParams"),
    ));
    problems.extend(compare(
        "CullParams (occlusion)",
        &wgsl_layout(&cull, "CullParams"),
        &wgsl_layout(&occlusion, "CullParams"),
    ));
    // The splat level: its header, in the cull pass that writes the
    // planes and the pass that draws them.
    for spec in [shaders::CULL_SPLAT, shaders::SPLAT_RESOLVE] {
        let source = spec.source().expect("composes");
        problems.extend(compare(
            "SplatHeader",
            &rust_layout!(SplatHeader {
                viewport,
                width,
                height,
                max_px,
                pixels,
                stat_scale,
                planes,
            }),
            &wgsl_layout(&source, "SplatHeader"),
        ));
    }
    let pyramid = shaders::PYRAMID.source().expect("composes");
    problems.extend(compare(
        "PyramidStep",
        &rust_layout!(PyramidStep {
            src_size,
            dst_size,
            src_offset,
            dst_offset,
            _pad,
        }),
        &wgsl_layout(&pyramid, "PyramidStep"),
    ));
    let taa = shaders::TAA.source().expect("composes");
    problems.extend(compare(
        "TaaParams",
        &rust_layout!(TaaUniform {
            viewport,
            size,
            blend,
            frames
        }),
        &wgsl_layout(&taa, "TaaParams"),
    ));
    let blur = shaders::MOTION_BLUR.source().expect("composes");
    problems.extend(compare(
        "BlurParams",
        &rust_layout!(BlurUniform { viewport, size }),
        &wgsl_layout(&blur, "BlurParams"),
    ));
    let motion_view = shaders::MOTION_VIEW.source().expect("composes");
    problems.extend(compare(
        "MotionViewParams",
        &rust_layout!(MotionViewUniform {
            viewport,
            full_px,
            _pad
        }),
        &wgsl_layout(&motion_view, "MotionViewParams"),
    ));
    let pyramid_view = shaders::PYRAMID_VIEW.source().expect("composes");
    problems.extend(compare(
        "PyramidView",
        &rust_layout!(PyramidViewUniform { size, mip, offset }),
        &wgsl_layout(&pyramid_view, "PyramidView"),
    ));
    let computed = TechniqueKind::ComputeSkinning
        .crowd_module()
        .source()
        .expect("composes");
    problems.extend(compare(
        "SkinnedVertex",
        &rust_layout!(SkinnedVertex { position, normal }),
        &wgsl_layout(&computed, "SkinnedVertex"),
    ));
    problems.extend(compare(
        "SkinParams",
        &rust_layout!(SkinParams {
            region,
            levels,
            direct,
            index_mask,
            level,
            _pad,
        }),
        &wgsl_layout(&computed, "SkinParams"),
    ));
    let packed = shaders::VAT_PACKED.source().expect("composes");
    problems.extend(compare(
        "VatPacking",
        &rust_layout!(VatPackingGpu { min, step }),
        &wgsl_layout(&packed, "VatPacking"),
    ));
    // The flock shader's Boid is the renderer's Boid.
    problems.extend(compare(
        "Boid (flock)",
        &checks
            .iter()
            .find(|c| c.0 == "Boid")
            .expect("the crowd's Boid is checked")
            .2,
        &wgsl_layout(&flock, "Boid"),
    ));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A mirror with two fields swapped, on the Rust side.
#[repr(C)]
#[derive(Clone, Copy)]
struct SwappedInstance {
    phase: f32,
    lane: f32,
    scale: f32,
    time_offset: f32,
    speed: f32,
    clip: u32,
    tint: u32,
    height: f32,
}

#[test]
fn a_field_reordered_on_either_side_is_caught() {
    let crowd = crowd_source();
    let wgsl = wgsl_layout(&crowd, "Instance");
    let good = instance_layout();
    assert!(compare("Instance", &good, &wgsl).is_empty());
    // Rust reordered.
    let swapped = rust_layout!(SwappedInstance {
        phase,
        lane,
        scale,
        time_offset,
        speed,
        clip,
        tint,
        height
    });
    assert!(!compare("Instance", &swapped, &wgsl).is_empty());
    // WGSL reordered.
    let reordered = crowd.replacen(
        "    lane: f32,\n    // Start angle on the track, radians.\n    phase: f32,",
        "    phase: f32,\n    lane: f32,",
        1,
    );
    assert_ne!(
        reordered, crowd,
        "the WGSL Instance struct moved: update this test"
    );
    assert!(!compare("Instance", &good, &wgsl_layout(&reordered, "Instance")).is_empty());
    // A field whose type grows on one side is caught too.
    let widened = crowd.replacen("    height: f32,\n};", "    height: vec2<f32>,\n};", 1);
    assert!(!compare("Instance", &good, &wgsl_layout(&widened, "Instance")).is_empty());
}
