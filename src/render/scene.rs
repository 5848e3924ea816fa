//! Everything around the crowd: the sky and the ground (the light and the
//! fog come with the frame uniform, `crowd::frame`).

use super::Targets;
use super::pipeline::{TargetPipeline, Writes, target_pipeline};
use super::shaders::{self, ModuleSpec};

/// The ground and sky pipelines.
pub struct Scene {
    ground: wgpu::RenderPipeline,
    sky: wgpu::RenderPipeline,
}

impl Scene {
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
        let pipeline = |shader: ModuleSpec, writes: Writes, bias| {
            let spec = TargetPipeline {
                label: shader.name,
                layout: &layout,
                shader,
                buffers: &[],
                primitive: wgpu::PrimitiveState::default(),
                writes,
                bias,
            };
            target_pipeline(device, &spec, targets)
        };
        // A hoof on the ground meets it at the same depth. The ground is
        // drawn after the crowd in one scene pass but before phase 2's
        // crowd with occlusion culling (its depth hides too), and the
        // depth test keeps the later of two equal depths: pushed back by
        // the least step, the ground loses every such tie whatever the
        // order, so the picture is the same either way.
        let ground_bias = wgpu::DepthBiasState {
            constant: 1,
            slope_scale: 0.0,
            clamp: 0.0,
        };
        Self {
            ground: pipeline(shaders::GROUND, Writes::All, ground_bias),
            sky: pipeline(shaders::SKY, Writes::Colour, Default::default()),
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
