//! Motion blur from the velocity target (shaders/motion_blur.wgsl): after
//! TAA's resolve, the resolved picture (its history texture, which can be
//! read) averaged along each pixel's motion into the output. With MSAA the
//! picture is resolved straight into the output, which cannot be read, so
//! motion blur needs TAA.

use crate::render::Targets;
use crate::render::pipeline::bind_group;
use bytemuck::{Pod, Zeroable};

/// `BlurParams` in motion_blur.wgsl (checked by tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct BlurUniform {
    pub viewport: [f32; 2],
    pub size: [f32; 2],
}

pub struct MotionBlur {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    /// A group per history texture, for the targets' generation.
    groups: [Option<(u64, wgpu::BindGroup)>; 2],
}

impl MotionBlur {
    pub fn new(device: &wgpu::Device, targets: &Targets) -> Self {
        let texture = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("motion blur layout"),
            entries: &[
                texture(0),
                texture(1),
                wgpu::BindGroupLayoutEntry {
                    binding: 2,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let module = crate::render::shaders::MOTION_BLUR.create(device);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("motion blur pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("motion blur"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(targets.format.into())],
            }),
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        });
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("motion blur uniform"),
            size: std::mem::size_of::<BlurUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            pipeline,
            layout,
            uniform,
            groups: [None, None],
        }
    }

    /// Draws `resolved` (history `index`) blurred along the velocity into
    /// `output`'s scene viewport (x, y, w, h).
    #[allow(clippy::too_many_arguments)]
    pub fn encode(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        (index, resolved): (usize, &wgpu::TextureView),
        output: &wgpu::TextureView,
        viewport: [f32; 4],
    ) {
        let Some((_, velocity)) = &targets.velocity else {
            return;
        };
        let slot = &mut self.groups[index];
        if slot.as_ref().is_none_or(|(g, _)| *g != targets.generation) {
            let group = bind_group(
                device,
                "motion blur group",
                &self.layout,
                &[
                    (0, wgpu::BindingResource::TextureView(resolved)),
                    (1, wgpu::BindingResource::TextureView(velocity)),
                    (2, self.uniform.as_entire_binding()),
                ],
            );
            *slot = Some((targets.generation, group));
        }
        let u = BlurUniform {
            viewport: [viewport[2], viewport[3]],
            size: [targets.width as f32, targets.height as f32],
        };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&u));
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("motion blur"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: output,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let [x, y, w, h] = viewport;
        pass.set_viewport(x, y, w, h, 0.0, 1.0);
        pass.set_pipeline(&self.pipeline);
        if let Some((_, group)) = &self.groups[index] {
            pass.set_bind_group(0, group, &[]);
        }
        pass.draw(0..3, 0..1);
    }
}
