//! The pass's state buffer and level data, word by word: the Rust side of
//! the WGSL constants of the same names in
//! `shaders/techniques/compute_skinning.wgsl` (tests/gpu_constants.rs
//! checks that the two agree).

use crate::crowd::scene::MAX_SCENE_MODELS;
use crate::render::data::gpu_data::SkinnedVertex;

/// The most mesh levels the pass tells apart (one bit each).
pub const MAX_SKIN_LEVELS: usize = 32;
/// State words (the WGSL constants of the same names).
pub const STATE_SLOTS: u32 = 32;
pub const STATE_COUNT: u32 = 33;
pub const STATE_CAPACITY: u32 = 34;
pub const STATE_BLEND: u32 = 35;
/// Skinned vertices given out this frame (each instance its model's).
pub const STATE_VERTICES: u32 = 36;
/// Each model's vertices (a word per model of the scene).
pub const STATE_MODEL_VERTICES: u32 = 40;
/// Each model's first level among the pass's levels (its level 0's
/// region): where a direct view's instances are marked.
pub const STATE_MODEL_LEVEL: u32 = 48;
pub const STATE_HEADER: u32 = 64;
const _: () = assert!(STATE_MODEL_VERTICES as usize + MAX_SCENE_MODELS <= STATE_MODEL_LEVEL as usize);
const _: () = assert!(STATE_MODEL_LEVEL as usize + MAX_SCENE_MODELS <= STATE_HEADER as usize);
/// Where the level spans (first, length, base vertex) and the vertex
/// lists start in the level data.
pub const LEVELS_SPANS: u32 = 4;
pub const LEVELS_HEADER: u32 = 100;
/// Bytes of one skinned vertex.
pub const SKINNED_VERTEX_BYTES: u64 = std::mem::size_of::<SkinnedVertex>() as u64;
pub(super) const HEADER_BYTES: u64 = STATE_HEADER as u64 * 4;
