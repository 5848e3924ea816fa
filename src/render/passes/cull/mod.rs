//! GPU-driven culling and LOD: a compute pass places every instance with
//! the vertex shader's own `anim_state`, tests its bounding sphere against
//! a view, picks a mesh level and nearest-frame sampling by projected
//! error, and compacts the survivors per level into a visible list whose
//! counters are the levels' `DrawIndexedIndirect` instance counts. The
//! crowd is then drawn indirectly: one `multi_draw_indexed_indirect` where
//! the adapter has `INDIRECT_FIRST_INSTANCE` (each level's region starts at
//! its first instance), else one `draw_indexed_indirect` per level with the
//! visible list bound at the level's region (dynamic offset). The rule is
//! `crowd::cull`; the shader is shaders/cull.wgsl.

mod dispatch;
mod draw;
mod listed;
mod lists;
pub mod occlusion;
mod params;
pub mod pyramid;
pub mod pyramid_view;
mod readback;
pub mod regions;
mod scene;
mod source;
mod splat;
mod state;
mod target;

use dispatch::CullDispatch;
pub use draw::{DirectDraws, DirectRange};
pub use listed::ListedGroup;
use lists::Lists;
pub use occlusion::{Occlusion, OcclusionCamera};
pub use params::params_as_uniform;
pub use readback::{ArgsReadback, CullStats, VisibleLists};
pub use regions::RegionLayout;
pub use source::CullSource;
pub use target::CullTarget;

use crate::crowd::cull::{CullSettings, CullUniform, CullView, MAX_LEVELS};
use crate::gpu::GpuError;
use crate::lod::LodLevel;
use crate::render::passes::techniques::{ARGS_WORDS, CrowdGroup, FrameContext};
use crate::render::util::pipeline::{bind_group, compute_pipeline};
use crate::render::util::shaders;
use crate::vat::PoseBounds;

pub struct Culler {
    pipeline: wgpu::ComputePipeline,
    clip_layout: wgpu::BindGroupLayout,
    clip_group: wgpu::BindGroup,
    crowd: CrowdGroup,
    out_layout: wgpu::BindGroupLayout,
    draw_layout: wgpu::BindGroupLayout,
    params: wgpu::Buffer,
    lists: Option<Lists>,
    direct_group: wgpu::BindGroup,
    /// Each model's bounds and levels, in the crowd's order (at least one).
    sources: Vec<CullSource>,
    /// The visible list's regions.
    regions: RegionLayout,
    /// Each model's draw when the pass does not run this frame.
    direct: DirectDraws,
    /// Models none of whose instances is drawn (bit `m`; a debug switch).
    pub hidden_models: u32,
    /// One multi-draw (the adapter has INDIRECT_FIRST_INSTANCE), or one
    /// draw per level at dynamic offsets. Tests may force the second.
    pub multi_draw: bool,
    /// The most workgroups in a row of the pass's dispatch
    /// ([`crate::gpu::MAX_DISPATCH_ROW`]). Tests narrow it to run the pass
    /// in rows at a count a device holds.
    pub row_groups: u32,
    /// An impostor atlas is there to draw the far field from (else the
    /// pass never chooses the impostor region).
    pub impostors_ready: bool,
    align_entries: u32,
    readback: ArgsReadback,
    pub settings: CullSettings,
    /// The view culling was frozen in.
    frozen: Option<CullView>,
    /// Whether this frame was culled (for the read-back and the uniform).
    culled_this_frame: bool,
    /// The parameters of the last cull pass.
    last_uniform: Option<CullUniform>,
    /// The view of the last camera cull (phase 2 culls the same).
    last_view: Option<CullView>,
    /// Group 0's layout (the occlusion variant's pipeline is made later).
    frame_layout: wgpu::BindGroupLayout,
    /// Two-phase occlusion culling (made on first use).
    occlusion: Option<Occlusion>,
    /// Why the device cannot cull by occlusion, if it cannot.
    occlusion_unsupported: Option<String>,
    /// The clip table (group 1 of every variant).
    clip_buffer: wgpu::Buffer,
    /// The camera's pipelines with the splat level (made on first use).
    splat: Option<splat::SplatCull>,
    /// Whether the camera's next cull writes splats (`set_splats`).
    splat_this_frame: bool,
    /// The largest buffer the device binds, in bytes (what a visible list,
    /// with or without the resolved state, must fit).
    max_binding: u64,
    /// The cascades' pass over the casters the camera's pass listed
    /// (`None` where the device cannot bind it).
    listed: Option<listed::ListedCull>,
    /// The cascades' boxes for the camera's next cull (`set_caster_gate`).
    caster_gate: Option<crate::crowd::caster_list::CasterGate>,
    /// Whether the camera's last cull listed casters.
    casters_listed: bool,
}

