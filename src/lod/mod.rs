//! Mesh levels of detail that respect the animation: index buffers over the
//! model's own vertex stream (so the VAT, the bone data and every technique
//! serve every level with no rebake), each with its error measured over
//! every baked frame of every clip.
//!
//! No wgpu here: the renderer uploads [`LodChain::indices`] and picks a
//! level per instance on the GPU from [`LodLevel::error`].

use crate::Model;
use crate::vat::Vat;

/// The triangle fractions the chain aims for, finest first.
pub const DEFAULT_TARGETS: [f32; 4] = [1.0, 0.35, 0.12, 0.04];

/// The most levels a chain holds (the GPU packs the level in two bits).
pub const MAX_LEVELS: usize = 4;

/// How a chain is built.
#[derive(Clone, Debug)]
pub struct LodOptions {
    /// Triangle fractions, finest first; the first must be 1.0.
    pub targets: Vec<f32>,
}

impl Default for LodOptions {
    fn default() -> Self {
        Self {
            targets: DEFAULT_TARGETS.to_vec(),
        }
    }
}

/// One level: a range of [`LodChain::indices`].
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LodLevel {
    pub first_index: u32,
    pub index_count: u32,
    /// Worst distance, over every baked frame of every clip, between the
    /// full mesh's surface and this level's, in model units (0 for level 0).
    pub error: f32,
}

impl LodLevel {
    pub fn triangles(&self) -> u32 {
        self.index_count / 3
    }
}

/// A model's levels of detail, finest (the full mesh) first, with errors
/// that never decrease from one level to the next.
#[derive(Clone, Debug, Default)]
pub struct LodChain {
    /// Every level's triangle list, one after the other; level 0 is the
    /// model's own indices.
    pub indices: Vec<u32>,
    pub levels: Vec<LodLevel>,
    /// Per baked clip: the worst distance between a vertex's lerped position
    /// and its nearest stored frame's (what sampling the nearest frame
    /// instead of two costs), in model units.
    pub nearest_frame_error: Vec<f32>,
    /// Wall time of the build in milliseconds.
    pub build_ms: f64,
}

/// The full mesh as the only level (what every chain starts with).
pub fn build(model: &Model, vat: &Vat, _options: &LodOptions) -> LodChain {
    LodChain {
        indices: model.indices.clone(),
        levels: vec![LodLevel {
            first_index: 0,
            index_count: model.indices.len() as u32,
            error: 0.0,
        }],
        nearest_frame_error: vec![f32::INFINITY; vat.clips.len()],
        build_ms: 0.0,
    }
}
