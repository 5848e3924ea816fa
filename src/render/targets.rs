//! What the renderer draws into: colour format, MSAA and depth.

use super::DEPTH_FORMAT;
use crate::gpu::GpuContext;

/// Colour format, MSAA and depth of what the renderer draws into.
pub struct Targets {
    pub format: wgpu::TextureFormat,
    pub samples: u32,
    pub width: u32,
    pub height: u32,
    pub(crate) msaa: Option<wgpu::TextureView>,
    pub(crate) depth: wgpu::TextureView,
    /// Bumped whenever the textures are made again (what binds them
    /// makes its groups again).
    pub generation: u64,
}

impl Targets {
    pub fn new(gpu: &GpuContext, format: wgpu::TextureFormat, width: u32, height: u32) -> Self {
        let samples = gpu.msaa_samples(format, DEPTH_FORMAT);
        let (msaa, depth) = Self::make(&gpu.device, format, samples, width, height);
        Self {
            format,
            samples,
            width,
            height,
            msaa,
            depth,
            generation: 0,
        }
    }

    fn make(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        samples: u32,
        width: u32,
        height: u32,
    ) -> (Option<wgpu::TextureView>, wgpu::TextureView) {
        let size = wgpu::Extent3d {
            width: width.max(1),
            height: height.max(1),
            depth_or_array_layers: 1,
        };
        // The depth is also read (occlusion culling's pyramid).
        let texture = |label, format, usage| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size,
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
        let msaa = (samples > 1).then(|| texture("msaa colour", format, attachment));
        // Not on GL, where occlusion culling is unavailable (the depth
        // cannot be read there, wgpu #4524) and a sampled multisampled
        // depth texture leaves the crowd undrawn.
        let depth_usage = if device.adapter_info().backend == wgpu::Backend::Gl {
            attachment
        } else {
            attachment | wgpu::TextureUsages::TEXTURE_BINDING
        };
        (msaa, texture("depth", DEPTH_FORMAT, depth_usage))
    }

    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        if (width, height) != (self.width, self.height) {
            (self.msaa, self.depth) = Self::make(device, self.format, self.samples, width, height);
            (self.width, self.height) = (width, height);
            self.generation += 1;
        }
    }

    pub fn aspect(&self) -> f32 {
        self.width.max(1) as f32 / self.height.max(1) as f32
    }

    pub fn depth_state(&self, write: bool) -> wgpu::DepthStencilState {
        wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(write),
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            stencil: Default::default(),
            bias: Default::default(),
        }
    }

    pub fn multisample(&self) -> wgpu::MultisampleState {
        wgpu::MultisampleState {
            count: self.samples,
            ..Default::default()
        }
    }
}
