//! The comparison techniques' plain-Rust parts: CLI names, the CPU mirror
//! of the shader's clip time, the parity error, and the CPU-skinning cap.

use clap::ValueEnum;
use stampede::crowd::anim::BehaviourView;
use stampede::crowd::parity::{pose_parity, vat_position};
use stampede::crowd::scene_time::split_time;
use stampede::crowd::{CLIP_MIXED, FrameUniform};
use stampede::crowd::{generate, instance_clip_time, pose_time};
use stampede::render::TechniqueKind;
use stampede::render::passes::techniques::cpu::{MAX_CPU_BYTES, MAX_CPU_INSTANCES, cpu_cap};
use stampede::vat::{self, BakeOptions};
use stampede::{assets, skin};

#[test]
fn technique_names_parse_on_the_command_line() {
    let names: Vec<&str> = TechniqueKind::ALL.iter().map(|k| k.name()).collect();
    assert_eq!(
        names,
        [
            "vat",
            "skinning",
            "bone-texture",
            "cpu",
            "static",
            "compute-skinning",
            "compute-bone-texture"
        ]
    );
    for &k in TechniqueKind::ALL {
        assert_eq!(TechniqueKind::from_str(k.name(), false), Ok(k));
    }
    assert!(TechniqueKind::from_str("bone_texture", false).is_err());
}

fn frame(time: f64, clip: u32, clip_count: u32, spread: f32) -> FrameUniform {
    let (time_hi, time_lo) = split_time(time);
    FrameUniform {
        time_hi,
        time_lo,
        playback: 1.0,
        spread,
        clip,
        clip_count,
        interpolate: 1,
        ..bytemuck::Zeroable::zeroed()
    }
}

#[test]
fn clip_time_mirror_follows_the_shader_formula() {
    let model = assets::load_model("horse").expect("horse");
    let vat = vat::bake(&model, &BakeOptions::default()).expect("bake");
    let n = vat.clips.len() as u32;
    let inst = generate(5, 17);
    // One clip for all, in step: t = time × speed.
    let (c, t) = instance_clip_time(&inst, &frame(2.0, 0, n, 0.0), &vat.clips);
    assert_eq!(c, 0);
    assert!((t - 2.0 * inst.speed).abs() < 1e-6);
    // Mixed clips: the instance's own; spread adds its offset in clip time.
    let (c, t) = instance_clip_time(&inst, &frame(0.0, CLIP_MIXED, n, 1.0), &vat.clips);
    assert_eq!(c as u32, inst.clip % n);
    assert!((t - inst.time_offset * vat.clips[c].duration).abs() < 1e-6);
    // Day 30: the clip time is the instant f64 says (to 1e-4 s; an f32
    // time was up to 0.125 s off), kept past the end so a clip that clamps
    // still does.
    let day_30 = 2_592_000.0 + 0.4;
    let (c, t) = instance_clip_time(&inst, &frame(day_30, 0, n, 0.0), &vat.clips);
    let d = vat.clips[c].duration as f64;
    let exact = (day_30 * inst.speed as f64).rem_euclid(d);
    let off = ((t as f64 - exact).rem_euclid(d) + d / 2.0).rem_euclid(d) - d / 2.0;
    assert!(
        t as f64 >= d && off.abs() < 1e-4,
        "day 30: {t} vs {exact} (mod {d})"
    );
    // The pose time wraps like the VAT.
    let clip = &vat.clips[0];
    if clip.looping {
        let wrapped = pose_time(clip, clip.duration * 3.0 + 0.01);
        assert!((wrapped - 0.01).abs() < 1e-3, "{wrapped}");
    }
}

#[test]
fn parity_error_stays_within_the_bake_report() {
    let model = assets::load_model("horse").expect("horse");
    let vat = vat::bake(&model, &BakeOptions::default()).expect("bake");
    let n = vat.clips.len() as u32;
    let bound = vat.report.interpolation + vat.report.quantization + 1e-5 * vat.report.diagonal;
    for time in [0.0, 0.37, 1.013, 5.5] {
        let p = pose_parity(
            &model,
            &vat,
            &frame(time, CLIP_MIXED, n, 1.0),
            BehaviourView::Off,
            1,
            500,
            16,
        );
        assert_eq!(p.instances, 16);
        assert!(
            p.max_error <= bound,
            "t = {time}: {} > {bound}",
            p.max_error
        );
        assert!((p.relative - p.max_error / vat.report.diagonal).abs() < 1e-6);
    }
    // On a stored frame only the rounding remains.
    let clip = &vat.clips[0];
    let t = clip.frame_time(2);
    let pose = model.sample_pose(clip.source, t);
    let (exact, _) = skin::skin(&model, &pose);
    for v in (0..model.vertex_count()).step_by(13) {
        let e = vat_position(&vat, 0, t, v, true).distance(exact[v]);
        assert!(
            e <= vat.report.quantization + 1e-5 * vat.report.diagonal,
            "vertex {v}: {e}"
        );
    }
}

#[test]
fn cpu_cap_takes_the_lowest_limit() {
    // A small mesh: the instance cap.
    assert_eq!(cpu_cap(1000, 1 << 30), MAX_CPU_INSTANCES);
    // A big mesh: the byte budget (positions + normals, 24 bytes a vertex).
    let big = 100_000;
    assert_eq!(
        cpu_cap(big, 1 << 40) as u64,
        MAX_CPU_BYTES / (big as u64 * 24)
    );
    // A small storage binding: one stream must fit it.
    assert_eq!(cpu_cap(1000, 12_000 * 10) as u64, 10);
    assert_eq!(cpu_cap(10_000_000, 1 << 27), 1, "never zero");
}
