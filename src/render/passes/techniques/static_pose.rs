//! The static floor: the same mesh in one stored pose (frame 0 of the first
//! clip, skinned once at build time; each model of a scene its own), the
//! same instances and motion, no animation. What is left when animation costs nothing.

use crate::render::data::model_gpu::ModelGpu;
use crate::render::config::RenderError;
use crate::render::passes::techniques::{CrowdDraw, CrowdPass, CrowdPipelines};
use crate::render::passes::techniques::{BuildContext, CrowdGroup, FrameContext, Prepared, Technique, TechniqueKind, clip_buffer, draw_crowd};
use crate::render::util::pipeline::{bind_group, storage_entry};
use wgpu::util::DeviceExt;

pub struct StaticTechnique {
    pose: wgpu::Buffer,
    clip_table: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    group: wgpu::BindGroup,
    pipelines: CrowdPipelines,
    crowd: CrowdGroup,
}

impl StaticTechnique {
    fn new(ctx: &BuildContext<'_>) -> Self {
        let device = ctx.device;
        let pose = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("static pose"),
            contents: bytemuck::cast_slice(&crate::render::passes::techniques::members::rest_poses(ctx.members)),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let clip_table = clip_buffer(device, "static clip table", ctx.clip_table);
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("static layout"),
            entries: &[storage_entry(0), storage_entry(2)],
        });
        let group = bind_group(
            device,
            "static bind group",
            &layout,
            &[
                (0, pose.as_entire_binding()),
                (2, clip_table.as_entire_binding()),
            ],
        );
        let (crowd, pipelines) = ctx.crowd_pipeline("static", TechniqueKind::Static.crowd_module(), &layout);
        Self {
            pose,
            clip_table,
            layout,
            group,
            pipelines,
            crowd,
        }
    }
}

impl Technique for StaticTechnique {
    fn build(ctx: &BuildContext<'_>) -> Result<Self, RenderError> {
        Ok(Self::new(ctx))
    }

    fn kind(&self) -> TechniqueKind {
        TechniqueKind::Static
    }

    fn prepare(&mut self, ctx: &FrameContext<'_>) -> Prepared {
        self.crowd.prepare_gpu_only(ctx)
    }

    fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        model: &ModelGpu,
        draw: &CrowdDraw<'_>,
        which: CrowdPass,
    ) {
        draw_crowd(pass, self.pipelines.get(which), &self.group, &self.crowd, model, draw);
    }

    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> {
        Some((&self.layout, &self.group))
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.pose.size() + self.clip_table.size()
    }
}
