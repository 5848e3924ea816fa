//! Where the skin pass's palettes come from: the CPU's sampling
//! ([`CpuPalettes`], compute skinning) or the bone texture on the GPU
//! (`compute_bone_texture`).

use crate::render::passes::techniques::palettes::PaletteSampler;
use crate::render::passes::techniques::{BuildContext, FrameContext, TechniqueKind};
use crate::render::config::RenderError;

/// Where the skin pass's palettes come from: the CPU's sampling
/// ([`CpuPalettes`], this technique) or the bone texture on the GPU
/// (`compute_bone_texture`).
pub trait PaletteSource: Sized {
    /// The technique it makes.
    const KIND: TechniqueKind;
    fn new(ctx: &BuildContext<'_>, crowd_layout: &wgpu::BindGroupLayout) -> Result<Self, RenderError>;
    /// Before the pass: fills (or only sizes) `palettes` for instances
    /// `0..count`; returns the bytes uploaded and whether the buffer was
    /// replaced.
    fn fill(&mut self, palettes: &mut PaletteSampler, ctx: &FrameContext<'_>, count: u32) -> (u64, bool);
    /// The pass's state or the palettes were replaced: bind them again.
    fn bind(&mut self, _device: &wgpu::Device, _state: &wgpu::Buffer, _palettes: &wgpu::Buffer) {}
    /// Its own dispatch, after the marking and before the skinning, for
    /// `instances` of `joints` joints.
    fn dispatch(
        &self,
        _pass: &mut wgpu::ComputePass<'_>,
        _groups: [&wgpu::BindGroup; 2],
        _instances: u32,
        _joints: u32,
    ) {
    }
    /// Bytes of its own GPU resources.
    fn gpu_bytes(&self) -> u64 {
        0
    }
    /// The clip table and bone texture the draws' previous pose samples
    /// (the velocity target), when it is not the previous frame's palettes.
    fn previous_pose_source(&self) -> Option<(&wgpu::Buffer, &wgpu::TextureView)> {
        None
    }
}

/// Live skinning's palettes, sampled for every drawn instance on the CPU.
pub struct CpuPalettes;

impl PaletteSource for CpuPalettes {
    const KIND: TechniqueKind = TechniqueKind::ComputeSkinning;

    fn new(_: &BuildContext<'_>, _: &wgpu::BindGroupLayout) -> Result<Self, RenderError> {
        Ok(Self)
    }

    fn fill(&mut self, palettes: &mut PaletteSampler, ctx: &FrameContext<'_>, count: u32) -> (u64, bool) {
        palettes.update(ctx, count)
    }
}

