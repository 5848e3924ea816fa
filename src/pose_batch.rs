//! Per-instance animation on the CPU, for the comparison techniques: every
//! instance's palette (live GPU skinning) or skinned mesh (CPU skinning),
//! computed in parallel with no allocation per frame.

use crate::anim::Pose;
use crate::bones::{JointRows, joint_rows};
use crate::model::Model;
use crate::skin;
use glam::Vec3;
use rayon::prelude::*;

/// Which clip an instance plays and at what clip time (seconds from the
/// clip's first key; the caller wraps or clamps as the VAT does).
pub type ClipTime = (Option<usize>, f32);

/// One reusable pose per worker thread.
pub struct PoseBatch {
    workers: Vec<Pose>,
    /// Per worker: the second skinned pose of a crossfade.
    scratch: Vec<(Vec<Vec3>, Vec<Vec3>)>,
}

/// Two clip times and the second one's weight: a crossfade.
pub type ClipBlend = (ClipTime, ClipTime, f32);

impl PoseBatch {
    /// A batch with one worker per thread of the rayon pool.
    pub fn new(model: &Model) -> Self {
        let threads = rayon::current_num_threads().max(1);
        Self {
            workers: (0..threads).map(|_| Pose::rest(model)).collect(),
            scratch: (0..threads).map(|_| (Vec::new(), Vec::new())).collect(),
        }
    }

    fn per_worker(&self, count: usize) -> usize {
        count.div_ceil(self.workers.len()).max(1)
    }

    /// Writes the palette of instances `0..count` into `out`
    /// (`count × model.palette.len()` joints, instance after instance).
    pub fn palettes(
        &mut self,
        model: &Model,
        count: usize,
        clip_time: impl Fn(usize) -> Option<ClipTime> + Sync,
        out: &mut [JointRows],
    ) {
        self.palettes_strided(model, count, model.palette.len(), clip_time, out);
    }

    /// As [`Self::palettes`], palette `i` at joint `i × stride` (at least
    /// the model's joints; the rest of each palette left as it was): a
    /// scene's models share one buffer laid out for the largest.
    pub fn palettes_strided(
        &mut self,
        model: &Model,
        count: usize,
        stride: usize,
        clip_time: impl Fn(usize) -> Option<ClipTime> + Sync,
        out: &mut [JointRows],
    ) {
        let joints = model.palette.len();
        assert!(stride >= joints, "palette stride below the joint count");
        if joints == 0 || count == 0 {
            return;
        }
        assert!(out.len() >= count * stride, "palette output too small");
        let per = self.per_worker(count);
        out[..count * stride]
            .par_chunks_mut(per * stride)
            .zip(self.workers.par_iter_mut())
            .enumerate()
            .for_each(|(w, (out, pose))| {
                for (i, palette) in out.chunks_mut(stride).enumerate() {
                    // `None`: nobody will look at this palette this frame.
                    let Some((clip, t)) = clip_time(w * per + i) else {
                        continue;
                    };
                    pose.sample(model, clip, t);
                    for (dst, m) in palette.iter_mut().zip(&pose.palette) {
                        *dst = joint_rows(m);
                    }
                }
            });
    }

    /// Like [`Self::skin`], each instance a crossfade `(previous, current,
    /// weight)`: both poses skinned, positions lerped, normals lerped and
    /// renormalized (as `vat_sample_blend` does). Weight 1 skins once.
    pub fn skin_blend(
        &mut self,
        model: &Model,
        count: usize,
        blend: impl Fn(usize) -> ClipBlend + Sync,
        positions: &mut [Vec3],
        normals: &mut [Vec3],
    ) {
        let n = model.vertex_count();
        assert!(
            positions.len() >= count * n && normals.len() >= count * n,
            "skinning output too small"
        );
        for (p, nr) in &mut self.scratch {
            p.resize(n, Vec3::ZERO);
            nr.resize(n, Vec3::ZERO);
        }
        let per = self.per_worker(count);
        positions[..count * n]
            .par_chunks_mut(per * n)
            .zip(normals[..count * n].par_chunks_mut(per * n))
            .zip(self.workers.par_iter_mut().zip(self.scratch.par_iter_mut()))
            .enumerate()
            .for_each(|(w, ((pos, nrm), (pose, (sp, sn))))| {
                for (i, (p, nr)) in pos.chunks_mut(n).zip(nrm.chunks_mut(n)).enumerate() {
                    let (previous, current, weight) = blend(w * per + i);
                    pose.sample(model, current.0, current.1);
                    skin::skin_into(model, pose, p, nr);
                    if weight >= 1.0 {
                        continue;
                    }
                    pose.sample(model, previous.0, previous.1);
                    skin::skin_into(model, pose, sp, sn);
                    for k in 0..n {
                        p[k] = sp[k].lerp(p[k], weight);
                        let m = sn[k].lerp(nr[k], weight);
                        nr[k] = m.try_normalize().unwrap_or(nr[k]);
                    }
                }
            });
    }

    /// Skins instances `0..count` into `positions` and `normals`
    /// (`count × model.vertex_count()` each, instance after instance).
    pub fn skin(
        &mut self,
        model: &Model,
        count: usize,
        clip_time: impl Fn(usize) -> ClipTime + Sync,
        positions: &mut [Vec3],
        normals: &mut [Vec3],
    ) {
        let unblended = |i| {
            let c = clip_time(i);
            (c, c, 1.0)
        };
        self.skin_blend(model, count, unblended, positions, normals);
    }
}
