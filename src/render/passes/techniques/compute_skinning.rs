//! Compute skinning, what engines that skin ahead of time do: the CPU
//! samples every drawn instance's palette as live skinning does
//! ([`PaletteSampler`]); then, once the camera and every shadow cascade
//! are culled, ONE compute pass skins each instance that some view will
//! draw, once, at the levels the views draw it, into a buffer of skinned
//! vertices ([`SkinnedVertex`], 16 bytes); the scene and shadow passes read
//! it instead of posing again (`shaders/techniques/compute_skinning.wgsl`).
//!
//! The pass, per frame: mark (one dispatch per view: each listed instance
//! gets a bit per level it is drawn at, a slot when first seen, and a place
//! in that level's work list), weight (behaviour on: each marked instance's
//! crossfade weight from `anim_state`), args (each level's indirect
//! dispatch) and skin (one indirect dispatch per level: each work item's
//! vertices of that level, minus those a finer level it is drawn at
//! already skins). Memory: each skinned instance its model's vertices ×
//! 16 bytes, so the instance cap is what one storage binding holds of that
//! (`compute_skinning/cap.rs`). Its GPU objects are in
//! `compute_skinning/gpu.rs`.

mod cap;
mod gpu;
mod layout;
mod levels;
mod params;
mod source;

use crate::render::passes::techniques::palettes::PaletteSampler;
use crate::render::passes::techniques::skinning::write_previous_count;
use crate::render::passes::techniques::{
    BuildContext, CrowdDraw, CrowdGroup, CrowdPass, CrowdPipelines, CrowdViews, FrameContext,
    MAX_VIEWS, PassStats, Prepared, Technique, TechniqueKind, draw_crowd,
};
use crate::crowd::cull::INDEX_MASK;
use crate::crowd::scene::{CrowdModelGpu, MAX_SCENE_MODELS};
use crate::render::config::RenderError;
use crate::render::data::gpu_data::SkinParams;
use crate::render::util::mapped::MappedCopy;
use crate::render::data::model_gpu::ModelGpu;
use crate::render::data::skin_data::SkinData;
use crate::render::util::timing::GpuTimer;
use gpu::{Output, SkinPass, groups_for, no_bone_texture};
use params::PARAMS_STRIDE;

pub use cap::{compute_cap, scene_cap, state_cap, vertices_taken};
pub use layout::*;
pub use levels::{LevelSource, level_data};
pub use source::{CpuPalettes, PaletteSource};

/// Bytes written per frame besides the palettes: the state header and the
/// views' parameters.
const FRAME_BYTES: u64 = HEADER_BYTES + MAX_VIEWS as u64 * PARAMS_STRIDE;

/// Compute skinning from the CPU's palettes.
pub type ComputeSkinningTechnique = ComputeSkinning<CpuPalettes>;

pub struct ComputeSkinning<P> {
    source: P,
    palettes: PaletteSampler,
    skin: SkinData,
    clip_table: wgpu::Buffer,
    pass: SkinPass,
    output: Option<Output>,
    pipelines: CrowdPipelines,
    crowd: CrowdGroup,
    /// The crowd's model table for the marking and skinning (with the
    /// buffer it was made of).
    models: Option<(wgpu::Buffer, wgpu::BindGroup)>,
    timer: Option<GpuTimer>,
    /// Copies of the state header in turn (frame number each), so a frame
    /// finds one free while an earlier one is still being read.
    readbacks: [(MappedCopy, u64); 3],
    /// Frames recorded, and the newest one read back.
    frames: u64,
    latest: u64,
    stats: Option<PassStats>,
    /// The most instances the state and the palettes hold, and the cap of
    /// this frame's table (what the vertices hold of it, at most that; set
    /// by `instance_cap`).
    hard: u32,
    cap: u32,
    limit: u64,
    /// Each model's vertices (what one of its instances takes).
    model_vertices: Vec<u32>,
    /// Each model's first level among the pass's (its level 0's region).
    model_levels: Vec<u32>,
    /// Instances drawn this frame, and whether their palettes come in pairs.
    drawn: u32,
    blend: bool,
    /// The frame's skinning steps recorded so far (`before_passes`): the
    /// step's bank of view parameters.
    step: usize,
    /// Bound as the bone texture where the source has none.
    no_bones: wgpu::TextureView,
}

