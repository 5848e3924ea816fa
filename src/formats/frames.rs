//! The poses the engine formats store: every stored frame of every clip
//! skinned exactly on the CPU (not read back from the bake's f16 texels,
//! so a 16-bit format keeps its own precision), and the rest pose the
//! exported meshes carry.

use crate::model::Model;
use crate::skin;
use crate::vat::Vat;
use glam::Vec3;
use rayon::prelude::*;

/// One clip's stored frames, exact: `positions[k][v]` is vertex `v` in
/// frame `k`, model space (the glTF scene's root).
#[derive(Clone, Debug)]
pub struct ClipFrames {
    pub positions: Vec<Vec<Vec3>>,
    pub normals: Vec<Vec<Vec3>>,
}

/// The rest pose (every node at its rest transform, morph weights at their
/// defaults, no clip) skinned into model space: positions and normals.
pub fn rest_pose(model: &Model) -> (Vec<Vec3>, Vec<Vec3>) {
    skin::skin(model, &model.sample_pose(None, 0.0))
}

/// Every stored frame of every clip of `vat`, as the bake samples them: a
/// looping clip's last frame is its first again.
pub fn exact_frames(model: &Model, vat: &Vat) -> Vec<ClipFrames> {
    vat.clips
        .iter()
        .map(|clip| {
            let frames: Vec<(Vec<Vec3>, Vec<Vec3>)> = (0..clip.frame_count)
                .into_par_iter()
                .map(|k| {
                    let k = if clip.looping && k == clip.segments() {
                        0
                    } else {
                        k
                    };
                    skin::skin(model, &model.sample_pose(clip.source, clip.frame_time(k)))
                })
                .collect();
            let (positions, normals) = frames.into_iter().unzip();
            ClipFrames { positions, normals }
        })
        .collect()
}
