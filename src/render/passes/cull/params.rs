//! The cull pass's parameters for a view: where its counters are, and a
//! model's usable levels (each model's bounds are in `scene.rs`).

use crate::crowd::cull::{CullUniform, CullView, MAX_LEVELS};
use crate::lod::LodLevel;
use crate::render::passes::cull::Culler;

/// Whether the cull pass reads its parameters as a uniform
/// (shaders/cull_params_uniform.wgsl) rather than read-only storage
/// (cull_params.wgsl): where the device binds fewer storage buffers per
/// stage than the camera's cull with splats reads as storage (a browser's
/// WebGPU allows 10). Elsewhere storage, for lavapipe (cull_params.wgsl).
pub fn params_as_uniform(device: &wgpu::Device) -> bool {
    device.limits().max_storage_buffers_per_shader_stage
        < crate::render::passes::splat::NEEDED_STORAGE_BUFFERS
}

/// The parameters' binding (group 3, binding 0) as [`params_as_uniform`]
/// says.
pub(super) fn params_entry(device: &wgpu::Device) -> wgpu::BindGroupLayoutEntry {
    let mut entry = crate::gpu::compute_storage(0, true);
    if params_as_uniform(device) {
        entry.ty = wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        };
    }
    entry
}

/// A buffer for one view's parameters, bindable either way.
pub(super) fn params_buffer(device: &wgpu::Device, label: &str) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: std::mem::size_of::<CullUniform>() as u64,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::UNIFORM
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl Culler {
    /// The pass's parameters for `view`, with where its counters are.
    pub(super) fn uniform(&self, view: &CullView, count: u32, region: u32) -> CullUniform {
        CullUniform {
            counter_word: self.regions.counter_word(),
            ..self.scene_uniform(view, count, region)
        }
    }

    /// The levels' errors, how many the settings let the pass use, and
    /// the first coarse one among those.
    pub(super) fn usable_levels(&self, levels: &[LodLevel]) -> ([f32; MAX_LEVELS], usize, u32) {
        let errors: [f32; MAX_LEVELS] =
            std::array::from_fn(|l| levels.get(l).map_or(0.0, |level| level.error));
        let usable = if self.settings.coarse_levels {
            levels.len()
        } else {
            levels.iter().filter(|l| !l.coarse).count()
        };
        let far_level = levels
            .iter()
            .take(usable)
            .position(|l| l.coarse)
            .unwrap_or(usable) as u32;
        (errors, usable, far_level)
    }
}