impl<P: PaletteSource> ComputeSkinning<P> {
    fn new(ctx: &BuildContext<'_>) -> Result<Self, RenderError> {
        let device = ctx.device;
        let palettes = PaletteSampler::new(ctx, "compute skinning palettes");
        let layout = gpu::Layouts::new(device);
        let (crowd, pipelines) =
            ctx.crowd_pipeline(P::KIND.name(), P::KIND.crowd_module(), &layout.draw);
        let source = P::new(ctx, crowd.layout())?;
        let pass = SkinPass::new(ctx, P::KIND, layout, crowd.layout());
        let model_vertices: Vec<u32> = ctx
            .members
            .iter()
            .map(|m| m.model.vertex_count() as u32)
            .collect();
        let model_levels: Vec<u32> = ctx
            .members
            .iter()
            .scan(0, |first, m| {
                let at = *first;
                *first += m.lod.levels.len() as u32;
                Some(at)
            })
            .collect();
        let regions: usize = ctx.members.iter().map(|m| m.lod.levels.len()).sum();
        if regions > MAX_SKIN_LEVELS {
            return Err(RenderError::Scene(format!(
                "{}: the scene's models have {regions} mesh levels together, more than the {MAX_SKIN_LEVELS} the skin pass tells apart",
                P::KIND.label()
            )));
        }
        let limit = ctx
            .caps
            .max_storage_buffer_binding_size
            .min(ctx.caps.max_buffer_size);
        let hard = state_cap(pass.level_lengths.len(), limit).min(palettes.max_palettes());
        // Until a frame's table says otherwise: every slot the largest
        // model's.
        let largest = model_vertices.iter().copied().max().unwrap_or(1);
        let cap = hard.min(compute_cap(largest as usize, 1, limit));
        Ok(Self {
            source,
            palettes,
            skin: SkinData::new(device, ctx.members, "compute skinning skin data"),
            clip_table: ctx.clip_buffer.clone(),
            pass,
            output: None,
            pipelines,
            crowd,
            models: None,
            timer: GpuTimer::new(device, ctx.caps),
            readbacks: std::array::from_fn(|_| {
                (
                    MappedCopy::new(device, "compute skinning readback", HEADER_BYTES),
                    0,
                )
            }),
            frames: 0,
            latest: 0,
            stats: None,
            hard,
            cap,
            limit,
            model_vertices,
            model_levels,
            drawn: 0,
            blend: false,
            step: 0,
            no_bones: no_bone_texture(device),
        })
    }

    /// The buffers for `count` instances taking `vertices` skinned
    /// vertices (each grown geometrically, up to what a binding holds), and
    /// their groups; the skinning group once the palettes exist.
    fn ensure_output(
        &mut self,
        device: &wgpu::Device,
        count: u32,
        vertices: u64,
        palettes_replaced: bool,
    ) {
        if self
            .output
            .as_ref()
            .is_none_or(|o| o.capacity < count || o.vertex_capacity < vertices)
        {
            let capacity = count.max(64).next_power_of_two().min(self.hard).max(count);
            let most = self.limit / SKINNED_VERTEX_BYTES;
            let vertex_capacity = vertices.max(1 << 14).next_power_of_two().min(most).max(vertices);
            self.output = Some(self.pass.output(
                device,
                capacity,
                vertex_capacity,
                self.limit,
                &self.clip_table,
            ));
        }
        let (Some(out), Some(palettes), Some(previous)) = (
            self.output.as_mut(),
            self.palettes.buffer(),
            self.palettes.previous_buffer(),
        ) else {
            return;
        };
        if palettes_replaced {
            out.skin = [None, None];
            out.draw = [None, None];
        }
        let parity = self.palettes.parity();
        if out.skin[parity].is_none() {
            let skin = [&self.skin.vertices, &self.skin.info];
            out.skin[parity] = Some(self.pass.skin_group(device, out, palettes, skin));
            let (clips, bones) = self
                .source
                .previous_pose_source()
                .unwrap_or((&self.clip_table, &self.no_bones));
            let buffers = [clips, &self.skin.vertices, &self.skin.info];
            out.draw[parity] = Some(self.pass.draw_group(device, out, (previous, bones), buffers));
            self.source.bind(device, &out.state, palettes);
        }
    }

    /// The cap for `table`'s counts (`blend`: palettes in crossfading
    /// pairs): what the state and the palettes hold, and of that what the
    /// skinned vertices hold, each instance its model's.
    fn table_cap(&self, blend: bool, table: &[CrowdModelGpu]) -> u32 {
        let hard = self.hard.min(self.palettes.max_palettes() / if blend { 2 } else { 1 });
        let most = self.limit / SKINNED_VERTEX_BYTES;
        scene_cap(table, &self.model_vertices, hard, most)
    }

    /// The last reading of the state header, as stats.
    fn read_stats(&self, words: &[u32]) -> PassStats {
        let vertices = self
            .pass
            .level_lengths
            .iter()
            .zip(words)
            .map(|(&len, &n)| len as u64 * n as u64)
            .sum();
        PassStats {
            name: "skin pass",
            instances: words.get(STATE_SLOTS as usize).copied().unwrap_or(0),
            vertices,
            gpu_ms: self.timer.as_ref().and_then(|t| t.last_ms),
        }
    }
}

