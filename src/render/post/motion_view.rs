//! The velocity target's debug view (shaders/motion_view.wgsl): each
//! pixel's motion drawn over the picture, direction as hue and length as
//! brightness.

use crate::render::Targets;
use crate::render::pipeline::bind_group;
use bytemuck::{Pod, Zeroable};

/// `MotionViewParams` in motion_view.wgsl (checked by tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct MotionViewUniform {
    pub viewport: [f32; 2],
    pub full_px: f32,
    pub _pad: f32,
}

/// Pixels of motion per frame shown at full brightness.
pub const FULL_PX: f32 = 8.0;

pub struct MotionView {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    /// The group and the targets' generation it binds.
    group: Option<(u64, wgpu::BindGroup)>,
}

impl MotionView {
    pub fn new(device: &wgpu::Device, targets: &Targets) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("motion view layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
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
        let module = crate::render::shaders::MOTION_VIEW.create(device);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("motion view pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("motion view"),
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
            label: Some("motion view uniform"),
            size: std::mem::size_of::<MotionViewUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            pipeline,
            layout,
            uniform,
            group: None,
        }
    }

    /// Draws the motion over `output`'s scene viewport (x, y, w, h).
    pub fn encode(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        output: &wgpu::TextureView,
        viewport: [f32; 4],
    ) {
        let Some((_, velocity)) = &targets.velocity else {
            return;
        };
        if self
            .group
            .as_ref()
            .is_none_or(|(g, _)| *g != targets.generation)
        {
            let group = bind_group(
                device,
                "motion view group",
                &self.layout,
                &[
                    (0, wgpu::BindingResource::TextureView(velocity)),
                    (1, self.uniform.as_entire_binding()),
                ],
            );
            self.group = Some((targets.generation, group));
        }
        let u = MotionViewUniform {
            viewport: [viewport[2], viewport[3]],
            full_px: FULL_PX,
            _pad: 0.0,
        };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&u));
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("motion view"),
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
        if let Some((_, group)) = &self.group {
            pass.set_bind_group(0, group, &[]);
        }
        pass.draw(0..3, 0..1);
    }
}
