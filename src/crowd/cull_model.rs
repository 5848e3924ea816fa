//! One model's part of the cull pass's parameters (a scene of several
//! models has one each): what `CullUniform` holds per model, and what the
//! pass is given to make it.

use super::{INDEX_BITS, LEVEL_MASK};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// One model's part of the cull pass's parameters: its sphere and levels
/// as this view may use them, and its regions of the visible list.
/// Mirrors `CullModel` in shaders/cull.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct CullModelGpu {
    /// Model-space bounding sphere of every baked frame: xyz centre, w radius.
    pub sphere: [f32; 4],
    /// Each mesh level's animated error in model units (level `l` at
    /// `[l / 4][l % 4]`).
    pub level_error: [[f32; 4]; 2],
    /// Mesh levels this view uses.
    pub levels: u32,
    /// Worst nearest-frame error over the clips, model units.
    pub nearest_error: f32,
    /// With [`FLAG_CAMERA_LOD`]: the finest level a caster the camera
    /// would draw as an impostor may cast with (the first coarse level).
    pub far_level: u32,
    /// The model's impostors in an entry's region bits: after every mesh
    /// level of its chain (`levels` may use fewer of them).
    pub impostor_bits: u32,
    /// Its level 0's region in the visible list (its levels follow).
    pub first_region: u32,
    /// Its impostors' region in the visible list.
    pub impostor_region: u32,
    /// 1 = none of its instances is drawn (a debug switch: the tests
    /// compare a scene with each model alone).
    pub hidden: u32,
    pub _pad: [u32; 1],
    /// Model-space half size of the box of every baked frame around the
    /// sphere's centre (xyz): occlusion culling tests a mesh by it.
    pub half: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<CullModelGpu>() == 96);

impl CullModelGpu {
    /// Mesh level `l`'s animated error.
    pub fn level_error(&self, l: u32) -> f32 {
        self.level_error[(l / 4) as usize % 2][(l % 4) as usize]
    }

    /// The visible list's region an entry with these `bits` (from
    /// [`CullUniform::cull`]) goes to (`region_of` in cull.wgsl).
    pub fn region_of(&self, bits: u32) -> u32 {
        let local = bits >> INDEX_BITS & LEVEL_MASK;
        if local == self.impostor_bits {
            self.impostor_region
        } else {
            self.first_region + local
        }
    }
}

/// One model's sphere and levels, as the cull pass is given them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CullModel<'a> {
    pub sphere: (Vec3, f32),
    /// The box's half size around the sphere's centre.
    pub half: Vec3,
    /// The animated error of each mesh level the view may use.
    pub level_error: &'a [f32],
    pub nearest_error: f32,
    /// The chain's first coarse level (its length when it has none).
    pub far_level: u32,
    /// The chain's length (the impostors' region bits).
    pub chain_levels: u32,
    pub first_region: u32,
    pub impostor_region: u32,
    /// None of its instances is drawn.
    pub hidden: bool,
}