impl<P: PaletteSource> Technique for ComputeSkinning<P> {
    fn build(ctx: &BuildContext<'_>) -> Result<Self, RenderError> {
        Self::new(ctx)
    }

    fn kind(&self) -> TechniqueKind {
        P::KIND
    }

    fn prepare(&mut self, ctx: &FrameContext<'_>) -> Prepared {
        self.crowd.update(ctx);
        if self.models.as_ref().is_none_or(|(b, _)| *b != ctx.crowd.models) {
            let group = self.pass.models_group(ctx.device, &ctx.crowd.models);
            self.models = Some((ctx.crowd.models.clone(), group));
        }
        let per_instance = PaletteSampler::per_instance(ctx);
        // Each model's share of the cap (`instance_cap`), as the frame's
        // table says.
        let count = CrowdModelGpu::drawn_total(ctx.models)
            .min(self.cap)
            .min(self.palettes.max_palettes() / per_instance);
        let (bytes, replaced) = self.source.fill(&mut self.palettes, ctx, count);
        let vertices = vertices_taken(ctx.models, &self.model_vertices);
        self.ensure_output(ctx.device, count, vertices, replaced);
        write_previous_count(ctx.queue, &self.skin.info, self.palettes.previous_count());
        self.drawn = count;
        self.blend = per_instance == 2;
        self.step = 0;
        Prepared {
            drawn: count,
            upload_bytes: bytes + FRAME_BYTES,
        }
    }

