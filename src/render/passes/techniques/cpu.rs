//! CPU skinning, what per-object skinned meshes do: every frame the CPU
//! skins every vertex of every drawn instance (morph targets included, on
//! every core) and uploads the positions and normals; the vertex shader only
//! reads them. The instance count is capped, and the cap is reported.
//! The positions alternate between two buffers, so the previous frame's
//! are still there for the velocity target (`previous_cpu_positions`).

use crate::render::data::model_gpu::ModelGpu;
use crate::render::passes::techniques::{CrowdDraw, CrowdPass, CrowdPipelines};
use crate::render::passes::techniques::skinning::{PREVIOUS_BINDING, skin_layout, write_previous_count};
use crate::render::config::RenderError;
use crate::render::passes::techniques::{BuildContext, CrowdGroup, FrameContext, Prepared, Technique, TechniqueKind, clip_buffer, draw_crowd};
use crate::render::util::grow::grow_buffer;
use crate::render::util::pipeline::{bind_group, storage_entry};
use crate::Model;
use crate::crowd::CrowdMirror;
use crate::crowd::anim::instance_anim;
use crate::pose_batch::PoseBatch;
use crate::vat::VatClip;
use glam::Vec3;
use std::sync::Arc;

/// The most instances the CPU skins per frame.
pub const MAX_CPU_INSTANCES: u32 = 2_000;
/// The most bytes of skinned vertices (positions + normals) per frame.
pub const MAX_CPU_BYTES: u64 = 256 << 20;

/// The instance cap for a mesh of `vertices` vertices: the lowest of
/// [`MAX_CPU_INSTANCES`], the byte budget and one storage binding per stream.
pub fn cpu_cap(vertices: usize, max_binding: u64) -> u32 {
    let per_stream = vertices.max(1) as u64 * 12;
    let by_budget = MAX_CPU_BYTES / (2 * per_stream);
    let by_binding = max_binding / per_stream;
    (MAX_CPU_INSTANCES as u64)
        .min(by_budget)
        .min(by_binding)
        .max(1) as u32
}

pub struct CpuSkinningTechnique {
    model: Arc<Model>,
    clips: Vec<VatClip>,
    batch: PoseBatch,
    mirror: CrowdMirror,
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    /// This frame's positions go to `positions_gpu[current]` (the other
    /// holds the previous frame's, for `holds[1 - current]` instances).
    positions_gpu: [Option<wgpu::Buffer>; 2],
    normals_gpu: Option<wgpu::Buffer>,
    current: usize,
    holds: [u32; 2],
    info: wgpu::Buffer,
    clip_table: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    /// One group per parity of `current`.
    groups: [Option<wgpu::BindGroup>; 2],
    pipelines: CrowdPipelines,
    crowd: CrowdGroup,
    cap: u32,
    max_binding: u64,
}

impl CpuSkinningTechnique {
    fn new(ctx: &BuildContext<'_>) -> Self {
        let device = ctx.device;
        let max_binding = ctx.caps.max_storage_buffer_binding_size;
        let layout = skin_layout(device, "cpu skinning layout", storage_entry(0), true);
        let (crowd, pipelines) = ctx.crowd_pipeline("cpu skinning", TechniqueKind::Cpu.crowd_module(), &layout);
        Self {
            model: ctx.model.clone(),
            clips: ctx.vat.clips.clone(),
            batch: PoseBatch::new(ctx.model),
            mirror: CrowdMirror::default(),
            positions: Vec::new(),
            normals: Vec::new(),
            positions_gpu: [None, None],
            normals_gpu: None,
            current: 0,
            holds: [0; 2],
            info: crate::render::data::skin_data::info_buffer(device, ctx.members),
            clip_table: clip_buffer(device, "cpu skinning clip table", ctx.clip_table),
            layout,
            groups: [None, None],
            pipelines,
            crowd,
            cap: cpu_cap(ctx.model.vertex_count(), max_binding),
            max_binding,
        }
    }
}

