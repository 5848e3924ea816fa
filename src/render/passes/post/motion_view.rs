//! The velocity target's debug view (shaders/motion_view.wgsl): each
//! pixel's motion drawn over the picture, direction as hue and length as
//! brightness.

use crate::render::passes::targets::Targets;
use crate::render::util::fullscreen::{self, Fullscreen};
use crate::render::util::pipeline::bind_group;
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
        let (layout, pipeline) = Fullscreen {
            label: "motion view",
            shader: crate::render::util::shaders::MOTION_VIEW,
            entries: &[fullscreen::texture(0, false), fullscreen::uniform(1)],
            targets: &[Some(targets.format.into())],
            depth: None,
            multisample: Default::default(),
        }
        .build(device);
        let uniform =
            fullscreen::uniform_buffer::<MotionViewUniform>(device, "motion view uniform");
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
        if let Some((_, group)) = &self.group {
            fullscreen::draw_over(
                encoder,
                "motion view",
                output,
                viewport,
                &self.pipeline,
                group,
            );
        }
    }
}