    fn before_passes(
        &mut self,
        ctx: &FrameContext<'_>,
        encoder: &mut wgpu::CommandEncoder,
        frame_group: &wgpu::BindGroup,
        views: &CrowdViews<'_>,
    ) {
        if views.is_empty() || self.drawn == 0 {
            return;
        }
        // This step's bank of view slots (occlusion culling's late step
        // has its own: the queue writes both before either step runs).
        let first_slot = params::first_slot(self.step);
        self.step += 1;
        // The views' parameters and list groups.
        let mut slots = [SkinParams::default(); MAX_VIEWS];
        let mut dispatches = [(0u32, 0u32); MAX_VIEWS];
        let mut levels = 1u32;
        for (i, view) in views.iter().enumerate().take(MAX_VIEWS) {
            match *view {
                CrowdDraw::Direct { count, .. } => {
                    slots[i].direct = 1;
                    dispatches[i] = (groups_for(count), 1);
                    // Each model's instances are skinned at its own level
                    // 0: the last model's is the last level dispatched.
                    let last = self.model_levels.last().copied().unwrap_or(0);
                    levels = levels.max(last + 1);
                }
                CrowdDraw::Indirect {
                    args,
                    levels: l,
                    visible,
                    region,
                    ..
                } => {
                    let l = l.min(MAX_SKIN_LEVELS as u32);
                    slots[i] = SkinParams {
                        region,
                        levels: l,
                        index_mask: INDEX_MASK,
                        ..SkinParams::default()
                    };
                    dispatches[i] = (groups_for(region), l);
                    levels = levels.max(l);
                    self.pass
                        .bind_list(ctx.device, first_slot + i, visible, args);
                }
                // Never a view of the frame (the exact visibility count's
                // draws come after it).
                CrowdDraw::Single { .. } => {}
            }
        }
        let (Some(out), Some(crowd_group), Some((_, models_group))) =
            (&self.output, self.crowd.get(), &self.models)
        else {
            return;
        };
        let Some(skin_group) = &out.skin[self.palettes.parity()] else {
            return;
        };
        let mut header = [0u32; STATE_HEADER as usize];
        header[STATE_COUNT as usize] = self.drawn;
        header[STATE_CAPACITY as usize] = out.capacity;
        header[STATE_BLEND as usize] = self.blend as u32;
        for (m, &v) in self.model_vertices.iter().enumerate().take(MAX_SCENE_MODELS) {
            header[STATE_MODEL_VERTICES as usize + m] = v;
            header[STATE_MODEL_LEVEL as usize + m] = self.model_levels[m];
        }
        ctx.queue
            .write_buffer(&out.state, 0, bytemuck::cast_slice(&header));
        let bank_at = params::write_views(ctx.queue, &self.pass.params, first_slot, &slots);
        // The instances' level bits start cleared.
        encoder.clear_buffer(&out.state, HEADER_BYTES, Some(out.capacity as u64 * 4));
        let timestamp_writes = self.timer.as_ref().and_then(|t| t.compute_writes());
        let timed = timestamp_writes.is_some();
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("skin pass"),
                timestamp_writes,
            });
            pass.set_pipeline(&self.pass.pipelines.mark);
            pass.set_bind_group(1, &out.mark, &[]);
            pass.set_bind_group(2, models_group, &[]);
            for (i, view) in views.iter().enumerate().take(MAX_VIEWS) {
                let group = match view {
                    CrowdDraw::Indirect { .. } => self.pass.list(first_slot + i),
                    CrowdDraw::Direct { .. } => Some(&self.pass.no_list),
                    CrowdDraw::Single { .. } => None,
                };
                let Some(group) = group else {
                    continue;
                };
                let offset = bank_at + i as u64 * PARAMS_STRIDE;
                pass.set_bind_group(3, group, &[offset as u32]);
                pass.dispatch_workgroups(dispatches[i].0, dispatches[i].1, 1);
            }
            if self.blend {
                pass.set_pipeline(&self.pass.pipelines.weight);
                pass.set_bind_group(0, frame_group, &[]);
                pass.set_bind_group(1, &out.weight, &[]);
                pass.set_bind_group(2, crowd_group, &[]);
                pass.dispatch_workgroups(groups_for(self.drawn), 1, 1);
            }
            let joints = self.palettes.joints() as u32;
            self.source
                .dispatch(&mut pass, [frame_group, crowd_group], self.drawn, joints);
            pass.set_pipeline(&self.pass.pipelines.args);
            pass.set_bind_group(1, &out.args, &[]);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&self.pass.pipelines.skin);
            pass.set_bind_group(1, skin_group, &[]);
            pass.set_bind_group(2, models_group, &[]);
            let levels = levels.min(self.pass.level_lengths.len() as u32);
            for l in 0..levels {
                pass.set_bind_group(3, &self.pass.no_list, &[params::level_offset(l)]);
                pass.dispatch_workgroups_indirect(&out.dispatch, l as u64 * 12);
            }
        }
        if timed && let Some(t) = &self.timer {
            t.resolve(encoder);
        }
        self.frames += 1;
        if let Some((copy, frame)) = self.readbacks.iter_mut().find(|(c, _)| c.is_idle()) {
            copy.record(encoder, &out.state, HEADER_BYTES);
            *frame = self.frames;
        }
    }

    fn after_submit(&mut self, device: &wgpu::Device, wait: bool) {
        for (copy, _) in &self.readbacks {
            copy.start_map();
        }
        // The timer starts its own map and polls once.
        if let Some(t) = &mut self.timer {
            t.after_submit(device);
        }
        let poll = if wait {
            wgpu::PollType::wait_indefinitely()
        } else {
            wgpu::PollType::Poll
        };
        let _ = device.poll(poll);
        if wait && let Some(t) = &mut self.timer {
            t.after_submit(device);
        }
        let mut newest: Option<(u64, [u32; STATE_HEADER as usize])> = None;
        for (copy, frame) in &self.readbacks {
            let mut words = [0u32; STATE_HEADER as usize];
            let read = copy.take(|bytes| words.copy_from_slice(bytemuck::cast_slice(bytes)));
            if read.is_some() && *frame > self.latest && newest.is_none_or(|(f, _)| *frame > f) {
                newest = Some((*frame, words));
            }
        }
        if let Some((frame, words)) = newest {
            self.latest = frame;
            self.stats = Some(self.read_stats(&words));
        }
        if let Some(s) = &mut self.stats {
            s.gpu_ms = self.timer.as_ref().and_then(|t| t.last_ms);
        }
    }

    fn pass_stats(&self) -> Option<PassStats> {
        self.stats
    }

    fn clear_pass_stats(&mut self) {
        if let Some(t) = &mut self.timer {
            t.clear();
        }
        if let Some(s) = &mut self.stats {
            s.gpu_ms = None;
        }
    }

    fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        model: &ModelGpu,
        draw: &CrowdDraw<'_>,
        which: CrowdPass,
    ) {
        if let Some(out) = &self.output
            && let Some(group) = &out.draw[self.palettes.parity()]
        {
            draw_crowd(pass, self.pipelines.get(which), group, &self.crowd, model, draw);
        }
    }

    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> {
        let out = self.output.as_ref()?;
        out.draw[self.palettes.parity()]
            .as_ref()
            .map(|g| (&self.pass.layouts.draw, g))
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.output.as_ref().map_or(0, Output::gpu_bytes)
            + self.palettes.gpu_bytes()
            + self.skin.bytes
            + self.clip_table.size()
            + self.pass.gpu_bytes()
            + self.source.gpu_bytes()
            + 3 * HEADER_BYTES
    }

    fn cap(&self) -> Option<u32> {
        Some(self.cap)
    }

    fn instance_cap(&mut self, blend: bool, table: &[CrowdModelGpu]) -> Option<u32> {
        self.cap = self.table_cap(blend, table);
        Some(self.cap)
    }

    fn ignores_morphs(&self) -> bool {
        true
    }
}
