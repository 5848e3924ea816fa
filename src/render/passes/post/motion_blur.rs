//! Motion blur from the velocity target (shaders/motion_blur.wgsl): after
//! TAA's resolve, the resolved picture (its history texture, which can be
//! read) averaged along each pixel's motion into the output. With MSAA the
//! picture is resolved straight into the output, which cannot be read, so
//! motion blur needs TAA.

use crate::render::passes::targets::Targets;
use crate::render::util::fullscreen::{self, Fullscreen};
use crate::render::util::pipeline::bind_group;
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
        let (layout, pipeline) = Fullscreen {
            label: "motion blur",
            shader: crate::render::util::shaders::MOTION_BLUR,
            entries: &[
                fullscreen::texture(0, false),
                fullscreen::texture(1, false),
                fullscreen::uniform(2),
            ],
            targets: &[Some(targets.format.into())],
            depth: None,
            multisample: Default::default(),
        }
        .build(device);
        let uniform = fullscreen::uniform_buffer::<BlurUniform>(device, "motion blur uniform");
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
        if let Some((_, group)) = &self.groups[index] {
            fullscreen::draw_over(
                encoder,
                "motion blur",
                output,
                viewport,
                &self.pipeline,
                group,
            );
        }
    }
}
