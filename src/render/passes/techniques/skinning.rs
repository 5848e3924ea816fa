//! Live bone-matrix GPU skinning, the classic route and the baseline VAT is
//! measured against. Every frame the CPU samples each instance's clip at that
//! instance's own time on every core and uploads all palettes in one write
//! ([`PaletteSampler`]); the vertex shader blends four joints
//! (`shaders/palette.wgsl`), in every pass that draws the instance. One draw.

use crate::render::passes::techniques::palettes::PaletteSampler;
use crate::render::passes::techniques::{BuildContext, CrowdGroup, FrameContext, Prepared, Technique, TechniqueKind, draw_crowd};
use crate::render::passes::techniques::{CrowdDraw, CrowdPass, CrowdPipelines};
use crate::render::config::RenderError;
use crate::render::data::model_gpu::ModelGpu;
use crate::render::util::pipeline::{bind_group, storage_entry, uniform_entry};
use crate::render::data::skin_data::SkinData;

/// Where the previous frame's palettes (or CPU vertices) are bound in
/// group 1 (`previous_palettes`, `previous_cpu_positions`).
pub const PREVIOUS_BINDING: u32 = 12;

/// Writes how many instances have a previous pose into a skin info
/// uniform (`SkinInfo::previous`).
pub fn write_previous_count(queue: &wgpu::Queue, info: &wgpu::Buffer, count: u32) {
    queue.write_buffer(info, 8, bytemuck::bytes_of(&count));
}

pub struct SkinningTechnique {
    palettes: PaletteSampler,
    skin: SkinData,
    clip_table: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    /// One group per palette buffer parity (this frame's palettes at 0,
    /// the previous frame's at 12).
    groups: [Option<wgpu::BindGroup>; 2],
    pipelines: CrowdPipelines,
    crowd: CrowdGroup,
    /// The most instances whose palettes fit one storage binding.
    cap: u32,
}

/// The skinning techniques' group 1: storage at 0, skin data at 1, clip
/// table at 2, and (when `info`) the skin info uniform at 3 and the
/// previous frame's storage (palettes or vertices) at 12.
pub fn skin_layout(
    device: &wgpu::Device,
    label: &'static str,
    first: wgpu::BindGroupLayoutEntry,
    info: bool,
) -> wgpu::BindGroupLayout {
    let mut entries = vec![first, storage_entry(1), storage_entry(2)];
    if info {
        entries.push(uniform_entry(3));
        entries.push(storage_entry(PREVIOUS_BINDING));
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
            skin: SkinData::new(device, ctx.members, "skinning skin data"),
            clip_table: ctx.clip_buffer.clone(),
            layout,
            groups: [None, None],
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
        // Each model's share of the cap, as the frame's table says.
        let count = crate::crowd::scene::CrowdModelGpu::drawn_total(ctx.models).min(self.cap / PaletteSampler::per_instance(ctx));
        let (bytes, replaced) = self.palettes.update(ctx, count);
        if replaced {
            self.groups = [None, None];
        }
        let (Some(buffer), Some(previous)) = (self.palettes.buffer(), self.palettes.previous_buffer())
        else {
            return Prepared::default();
        };
        write_previous_count(ctx.queue, &self.skin.info, self.palettes.previous_count());
        let group = &mut self.groups[self.palettes.parity()];
        if group.is_none() {
            *group = Some(bind_group(
                ctx.device,
                "skinning bind group",
                &self.layout,
                &[
                    (0, buffer.as_entire_binding()),
                    (1, self.skin.vertices.as_entire_binding()),
                    (2, self.clip_table.as_entire_binding()),
                    (3, self.skin.info.as_entire_binding()),
                    (PREVIOUS_BINDING, previous.as_entire_binding()),
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
        if let Some(group) = &self.groups[self.palettes.parity()] {
            draw_crowd(pass, self.pipelines.get(which), group, &self.crowd, model, draw);
        }
    }

    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> {
        self.groups[self.palettes.parity()]
            .as_ref()
            .map(|g| (&self.layout, g))
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.palettes.gpu_bytes() + self.skin.bytes
    }

    fn cap(&self) -> Option<u32> {
        Some(self.cap)
    }

    fn instance_cap(&mut self, blend: bool, _: &[crate::crowd::scene::CrowdModelGpu]) -> Option<u32> {
        Some(self.cap / if blend { 2 } else { 1 })
    }

    fn ignores_morphs(&self) -> bool {
        true
    }
}