impl Technique for CpuSkinningTechnique {
    fn build(ctx: &BuildContext<'_>) -> Result<Self, RenderError> {
        if ctx.members.len() > 1 {
            return Err(RenderError::Scene(format!(
                "{}: {}",
                TechniqueKind::Cpu.label(),
                crate::render::data::models::SCENE_TECHNIQUES
            )));
        }
        Ok(Self::new(ctx))
    }

    fn kind(&self) -> TechniqueKind {
        TechniqueKind::Cpu
    }

    fn prepare(&mut self, ctx: &FrameContext<'_>) -> Prepared {
        self.crowd.update(ctx);
        let count = ctx.crowd.count().min(self.cap);
        let n = self.model.vertex_count();
        let needed = count as usize * n;
        if self.positions.len() < needed {
            let grown = needed
                .max(self.positions.len() * 2)
                .min(self.cap as usize * n);
            self.positions.resize(grown, Vec3::ZERO);
            self.normals.resize(grown, Vec3::ZERO);
        }
        let instances = self.mirror.get(ctx.crowd.seed(), count);
        let (model, clips, frame) = (&*self.model, &self.clips[..], ctx.frame);
        // With behaviour on, the herd's schedule on the CPU: both clips
        // skinned and blended. Birds play the flap only (the flap weight
        // lives on the GPU; the panel says so).
        let view = ctx.behaviour.view();
        self.batch.skin_blend(
            model,
            count as usize,
            |i| {
                let a = instance_anim(&instances[i], i as u32, frame, clips, view);
                (a.previous, a.current, a.weight)
            },
            &mut self.positions,
            &mut self.normals,
        );
        let bytes = needed as u64 * 12;
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let limit = self.max_binding;
        self.current = 1 - self.current;
        let make = |current: Option<&wgpu::Buffer>, label| {
            grow_buffer(ctx.device, current, label, bytes.max(16), limit, usage)
        };
        for i in [self.current, 1 - self.current] {
            if let Some(p) = make(self.positions_gpu[i].as_ref(), "cpu skinned positions") {
                self.positions_gpu[i] = Some(p);
                self.holds[i] = 0;
                self.groups = [None, None];
            }
        }
        if let Some(n) = make(self.normals_gpu.as_ref(), "cpu skinned normals") {
            self.normals_gpu = Some(n);
            self.groups = [None, None];
        }
        let (Some(pos_buf), Some(previous), Some(nrm_buf)) = (
            &self.positions_gpu[self.current],
            &self.positions_gpu[1 - self.current],
            &self.normals_gpu,
        ) else {
            return Prepared::default();
        };
        let group = &mut self.groups[self.current];
        if group.is_none() {
            *group = Some(bind_group(
                ctx.device,
                "cpu skinning bind group",
                &self.layout,
                &[
                    (0, pos_buf.as_entire_binding()),
                    (1, nrm_buf.as_entire_binding()),
                    (2, self.clip_table.as_entire_binding()),
                    (3, self.info.as_entire_binding()),
                    (PREVIOUS_BINDING, previous.as_entire_binding()),
                ],
            ));
        }
        ctx.queue
            .write_buffer(pos_buf, 0, bytemuck::cast_slice(&self.positions[..needed]));
        ctx.queue
            .write_buffer(nrm_buf, 0, bytemuck::cast_slice(&self.normals[..needed]));
        self.holds[self.current] = count;
        write_previous_count(ctx.queue, &self.info, self.holds[1 - self.current].min(count));
        Prepared {
            drawn: count,
            upload_bytes: 2 * bytes,
        }
    }

    fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        model: &ModelGpu,
        draw: &CrowdDraw<'_>,
        which: CrowdPass,
    ) {
        if let Some(group) = &self.groups[self.current] {
            draw_crowd(pass, self.pipelines.get(which), group, &self.crowd, model, draw);
        }
    }

    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> {
        self.groups[self.current].as_ref().map(|g| (&self.layout, g))
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.positions_gpu
            .iter()
            .chain([&self.normals_gpu])
            .flatten()
            .map(|b| b.size())
            .sum::<u64>()
            + self.info.size()
            + self.clip_table.size()
    }

    fn cap(&self) -> Option<u32> {
        Some(self.cap)
    }
}
