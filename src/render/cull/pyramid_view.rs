//! The depth pyramid's debug view (shaders/pyramid_view.wgsl): one mip
//! drawn over the picture at the end of the late scene pass, so the
//! occluders the second phase tested against can be seen.

use super::pyramid::DepthPyramid;
use crate::render::Targets;
use crate::render::pipeline::bind_group;
use bytemuck::{Pod, Zeroable};

/// `PyramidView` in pyramid_view.wgsl (checked by tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq, Eq)]
pub struct PyramidViewUniform {
    pub size: [u32; 2],
    pub mip: u32,
    pub offset: u32,
}

pub struct PyramidView {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    /// The group and the pyramid generation it binds.
    group: Option<(u64, wgpu::BindGroup)>,
}

impl PyramidView {
    pub fn new(device: &wgpu::Device, targets: &Targets) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("pyramid view layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { read_only: true },
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let module = crate::render::shaders::PYRAMID_VIEW.create(device);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("pyramid view pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        // Over the colour only (the velocity target keeps the scene's).
        let mut colour = targets.color_targets(None);
        if let Some(Some(v)) = colour.get_mut(1) {
            v.write_mask = wgpu::ColorWrites::empty();
        }
        let mut depth = targets.depth_state(false);
        depth.depth_compare = Some(wgpu::CompareFunction::Always);
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("pyramid view"),
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
                targets: &colour,
            }),
            primitive: Default::default(),
            depth_stencil: Some(depth),
            multisample: targets.multisample(),
            multiview_mask: None,
            cache: None,
        });
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pyramid view uniform"),
            size: std::mem::size_of::<PyramidViewUniform>() as u64,
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

    /// Readies the view of `mip` (clamped to the pyramid's) of `pyramid`;
    /// false when there is no pyramid to show.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        pyramid: &DepthPyramid,
        mip: u32,
    ) -> bool {
        let (Some(buffer), Some(size)) = (pyramid.buffer(), pyramid.size()) else {
            return false;
        };
        let sizes = pyramid.mip_sizes();
        let mip = mip.min(sizes.len().saturating_sub(1) as u32);
        let (offsets, _) = crate::crowd::occlusion::mip_offsets(sizes);
        let u = PyramidViewUniform {
            size: [size.0, size.1],
            mip,
            offset: offsets[mip as usize],
        };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&u));
        if self
            .group
            .as_ref()
            .is_none_or(|(g, _)| *g != pyramid.generation)
        {
            let group = bind_group(
                device,
                "pyramid view group",
                &self.layout,
                &[
                    (0, self.uniform.as_entire_binding()),
                    (1, buffer.as_entire_binding()),
                ],
            );
            self.group = Some((pyramid.generation, group));
        }
        true
    }

    /// Draws the prepared mip over the whole `width × height` target.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, (width, height): (u32, u32)) {
        if let Some((_, group)) = &self.group {
            pass.set_viewport(0.0, 0.0, width as f32, height as f32, 0.0, 1.0);
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.draw(0..3, 0..1);
        }
    }
}