/// Indices of the impostors' quad (their region's index count).
pub const IMPOSTOR_INDICES: u32 = 6;

impl Culler {
    /// The cull pass over the crowd of `sources`' models (in the crowd's
    /// order; one model is a list of one), each with its own bounds and
    /// levels, each (model, level) its own region of the visible list.
    pub fn new(
        device: &wgpu::Device,
        frame_layout: &wgpu::BindGroupLayout,
        clip_buffer: &wgpu::Buffer,
        sources: Vec<CullSource>,
    ) -> Self {
        let mut sources: Vec<CullSource> = sources
            .into_iter()
            .take(crate::crowd::scene::MAX_SCENE_MODELS)
            .map(|mut s| {
                s.levels.truncate(MAX_LEVELS);
                if s.levels.is_empty() {
                    s.levels.push(LodLevel::default());
                }
                s
            })
            .collect();
        if sources.is_empty() {
            sources.push(CullSource {
                bounds: PoseBounds::sphere(glam::Vec3::ZERO, 1.0),
                levels: vec![LodLevel::default()],
                base_vertex: 0,
                nearest_error: 0.0,
            });
        }
        let regions = RegionLayout {
            levels: sources.iter().map(|s| s.levels.len() as u32).collect(),
        };
        let clip_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("cull clip layout"),
            entries: &[crate::gpu::compute_storage(2, true)],
        });
        let clip_group = bind_group(
            device,
            "cull clip group",
            &clip_layout,
            &[(2, clip_buffer.as_entire_binding())],
        );
        let crowd = CrowdGroup::new(device, "cull crowd layout");
        // The parameters are read-only storage, not uniform, where the
        // device allows (cull_params.wgsl): several views are culled per
        // frame, each with its own.
        let out_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("cull output layout"),
            entries: &[
                params::params_entry(device),
                crate::gpu::compute_storage(1, false),
                crate::gpu::compute_storage(2, false),
            ],
        });
        let draw_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("visible list layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: true,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let module = if params::params_as_uniform(device) {
            shaders::CULL_UNIFORM.create(device)
        } else {
            shaders::CULL.create(device)
        };
        let pipeline = compute_pipeline(
            device,
            "cull pipeline",
            &[
                Some(frame_layout),
                Some(&clip_layout),
                Some(crowd.layout()),
                Some(&out_layout),
            ],
            &module,
            "cs_cull",
        );
        let listed = listed::ListedCull::new(
            device,
            [frame_layout, &clip_layout, crowd.layout()],
            &module,
        );
        let params = params::params_buffer(device, "cull params");
        let dummy = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("visible list (direct draws)"),
            size: 256,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let direct_group = bind_group(
            device,
            "visible list (direct draws)",
            &draw_layout,
            &[(0, dummy.as_entire_binding())],
        );
        let align = device.limits().min_storage_buffer_offset_alignment.max(4);
        let limits = device.limits();
        let max_binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let occlusion_unsupported = occlusion::unsupported_reason(device);
        Self {
            pipeline,
            clip_layout,
            clip_group,
            crowd,
            out_layout,
            draw_layout,
            params,
            lists: None,
            direct_group,
            readback: ArgsReadback::new(device, &regions),
            regions,
            direct: DirectDraws::default(),
            sources,
            hidden_models: 0,
            multi_draw: device
                .features()
                .contains(wgpu::Features::INDIRECT_FIRST_INSTANCE),
            impostors_ready: false,
            row_groups: crate::gpu::MAX_DISPATCH_ROW,
            align_entries: align / 4,
            settings: CullSettings::default(),
            frozen: None,
            culled_this_frame: false,
            last_uniform: None,
            occlusion: None,
            occlusion_unsupported,
            last_view: None,
            frame_layout: frame_layout.clone(),
            clip_buffer: clip_buffer.clone(),
            splat: None,
            splat_this_frame: false,
            max_binding,
            listed,
            caster_gate: None,
            casters_listed: false,
        }
    }

    /// Drops the lists (the next frame makes them again, e.g. after
    /// `multi_draw` changed).
    pub fn reset_lists(&mut self) {
        self.lists = None;
    }

    /// The parameters of the last cull pass (`None` before the first).
    pub fn last_uniform(&self) -> Option<CullUniform> {
        self.last_uniform
    }

    /// Reads what the camera drew in the last frame back (with occlusion
    /// culling, both phases' lists together), waiting for the GPU (tests
    /// and diagnostics, never per frame).
    pub fn read_lists(&self, gpu: &crate::gpu::GpuContext) -> Result<VisibleLists, GpuError> {
        let early = self.read_early_lists(gpu)?;
        if !self.occlusion.as_ref().is_some_and(|o| o.late_ran) {
            return Ok(early);
        }
        Ok(early.and(&self.read_late_lists(gpu)?))
    }

    /// Reads the camera's own pass back alone (with occlusion culling,
    /// phase 1), waiting for the GPU (tests).
    pub fn read_early_lists(&self, gpu: &crate::gpu::GpuContext) -> Result<VisibleLists, GpuError> {
        readback::read_lists(self.lists.as_ref(), gpu)
    }

    /// Group 3 of every technique's crowd pipeline: the visible list.
    pub fn draw_layout(&self) -> &wgpu::BindGroupLayout {
        &self.draw_layout
    }

    /// The first model's mesh levels (finest first); its impostors'
    /// region comes after them.
    pub fn levels(&self) -> &[LodLevel] {
        &self.sources[0].levels
    }

    /// The radius of the largest model-space sphere a model's poses fit in.
    pub fn sphere_radius(&self) -> f32 {
        self.sources
            .iter()
            .map(|s| s.bounds.sphere.1)
            .fold(0.0, f32::max)
    }

    /// The region impostors are appended to (after the mesh levels; a
    /// scene's first model's).
    pub fn impostor_region(&self) -> u32 {
        self.regions.impostor_region(0)
    }

    /// How the visible list's regions are laid out.
    pub fn regions(&self) -> &RegionLayout {
        &self.regions
    }

    /// True when the next frames go through the cull pass.
    pub fn active(&self) -> bool {
        self.settings.indirect()
    }

    /// The instances and triangles the last read-back frame drew, when the
    /// crowd was culled.
    /// With occlusion culling, both phases together, and the occluded.
    pub fn stats(&self) -> Option<CullStats> {
        let early = self.readback.last?;
        match self.occlusion.as_ref().filter(|o| o.active) {
            Some(o) => Some(early.and(o.late_readback.last?)),
            None => Some(early),
        }
    }

    /// Culls `count` instances seen from `view` into `lists` (made again
    /// when too small, made for the other draw mode or for other
    /// bindings), the pass reading its parameters from `params`; with
    /// `occlusion`, the occlusion variant of the pass with those bindings;
    /// with `listed` (a cascade, when the camera listed casters this
    /// frame), over the camera's list with that group.
    /// Call after `self.crowd.update`. Returns the parameters, or `None`
    /// when nothing was recorded.
    #[allow(clippy::too_many_arguments)]
    fn cull_into(
        &self,
        ctx: &FrameContext<'_>,
        encoder: &mut wgpu::CommandEncoder,
        frame_group: &wgpu::BindGroup,
        view: &CullView,
        count: u32,
        params: &wgpu::Buffer,
        lists: &mut Option<Lists>,
        occlusion: Option<(&Occlusion, bool)>,
        splats: bool,
        camera: bool,
        listed: Option<&mut Option<ListedGroup>>,
    ) -> Option<CullUniform> {
        let bindings = match occlusion {
            Some((o, late)) => Some((o, o.bindings(late)?)),
            None => None,
        };
        let key = bindings.as_ref().map(|(_, b)| b.key);
        let state = self.state_stride(camera && ctx.frame.velocity != 0);
        // The camera's own pass (not phase 2) lists the cascades' casters.
        let casters = camera && !matches!(occlusion, Some((_, true)));
        if lists.as_ref().is_none_or(|l| {
            l.capacity < count
                || (l.state.has != 0 && l.states < count)
                || l.multi != self.multi_draw
                || l.occlusion != key
                || l.state.want != state
                || l.casters != casters
        }) {
            let out = bindings.as_ref().map(|(o, b)| (&o.layout, b));
            *lists =
                Some(self.make_lists(ctx.device, ctx.queue, count, params, out, state, casters));
        }
        let (Some(lists), Some(crowd_group)) = (lists.as_ref(), self.crowd.get()) else {
            return None;
        };
        let mut uniform = self.uniform(view, count, lists.region);
        if let (true, Some(gate)) = (casters, self.active_gate()) {
            (uniform.caster_planes, uniform.caster_views) = gate.uniform_planes();
            uniform.caster_bounds = gate.uniform_bounds();
        }
        ctx.queue
            .write_buffer(params, 0, bytemuck::bytes_of(&uniform));
        let listed = match listed {
            Some(cache) => Some(self.listed_group(ctx.device, params, lists, cache)?),
            None => None,
        };
        let kind = match (occlusion, listed) {
            (None, None) => CullDispatch::Plain,
            (None, Some(group)) => CullDispatch::Listed(group, &self.lists.as_ref()?.args),
            (Some((o, false)), _) => CullDispatch::Early(o),
            (Some((o, true)), _) => CullDispatch::Late(o, self.lists.as_ref()?),
        };
        let splat = self.splat_dispatch(kind, splats);
        self.dispatch(encoder, kind, frame_group, crowd_group, lists, count, splat);
        Some(uniform)
    }

    /// Records the cull pass for `count` instances seen from `view` (or the
    /// frozen view), after the frame data and the behaviour's buffers are
    /// written for this frame. Returns how to draw the crowd.
    pub fn encode(
        &mut self,
        ctx: &FrameContext<'_>,
        encoder: &mut wgpu::CommandEncoder,
        frame_group: &wgpu::BindGroup,
        view: &CullView,
        count: u32,
    ) {
        self.culled_this_frame = false;
        if !self.active() || count == 0 {
            self.frozen = None;
            return;
        }
        let view = match (self.settings.freeze, self.frozen) {
            (true, Some(frozen)) => frozen,
            (true, None) => {
                self.frozen = Some(*view);
                *view
            }
            (false, _) => {
                self.frozen = None;
                *view
            }
        };
        self.crowd.update(ctx);
        let mut lists = self.lists.take();
        self.last_view = Some(view);
        let occlusion = self.occlusion.take();
        let early = occlusion.as_ref().filter(|o| o.active);
        let uniform = self.cull_into(
            ctx,
            encoder,
            frame_group,
            &view,
            count,
            &self.params,
            &mut lists,
            early.map(|o| (o, false)),
            true,
            true,
            None,
        );
        self.occlusion = occlusion;
        self.lists = lists;
        self.casters_listed = uniform.is_some_and(|u| u.caster_views > 0);
        if let (Some(uniform), Some(lists)) = (uniform, &self.lists) {
            self.last_uniform = Some(uniform);
            self.readback.copy(encoder, &lists.args, lists.bytes);
            self.culled_this_frame = true;
        }
    }

    /// After the frame's submit: starts the read-back of its counts.
    pub fn after_submit(&mut self, device: &wgpu::Device) {
        self.readback.after_submit();
        self.readback.collect(device, false);
        if let Some(o) = &mut self.occlusion {
            o.late_readback.after_submit();
            o.late_readback.collect(device, false);
        }
    }

    /// Waits for every pending read-back (benchmarks and tests).
    pub fn wait_for_stats(&mut self, device: &wgpu::Device) -> Option<CullStats> {
        self.readback.collect(device, true);
        if let Some(o) = &mut self.occlusion {
            o.late_readback.collect(device, true);
        }
        self.stats()
    }

    /// GPU bytes of the lists and arguments.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.lists.as_ref().map_or(0, Lists::gpu_bytes)
            + self.params.size()
            + self.occlusion.as_ref().map_or(0, Occlusion::gpu_bytes)
    }
}
