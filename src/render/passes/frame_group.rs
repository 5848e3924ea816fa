//! Group 0 of every scene pipeline and of the cull pass: the frame's
//! uniform (0), and what receivers and casters read of the sun's shadows:
//! their parameters (1), the maps (2), the comparison sampler (3) and the
//! cascade a caster is drawn into (4). The frame owns it; the shadow maps
//! lend their parts and say when the maps were made again.

use crate::crowd::FrameUniform;
use crate::crowd::shadow::CasterUniform;
use crate::render::util::pipeline::{bind_group, storage_entry};

/// The layout of group 0 (see the module's comment).
pub fn layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let fragment = wgpu::ShaderStages::FRAGMENT;
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("frame layout"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT | wgpu::ShaderStages::COMPUTE,
                ..storage_entry(0)
            },
            wgpu::BindGroupLayoutEntry {
                visibility: fragment,
                ..storage_entry(1)
            },
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: fragment,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Depth,
                    view_dimension: wgpu::TextureViewDimension::D2Array,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 3,
                visibility: fragment,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 4,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: wgpu::BufferSize::new(
                        std::mem::size_of::<CasterUniform>() as u64
                    ),
                },
                count: None,
            },
        ],
    })
}

/// The frame's uniform buffer (bound read-only as storage: see `frame` in
/// common.wgsl).
pub fn uniform_buffer(device: &wgpu::Device) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("frame data"),
        size: std::mem::size_of::<FrameUniform>() as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// What a group 0 binds of the shadows (bindings 1 to 4).
pub struct ShadowBindings<'a> {
    pub parameters: &'a wgpu::Buffer,
    pub maps: &'a wgpu::TextureView,
    pub sampler: &'a wgpu::Sampler,
    pub caster: wgpu::BindingResource<'a>,
}

/// A group 0 over `frame` and `shadows`.
pub fn group(
    device: &wgpu::Device,
    label: &str,
    layout: &wgpu::BindGroupLayout,
    frame: &wgpu::Buffer,
    shadows: ShadowBindings<'_>,
) -> wgpu::BindGroup {
    bind_group(
        device,
        label,
        layout,
        &[
            (0, frame.as_entire_binding()),
            (1, shadows.parameters.as_entire_binding()),
            (2, wgpu::BindingResource::TextureView(shadows.maps)),
            (3, wgpu::BindingResource::Sampler(shadows.sampler)),
            (4, shadows.caster),
        ],
    )
}

/// The frame's group 0: its layout, its uniform and the bind group of the
/// scene and cull passes.
pub struct FrameGroup {
    pub layout: wgpu::BindGroupLayout,
    buffer: wgpu::Buffer,
    group: wgpu::BindGroup,
}

impl FrameGroup {
    /// The group over `buffer` (made by [`uniform_buffer`] for `layout`)
    /// and the shadows' current maps.
    pub fn new(
        device: &wgpu::Device,
        layout: wgpu::BindGroupLayout,
        buffer: wgpu::Buffer,
        shadows: ShadowBindings<'_>,
    ) -> Self {
        let group = group(device, "frame bind group", &layout, &buffer, shadows);
        Self {
            layout,
            buffer,
            group,
        }
    }

    /// Binds the shadows' new maps (after they were made again).
    pub fn rebind(&mut self, device: &wgpu::Device, shadows: ShadowBindings<'_>) {
        self.group = group(
            device,
            "frame bind group",
            &self.layout,
            &self.buffer,
            shadows,
        );
    }

    /// Writes the frame's uniform.
    pub fn write(&self, queue: &wgpu::Queue, uniform: &FrameUniform) {
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(uniform));
    }

    /// Group 0 of the scene pass and the cull pass.
    pub fn group(&self) -> &wgpu::BindGroup {
        &self.group
    }
}
