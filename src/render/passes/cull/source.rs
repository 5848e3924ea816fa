//! One model of a scene as the cull pass sees it: its bounds of every
//! baked frame and its mesh levels in the scene's shared buffers.

use crate::lod::{LodChain, LodLevel};
use crate::vat::PoseBounds;

/// One model of a scene the cull pass chooses levels for.
#[derive(Clone, Debug)]
pub struct CullSource {
    /// Model-space bounds of every baked frame.
    pub bounds: PoseBounds,
    /// Its mesh levels, `first_index` counted in the scene's index buffer.
    pub levels: Vec<LodLevel>,
    /// Its first vertex in the scene's vertex stream.
    pub base_vertex: u32,
    pub nearest_error: f32,
}

impl CullSource {
    /// A model's source from its bounds and its own chain, `first_index`
    /// counted from `first_index` and its vertices from `base_vertex` in the
    /// shared buffers.
    pub fn new(bounds: PoseBounds, chain: &LodChain, first_index: u32, base_vertex: u32) -> Self {
        Self {
            bounds,
            levels: chain
                .levels
                .iter()
                .map(|level| LodLevel {
                    first_index: level.first_index + first_index,
                    ..*level
                })
                .collect(),
            base_vertex,
            nearest_error: chain
                .nearest_frame_error
                .iter()
                .copied()
                .fold(0.0f32, f32::max),
        }
    }
}
