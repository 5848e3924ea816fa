//! The parity error of the pose on screen: for a sample of instances, the
//! largest vertex distance between the VAT pose (the stored texels, lerped
//! as the shader does) and exact skinning at the same instant. Plain Rust:
//! the panel computes it on the CPU, about once a second.

use super::anim::{BehaviourView, instance_anim};
use super::{FrameUniform, generate};
use crate::Model;
use crate::pose_batch::ClipTime;
use crate::skin;
use crate::vat::Vat;
use glam::Vec3;

/// How far the VAT pose is from live skinning right now.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Parity {
    /// Largest vertex distance, in model units.
    pub max_error: f32,
    /// `max_error` over the model size (bounding-box diagonal).
    pub relative: f32,
    /// Instances compared.
    pub instances: u32,
}

/// The VAT position of vertex `v` of clip `c` at clip time `t`, as
/// `vat_sample` computes it (lerped, or the nearest frame).
pub fn vat_position(vat: &Vat, c: usize, t: f32, v: usize, interpolate: bool) -> Vec3 {
    let clip = &vat.clips[c];
    let frame = clip.frame_at(t);
    let last = clip.frame_count.saturating_sub(1);
    let texel = |k: u32| vat.position(vat.layout.frame_start(clip, k) + v);
    if !interpolate {
        return texel(((frame + 0.5) as u32).min(last));
    }
    let f0 = (frame.floor() as u32).min(last);
    let f1 = (f0 + 1).min(last);
    let w = frame - f0 as f32;
    texel(f0).lerp(texel(f1), w)
}

/// Compares the VAT pose with exact skinning for up to `samples` instances
/// spread over the crowd of `count` grown from `seed`, at `frame`: each
/// instance's clips, times and crossfade weight as the behaviour sets them
/// this frame (`view`; the flock's weight lives on the GPU, so a bird is
/// compared in its flap clip).
pub fn pose_parity(
    model: &Model,
    vat: &Vat,
    frame: &FrameUniform,
    view: BehaviourView<'_>,
    seed: u64,
    count: u32,
    samples: u32,
) -> Parity {
    let n = model.vertex_count();
    if n == 0 || vat.clips.is_empty() || count == 0 {
        return Parity::default();
    }
    let samples = samples.clamp(1, count);
    let mut max_error = 0.0f32;
    for s in 0..samples {
        let i = (s as u64 * count as u64 / samples as u64) as u32;
        let inst = generate(seed, i);
        let anim = instance_anim(&inst, i, frame, &vat.clips, view);
        // The VAT clip that shows a model clip (the bake keeps their order).
        let vat_clip = |source| {
            vat.clips
                .iter()
                .position(|c| c.source == source)
                .unwrap_or(0)
        };
        let interpolate = frame.interpolate != 0;
        let side = |(source, t): ClipTime| {
            let (exact, _) = skin::skin(model, &model.sample_pose(source, t));
            let c = vat_clip(source);
            let stored: Vec<Vec3> = (0..n)
                .map(|v| vat_position(vat, c, t, v, interpolate))
                .collect();
            (exact, stored)
        };
        let (exact, stored) = side(anim.current);
        let (exact, stored) = if anim.weight < 1.0 {
            // Positions blend linearly in both: compare the blends.
            let (exact0, stored0) = side(anim.previous);
            let w = anim.weight;
            let mix = |a: &[Vec3], b: &[Vec3]| -> Vec<Vec3> {
                a.iter().zip(b).map(|(a, b)| a.lerp(*b, w)).collect()
            };
            (mix(&exact0, &exact), mix(&stored0, &stored))
        } else {
            (exact, stored)
        };
        for (p, e) in stored.iter().zip(&exact) {
            max_error = max_error.max(p.distance(*e));
        }
    }
    let size = vat.report.diagonal.max(1e-6);
    Parity {
        max_error,
        relative: max_error / size,
        instances: samples,
    }
}
