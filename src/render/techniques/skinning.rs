//! Live bone-matrix GPU skinning, the classic route and the baseline VAT is
//! measured against. Every frame the CPU samples each instance's clip at that
//! instance's own time on every core and uploads all palettes in one write
//! ([`PaletteSampler`]); the vertex shader blends four joints
//! (`shaders/palette.wgsl`), in every pass that draws the instance. One draw.

use super::palettes::PaletteSampler;
use super::{BuildContext, CrowdGroup, FrameContext, Prepared, Technique, TechniqueKind, clip_buffer, draw_crowd};
use super::{CrowdDraw, CrowdPass, CrowdPipelines};
use crate::render::RenderError;
use crate::render::model_gpu::ModelGpu;
use crate::render::pipeline::{bind_group, storage_entry, uniform_entry};
use crate::render::skin_data::SkinData;

pub struct SkinningTechnique {
    palettes: PaletteSampler,
    skin: SkinData,
    clip_table: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    group: Option<wgpu::BindGroup>,
    pipelines: CrowdPipelines,
    crowd: CrowdGroup,
    /// The most instances whose palettes fit one storage binding.
    cap: u32,
}

/// The skinning techniques' group 1: storage at 0, skin data at 1, clip
/// table at 2, and (when `info`) the skin info uniform at 3.
pub fn skin_layout(
    device: &wgpu::Device,
    label: &'static str,
    first: wgpu::BindGroupLayoutEntry,
    info: bool,
) -> wgpu::BindGroupLayout {
    let mut entries = vec![first, storage_entry(1), storage_entry(2)];
    if info {
        entries.push(uniform_entry(3));
    }
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

impl SkinningTechnique {
    fn new(ctx: &BuildContext<'_>) -> Self {
        let device = ctx.device;
        let palettes = PaletteSampler::new(ctx, "skinning palettes");
        let layout = skin_layout(device, "skinning layout", storage_entry(0), true);
        let (crowd, pipelines) = ctx.crowd_pipeline("skinning", TechniqueKind::Skinning.crowd_module(), &layout);
        Self {
            cap: palettes.max_palettes(),
            palettes,
            skin: SkinData::new(device, ctx.model, "skinning skin data"),
            clip_table: clip_buffer(device, "skinning clip table", ctx.clip_table),
            layout,
            group: None,
            pipelines,
            crowd,
        }
    }
}

impl Technique for SkinningTechnique {
    fn build(ctx: &BuildContext<'_>) -> Result<Self, RenderError> {
        Ok(Self::new(ctx))
    }

    fn kind(&self) -> TechniqueKind {
        TechniqueKind::Skinning
    }

    fn prepare(&mut self, ctx: &FrameContext<'_>) -> Prepared {
        self.crowd.update(ctx);
        let count = ctx
            .crowd
            .count()
            .min(self.cap / PaletteSampler::per_instance(ctx));
        let (bytes, replaced) = self.palettes.update(ctx, count);
        if replaced {
            self.group = None;
        }
        let Some(buffer) = self.palettes.buffer() else {
            return Prepared::default();
        };
        if self.group.is_none() {
            self.group = Some(bind_group(
                ctx.device,
                "skinning bind group",
                &self.layout,
                &[
                    (0, buffer.as_entire_binding()),
                    (1, self.skin.vertices.as_entire_binding()),
                    (2, self.clip_table.as_entire_binding()),
                    (3, self.skin.info.as_entire_binding()),
                ],
            ));
        }
        Prepared {
            drawn: count,
            upload_bytes: bytes,
        }
    }

    fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        model: &ModelGpu,
        draw: &CrowdDraw<'_>,
        which: CrowdPass,
    ) {
        if let Some(group) = &self.group {
            draw_crowd(pass, self.pipelines.get(which), group, &self.crowd, model, draw);
        }
    }

    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> {
        self.group.as_ref().map(|g| (&self.layout, g))
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.palettes.gpu_bytes() + self.skin.bytes + self.clip_table.size()
    }

    fn cap(&self) -> Option<u32> {
        Some(self.cap)
    }

    fn ignores_morphs(&self) -> bool {
        true
    }
}
