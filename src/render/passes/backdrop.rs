//! Everything around the crowd: the sky and the ground (the light and the
//! fog come with the frame uniform, `crowd::frame`).

use crate::render::passes::targets::Targets;
use crate::render::util::pipeline::{TargetPipeline, Writes, target_pipeline};
use crate::render::util::shaders::{self, ModuleSpec};

/// The ground and sky pipelines.
pub struct Backdrop {
    ground: wgpu::RenderPipeline,
    sky: wgpu::RenderPipeline,
}

impl Backdrop {
    pub fn new(
        device: &wgpu::Device,
        targets: &Targets,
        frame_layout: &wgpu::BindGroupLayout,
    ) -> Self {
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("scene pipeline layout"),
            bind_group_layouts: &[Some(frame_layout)],
            immediate_size: 0,
        });
        let pipeline = |shader: ModuleSpec, writes: Writes, loses_ties| {
            let spec = TargetPipeline {
                label: shader.name,
                layout: &layout,
                shader,
                buffers: &[],
                primitive: wgpu::PrimitiveState::default(),
                writes,
                loses_ties,
            };
            target_pipeline(device, &spec, targets)
        };
        // A hoof on the ground meets it at the same depth. The ground is
        // drawn after the crowd in one scene pass but before phase 2's
        // crowd with occlusion culling (its depth hides too), and the
        // crowd's depth test keeps the later of two equal depths; the
        // ground's keeps the earlier, so the hoof keeps every such sample
        // whatever the order, and the picture is the same either way.
        Self {
            ground: pipeline(shaders::GROUND, Writes::All, true),
            sky: pipeline(shaders::SKY, Writes::Colour, false),
        }
    }

    pub fn draw_ground(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.ground);
        pass.draw(0..6, 0..1);
    }

    /// Draw last: it fills only what nothing else covered.
    pub fn draw_sky(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.sky);
        pass.draw(0..3, 0..1);
    }
}
