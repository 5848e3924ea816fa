//! The models a technique draws: one for a single-model crowd, each model
//! of a scene otherwise ([`Member`]). The bone-matrix techniques build
//! their per-vertex data over all of them in the shared vertex stream's
//! order (each model's vertices from its `base_vertex`), so the vertex
//! index a draw gives is the index into that data, as it is into the
//! VAT's rows.

use crate::Model;
use crate::bones::{BoneError, BoneTexture};
use crate::lod::LodChain;
use crate::render::data::gpu_data::VatClipGpu;
use crate::vat::VatClip;
use std::sync::Arc;

/// One model a technique draws.
#[derive(Clone, Debug)]
pub struct Member {
    pub model: Arc<Model>,
    /// Its own clips (sources into its own animations).
    pub clips: Vec<VatClip>,
    /// Its first vertex in the shared vertex stream.
    pub base_vertex: u32,
    /// Its mesh levels (index ranges over its own vertices).
    pub lod: Arc<LodChain>,
}

impl Member {
    /// The one model of a single-model crowd.
    pub fn single(model: &Arc<Model>, clips: &[VatClip], lod: &Arc<LodChain>) -> Self {
        Self {
            model: model.clone(),
            clips: clips.to_vec(),
            base_vertex: 0,
            lod: lod.clone(),
        }
    }
}

/// Joints per palette across `members`: the largest model's (at least 1),
/// the stride of an instance's palette in the shared palette buffer.
pub fn palette_stride(members: &[Member]) -> usize {
    members
        .iter()
        .map(|m| m.model.palette.len())
        .max()
        .unwrap_or(0)
        .max(1)
}

/// The largest member's vertices: what one instance's slot of per-vertex
/// output (compute or CPU skinning) holds.
pub fn slot_vertices(members: &[Member]) -> usize {
    members
        .iter()
        .map(|m| m.model.vertex_count())
        .max()
        .unwrap_or(0)
}

/// The stored pose: position (w = 1) and normal (w = 0) of every vertex at
/// the first clip's time 0 (the rest pose for a model without clips).
fn rest_pose(model: &Model, clip: Option<usize>) -> Vec<[f32; 4]> {
    let mut pose = crate::anim::Pose::rest(model);
    pose.sample(model, clip, 0.0);
    let (p, n) = crate::skin::skin(model, &pose);
    let mut out: Vec<[f32; 4]> = p
        .iter()
        .zip(&n)
        .flat_map(|(p, n)| [p.extend(1.0).to_array(), n.extend(0.0).to_array()])
        .collect();
    if out.is_empty() {
        out.push([0.0; 4]);
    }
    out
}

/// Every member's stored pose (position, normal) in the shared stream's
/// order: each at its first clip's time 0.
pub fn rest_poses(members: &[Member]) -> Vec<[f32; 4]> {
    let mut out: Vec<[f32; 4]> = Vec::new();
    for m in members {
        let source = m.clips.first().and_then(|c| c.source);
        let pose = rest_pose(&m.model, source);
        out.extend(&pose[..2 * m.model.vertex_count()]);
    }
    if out.is_empty() {
        out.push([0.0; 4]);
    }
    out
}

/// Every member's palettes baked into one bone texture: each model's rows
/// after the previous one's, the width the widest model's.
pub fn bake_bones(members: &[Member], max_side: u32) -> Result<BoneTexture, BoneError> {
    let parts = members
        .iter()
        .map(|m| BoneTexture::bake(&m.model, &m.clips, max_side, max_side))
        .collect::<Result<Vec<_>, _>>()?;
    BoneTexture::stack(parts, max_side)
}

/// The scene's clip table with each clip's first row in `bones` (the
/// texture [`bake_bones`] made; its clips in the table's order).
pub fn bone_clip_table(table: &[VatClipGpu], bones: &BoneTexture) -> Vec<VatClipGpu> {
    table
        .iter()
        .zip(&bones.clips)
        .map(|(c, b)| VatClipGpu {
            layer: 0,
            first_row: b.first_row,
            rows_per_frame: 1,
            width: bones.width,
            ..*c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stride_and_counts_cover_every_member() {
        let horse = Arc::new(crate::assets::load_model("horse").unwrap());
        let bird = Arc::new(crate::assets::load_model("bird").unwrap());
        let lod = Arc::new(LodChain::default());
        let members = [
            Member::single(&horse, &[], &lod),
            Member {
                base_vertex: horse.vertex_count() as u32,
                ..Member::single(&bird, &[], &lod)
            },
        ];
        assert_eq!(
            palette_stride(&members),
            horse.palette.len().max(bird.palette.len())
        );
        assert_eq!(
            slot_vertices(&members),
            horse.vertex_count().max(bird.vertex_count())
        );
        let poses = rest_poses(&members);
        assert_eq!(
            poses.len(),
            2 * (horse.vertex_count() + bird.vertex_count())
        );
    }
}
