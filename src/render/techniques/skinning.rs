//! Live bone-matrix GPU skinning, the classic route and the baseline VAT is
//! measured against. Every frame the CPU samples each instance's clip at that
//! instance's own time (the VAT's clip and time, via
//! [`crowd::instance_pose`](super::crowd::instance_pose)) on every core,
//! writes all palettes into one reused Vec, uploads them with ONE
//! `write_buffer`, and the vertex shader blends four joints. One draw.
//!
//! With behaviour on, every instance gets TWO palettes (the previous clip's
//! and the current one's, from the herd's schedule mirrored on the CPU, or
//! glide and flap for birds) and the shader blends them with the weight
//! `anim_state` computes on the GPU: the honest CPU cost of a crossfade here.

use crate::render::gpu_data::JOINT_ROWS_BYTES;
use crate::render::model_gpu::ModelGpu;
use crate::render::skin_data::SkinData;
use crate::render::RenderError;
use super::{CrowdDraw, CrowdPass, CrowdPipelines};
use super::{BuildContext, CrowdGroup, FrameContext, Prepared, Technique, TechniqueKind, clip_buffer, draw_crowd, grow_buffer};
use crate::render::pipeline::{bind_group, storage_entry, uniform_entry};
use crate::Model;
use crate::bones::JointRows;
use crate::crowd::CrowdMirror;
use crate::crowd::anim::{AnimClips, BehaviourView, instance_anim};
use crate::pose_batch::PoseBatch;
use crate::vat::VatClip;
use rayon::prelude::*;
use std::sync::Arc;

pub struct SkinningTechnique {
    model: Arc<Model>,
    clips: Vec<VatClip>,
    batch: PoseBatch,
    mirror: CrowdMirror,
    /// Every drawn instance's palette, kept between frames (no allocation
    /// per frame once it has grown).
    palettes: Vec<JointRows>,
    /// Every drawn instance's clips this frame (reused like `palettes`).
    anims: Vec<AnimClips>,
    palette_buffer: Option<wgpu::Buffer>,
    skin: SkinData,
    clip_table: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    group: Option<wgpu::BindGroup>,
    pipelines: CrowdPipelines,
    crowd: CrowdGroup,
    /// The most instances whose palettes fit one storage binding.
    cap: u32,
    max_binding: u64,
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
        let joints = ctx.model.palette.len().max(1) as u64;
        let max_binding = ctx.caps.max_storage_buffer_binding_size;
        let cap = (max_binding / (joints * JOINT_ROWS_BYTES)).min(u32::MAX as u64) as u32;
        let layout = skin_layout(device, "skinning layout", storage_entry(0), true);
        let (crowd, pipelines) = ctx.crowd_pipeline("skinning", TechniqueKind::Skinning.crowd_module(), &layout);
        Self {
            model: ctx.model.clone(),
            clips: ctx.vat.clips.clone(),
            batch: PoseBatch::new(ctx.model),
            mirror: CrowdMirror::default(),
            palettes: Vec::new(),
            anims: Vec::new(),
            palette_buffer: None,
            skin: SkinData::new(device, ctx.model, "skinning skin data"),
            clip_table: clip_buffer(device, "skinning clip table", ctx.clip_table),
            layout,
            group: None,
            pipelines,
            crowd,
            cap,
            max_binding,
        }
    }

    fn joints(&self) -> usize {
        self.model.palette.len().max(1)
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
        let blend = ctx.frame.behaviour != 0;
        let per_instance = if blend { 2 } else { 1 };
        let count = ctx.crowd.count().min(self.cap / per_instance);
        let joints = self.joints();
        let palettes = count as usize * per_instance as usize;
        let needed = palettes * joints;
        if self.palettes.len() < needed {
            // Geometric growth, so a rising count reallocates rarely.
            let grown = needed.max(self.palettes.len() * 2);
            self.palettes.resize(grown, [[0.0; 4]; 3]);
        }
        let instances = self.mirror.get(ctx.crowd.seed(), count);
        let (model, clips, frame) = (&*self.model, &self.clips[..], ctx.frame);
        if model.palette.is_empty() {
            // A model with no palette: identity for its one pseudo joint.
            for p in &mut self.palettes[..needed] {
                *p = [
                    [1.0, 0.0, 0.0, 0.0],
                    [0.0, 1.0, 0.0, 0.0],
                    [0.0, 0.0, 1.0, 0.0],
                ];
            }
        } else {
            let view = ctx.behaviour.view();
            // The herd's weights are known here: an instance that is not
            // crossfading needs no previous palette (the shader gives it no
            // weight), so a strong baseline does not sample it. The flock's
            // weights live on the GPU, so birds always get both.
            let weight_known = matches!(view, BehaviourView::Herd { .. });
            // Each instance's clips once (in parallel), then its palettes.
            let n = count as usize;
            if self.anims.len() < n {
                self.anims
                    .resize(n.max(self.anims.len() * 2), AnimClips::default());
            }
            self.anims[..n]
                .par_iter_mut()
                .enumerate()
                .for_each(|(i, a)| *a = instance_anim(&instances[i], i as u32, frame, clips, view));
            let anims = &self.anims;
            // Palette 2i is instance i's previous clip, 2i + 1 its current.
            let at = |i: usize| {
                let (n, which) = if blend { (i / 2, i % 2) } else { (i, 1) };
                let a = anims[n];
                match which {
                    0 if weight_known && a.weight >= 1.0 => None,
                    0 => Some(a.previous),
                    _ => Some(a.current),
                }
            };
            self.batch.palettes(model, palettes, at, &mut self.palettes);
        }
        let bytes = needed as u64 * JOINT_ROWS_BYTES;
        if let Some(buffer) = grow_buffer(
            ctx.device,
            self.palette_buffer.as_ref(),
            "skinning palettes",
            bytes.max(JOINT_ROWS_BYTES),
            self.max_binding,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        ) {
            self.palette_buffer = Some(buffer);
            self.group = None;
        }
        let Some(buffer) = &self.palette_buffer else {
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
        // All palettes in one upload.
        ctx.queue
            .write_buffer(buffer, 0, bytemuck::cast_slice(&self.palettes[..needed]));
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
        self.palette_buffer.as_ref().map_or(0, |b| b.size())
            + self.skin.bytes
            + self.clip_table.size()
    }

    fn cap(&self) -> Option<u32> {
        Some(self.cap)
    }

    fn ignores_morphs(&self) -> bool {
        true
    }
}
