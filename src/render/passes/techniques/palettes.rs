//! Every drawn instance's joint palettes, sampled on the CPU each frame:
//! the per-instance CPU work of live skinning, shared with compute
//! skinning. Each instance's clip and time come from the VAT's clip table
//! and the behaviour's CPU mirror ([`instance_anim`]); the palettes are
//! sampled on every core into one reused Vec and uploaded with ONE
//! `write_buffer` (`shaders/palette.wgsl` reads them).
//!
//! With behaviour on, every instance gets TWO palettes (the previous clip's
//! and the current one's, from the herd's schedule mirrored on the CPU, or
//! glide and flap for birds) and the shader blends them with the weight
//! `anim_state` computes on the GPU: the honest CPU cost of a crossfade.
//!
//! The palettes alternate between two buffers, so the previous frame's are
//! still there for the velocity target's previous pose
//! (`previous_palette_vertex`), with no extra upload.

use crate::Model;
use crate::bones::JointRows;
use crate::crowd::CrowdMirror;
use crate::crowd::anim::{AnimClips, BehaviourView, instance_anim};
use crate::pose_batch::PoseBatch;
use crate::render::data::gpu_data::JOINT_ROWS_BYTES;
use crate::render::passes::techniques::members::{Member, palette_stride};
use crate::render::passes::techniques::{BuildContext, FrameContext};
use crate::render::util::grow::grow_buffer;
use crate::vat::VatClip;
use rayon::prelude::*;
use std::sync::Arc;

/// One model's share of the sampling.
struct MemberSampler {
    model: Arc<Model>,
    clips: Vec<VatClip>,
    batch: PoseBatch,
    mirror: CrowdMirror,
}

pub struct PaletteSampler {
    /// Each model drawn (one, or a scene's), with its own pose workers and
    /// its instances' CPU mirror.
    members: Vec<MemberSampler>,
    /// Joints per palette in the buffer: the largest model's.
    stride: usize,
    /// Every drawn instance's palette, kept between frames (no allocation
    /// per frame once it has grown).
    palettes: Vec<JointRows>,
    /// Every drawn instance's clips this frame (reused like `palettes`).
    anims: Vec<AnimClips>,
    /// This frame's palettes go to `buffers[current]`; the other holds the
    /// previous frame's.
    buffers: [Option<wgpu::Buffer>; 2],
    current: usize,
    /// What each buffer holds: (instances, two palettes each, where each
    /// model's slots start: [`slots_key`]).
    holds: [Option<(u32, bool, u64)>; 2],
    label: &'static str,
    max_binding: u64,
}

/// Where each model's slots start (its `slot_shift`), as one number: a
/// slot holds the same instance in two frames of the same key (below both
/// frames' counts).
fn slots_key(models: &[crate::crowd::scene::CrowdModelGpu]) -> u64 {
    models.iter().fold(0xcbf2_9ce4_8422_2325, |h, e| {
        (h ^ e.slot_shift as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

impl PaletteSampler {
    /// A sampler whose buffer is labelled `label`.
    pub fn new(ctx: &BuildContext<'_>, label: &'static str) -> Self {
        Self {
            members: ctx
                .members
                .iter()
                .map(|m: &Member| MemberSampler {
                    model: m.model.clone(),
                    clips: m.clips.clone(),
                    batch: PoseBatch::new(&m.model),
                    mirror: CrowdMirror::default(),
                })
                .collect(),
            stride: palette_stride(ctx.members),
            palettes: Vec::new(),
            anims: Vec::new(),
            buffers: [None, None],
            current: 0,
            holds: [None, None],
            label,
            max_binding: ctx.caps.max_storage_buffer_binding_size,
        }
    }

    /// Joints per palette (the largest model's; 1 for models with none:
    /// their identity).
    pub fn joints(&self) -> usize {
        self.stride
    }

    /// The most palettes one storage binding holds.
    pub fn max_palettes(&self) -> u32 {
        (self.max_binding / (self.joints() as u64 * JOINT_ROWS_BYTES)).min(u32::MAX as u64) as u32
    }

    /// Palettes per instance this frame: two with behaviour on (a
    /// crossfade), else one.
    pub fn per_instance(ctx: &FrameContext<'_>) -> u32 {
        if ctx.frame.behaviour != 0 { 2 } else { 1 }
    }

    /// The buffer this frame's palettes are uploaded to (`None` before the
    /// first frame).
    pub fn buffer(&self) -> Option<&wgpu::Buffer> {
        self.buffers[self.current].as_ref()
    }

    /// Which buffer is this frame's (0 or 1; a bind group per value).
    pub fn parity(&self) -> usize {
        self.current
    }

    /// The buffer holding the previous frame's palettes (this frame's when
    /// there is none yet: nothing reads it then).
    pub fn previous_buffer(&self) -> Option<&wgpu::Buffer> {
        self.buffers[1 - self.current].as_ref().or(self.buffer())
    }

    /// Instances whose previous palettes the previous buffer holds, laid
    /// out as this frame's (none when the layout changed).
    pub fn previous_count(&self) -> u32 {
        match (self.holds[1 - self.current], self.holds[self.current]) {
            (Some((before, b, k)), Some((now, n, l))) if b == n && k == l => before.min(now),
            _ => 0,
        }
    }

    /// Bytes of the buffers.
    pub fn gpu_bytes(&self) -> u64 {
        self.buffers.iter().flatten().map(|b| b.size()).sum()
    }

    /// Sizes the buffer for instances `0..count` without sampling them
    /// (the GPU makes them: compute skinning from the bone texture); true
    /// when it was replaced.
    pub fn reserve(&mut self, ctx: &FrameContext<'_>, count: u32) -> bool {
        let joints = count as u64 * Self::per_instance(ctx) as u64 * self.joints() as u64;
        self.holds[self.current] = None;
        self.grow(ctx.device, joints * JOINT_ROWS_BYTES)
    }

    /// Grows this frame's buffer to hold `bytes`; true when it was
    /// replaced.
    fn grow(&mut self, device: &wgpu::Device, bytes: u64) -> bool {
        let grown = grow_buffer(
            device,
            self.buffers[self.current].as_ref(),
            self.label,
            bytes.max(JOINT_ROWS_BYTES),
            self.max_binding,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        );
        let replaced = grown.is_some();
        if grown.is_some() {
            self.buffers[self.current] = grown;
        }
        replaced
    }

    /// Samples and uploads the palettes of the `count` drawn instances
    /// (each model's share, in slot order: `CrowdModelGpu::slot_of`;
    /// already capped by the caller to [`Self::max_palettes`] /
    /// [`Self::per_instance`]) into the buffer the frame before did not
    /// use. Returns the bytes uploaded and whether a buffer was replaced
    /// (the caller rebuilds its bind groups).
    pub fn update(&mut self, ctx: &FrameContext<'_>, count: u32) -> (u64, bool) {
        self.current = 1 - self.current;
        let blend = ctx.frame.behaviour != 0;
        let per_instance = Self::per_instance(ctx);
        let joints = self.joints();
        let palettes = count as usize * per_instance as usize;
        let needed = palettes * joints;
        if self.palettes.len() < needed {
            // Geometric growth, so a rising count reallocates rarely.
            let grown = needed.max(self.palettes.len() * 2);
            self.palettes.resize(grown, [[0.0; 4]; 3]);
        }
        let view = ctx.behaviour.view();
        // The herd's weights are known here: an instance that is not
        // crossfading needs no previous palette (the shader gives it no
        // weight), so a strong baseline does not sample it. The flock's
        // weights live on the GPU, so birds always get both.
        let weight_known = matches!(view, BehaviourView::Herd { .. });
        let n = count as usize;
        if self.anims.len() < n {
            self.anims
                .resize(n.max(self.anims.len() * 2), AnimClips::default());
        }
        let stride = self.stride;
        for (m, member) in self.members.iter_mut().enumerate() {
            // Its drawn instances (its first ones: its share of a cap), in
            // their slots, as far as the drawn count goes.
            let Some(entry) = ctx.models.get(m) else {
                break;
            };
            let index = entry.first_instance as usize;
            let first = entry.first_slot() as usize;
            let own = (entry.drawn() as usize).min(n.saturating_sub(first));
            if own == 0 {
                continue;
            }
            let out = &mut self.palettes[first * per_instance as usize * stride..]
                [..own * per_instance as usize * stride];
            let model = &*member.model;
            if model.palette.is_empty() {
                // A model with no palette: identity for its one pseudo joint.
                for p in out.chunks_mut(stride) {
                    p[0] = [
                        [1.0, 0.0, 0.0, 0.0],
                        [0.0, 1.0, 0.0, 0.0],
                        [0.0, 0.0, 1.0, 0.0],
                    ];
                }
                continue;
            }
            let seed = crate::render::data::crowd_buffer::scene_seed(ctx.crowd.seed(), m);
            let instances = member.mirror.get(seed, own as u32);
            // The frame as its instances see it (its own clips from 0).
            let frame = entry.frame_for(ctx.frame);
            let clips = &member.clips[..];
            // Each instance's clips once (in parallel), then its palettes.
            let anims = &mut self.anims[first..first + own];
            anims.par_iter_mut().enumerate().for_each(|(i, a)| {
                *a = instance_anim(&instances[i], (index + i) as u32, &frame, clips, view)
            });
            let anims = &*anims;
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
            member
                .batch
                .palettes_strided(model, own * per_instance as usize, stride, at, out);
        }
        let bytes = needed as u64 * JOINT_ROWS_BYTES;
        // The first frame makes both (the previous one binds something).
        let first = self.buffers[1 - self.current].is_none();
        let replaced = self.grow(ctx.device, bytes) || first;
        if let Some(buffer) = &self.buffers[self.current] {
            // All palettes in one upload.
            ctx.queue
                .write_buffer(buffer, 0, bytemuck::cast_slice(&self.palettes[..needed]));
        }
        self.holds[self.current] = Some((count, blend, slots_key(ctx.models)));
        (bytes, replaced)
    }
}
