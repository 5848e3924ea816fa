//! Two-phase occlusion culling of the camera's view. Phase 1 (the cull
//! pass with `PHASE_EARLY`) appends only the survivors that were visible
//! last frame; the early scene pass draws them; [`DepthPyramid`] reduces
//! that depth; phase 2 (`PHASE_LATE`, into lists of its own) tests every
//! other survivor against the pyramid, appends those it does not hide for
//! the late scene pass, and records every instance's visibility for the
//! next frame. No CPU work per instance, no read-back in the frame: the
//! late pass draws from its own indirect arguments. The rule is
//! `crowd::occlusion`; the shaders are occlusion.wgsl and pyramid.wgsl.

use crate::crowd::occlusion::{
    OcclusionUniform, PHASE_EARLY, PHASE_LATE, PHASE_LATE_UNTESTED, SURVIVOR_WORDS,
    SURVIVORS_HEADER,
};
use crate::render::passes::cull::pyramid::DepthPyramid;
use crate::render::passes::cull::{ArgsReadback, Culler, Lists, VisibleLists};
use crate::render::passes::targets::Targets;
use crate::render::passes::techniques::{CrowdDraw, FrameContext};

/// Why occlusion culling cannot run on a device, or `None` when it can.
pub fn unsupported_reason(device: &wgpu::Device) -> Option<String> {
    let info = device.adapter_info();
    if info.backend == wgpu::Backend::Gl {
        return Some(
            "the GL backend cannot read a depth texture in a compute shader (wgpu issue #4524)"
                .into(),
        );
    }
    let have = device.limits().max_storage_buffers_per_shader_stage;
    (have < NEEDED_STORAGE_BUFFERS).then(|| {
        format!(
            "the adapter allows {have} storage buffers per shader stage; occlusion culling \
             needs {NEEDED_STORAGE_BUFFERS}"
        )
    })
}

/// Storage buffers the occlusion variant of the cull pass binds: the plain
/// pass's 10 (the frame, the clip table, five of the crowd's group, the
/// parameters, arguments and visible list) and its parameters, history and
/// pyramid. (It said 11, counting the plain pass's as 8: an adapter
/// allowing 11 or 12 would have lost its device creating the pipeline.)
pub const NEEDED_STORAGE_BUFFERS: u32 = 13;

/// The camera the pyramid is drawn from, and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OcclusionCamera {
    pub view: glam::Mat4,
    pub proj: glam::Mat4,
    /// The drawn viewport in the depth's pixels: x, y, width, height.
    pub viewport: [f32; 4],
}

/// What the cull pass's occlusion variant binds besides its lists.
pub(super) struct Bindings<'a> {
    pub params: &'a wgpu::Buffer,
    pub history: &'a wgpu::Buffer,
    pub pyramid: &'a wgpu::Buffer,
    /// Changes whenever one of the buffers is made again.
    pub key: u64,
}

pub struct Occlusion {
    /// Phase 1 (`cs_cull`), the step sizing phase 2 (`cs_late_args`) and
    /// phase 2 (`cs_cull_late`).
    pub(super) pipeline: wgpu::ComputePipeline,
    pub(super) args_pipeline: wgpu::ComputePipeline,
    pub(super) late_pipeline: wgpu::ComputePipeline,
    pub(super) layout: wgpu::BindGroupLayout,
    pub pyramid: DepthPyramid,
    early_params: wgpu::Buffer,
    late_params: wgpu::Buffer,
    /// Phase 2's copy of the cull pass's parameters (phase 1 uses the
    /// culler's own).
    late_cull_params: wgpu::Buffer,
    history: Option<wgpu::Buffer>,
    history_capacity: u32,
    history_generation: u64,
    pub(super) late: Option<Lists>,
    pub(super) late_readback: ArgsReadback,
    /// A phase 2 has recorded the instances' visibility since the history
    /// was made.
    history_valid: bool,
    /// Whether this frame's camera cull runs in two phases.
    pub(super) active: bool,
    /// Whether this frame ran phase 2 (its lists are drawn by the late
    /// pass).
    pub(super) late_ran: bool,
    /// The parameters of the last phase 2.
    pub(super) last_late: Option<OcclusionUniform>,
    camera: Option<OcclusionCamera>,
}

fn params_buffer(device: &wgpu::Device, label: &str) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: std::mem::size_of::<OcclusionUniform>() as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl Occlusion {
    pub(super) fn new(
        device: &wgpu::Device,
        bind_group_layouts: [&wgpu::BindGroupLayout; 3],
        regions: &crate::render::passes::cull::RegionLayout,
    ) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("cull output layout (occlusion)"),
            entries: &[
                crate::gpu::compute_storage(0, true),
                crate::gpu::compute_storage(1, false),
                crate::gpu::compute_storage(2, false),
                crate::gpu::compute_storage(3, true),
                crate::gpu::compute_storage(4, false),
                crate::gpu::compute_storage(5, true),
            ],
        });
        let [frame, clip, crowd] = bind_group_layouts;
        let groups = [Some(frame), Some(clip), Some(crowd), Some(&layout)];
        let module = crate::render::util::shaders::CULL_OCCLUSION.create(device);
        let pipeline = |entry| {
            crate::render::util::pipeline::compute_pipeline(device, entry, &groups, &module, entry)
        };
        Self {
            pipeline: pipeline("cs_cull"),
            args_pipeline: pipeline("cs_late_args"),
            late_pipeline: pipeline("cs_cull_late"),
            layout,
            pyramid: DepthPyramid::new(device),
            early_params: params_buffer(device, "occlusion params (phase 1)"),
            late_params: params_buffer(device, "occlusion params (phase 2)"),
            late_cull_params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("cull params (phase 2)"),
                size: std::mem::size_of::<crate::crowd::cull::CullUniform>() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            history: None,
            history_capacity: 0,
            history_generation: 0,
            late: None,
            late_readback: ArgsReadback::new(device, regions),
            history_valid: false,
            active: false,
            late_ran: false,
            last_late: None,
            camera: None,
        }
    }

    /// Makes the visibility history (and phase 1's list of survivors)
    /// hold `capacity` instances; a new one starts with nothing visible:
    /// phase 2 then draws everything it does not hide, as after a camera
    /// cut.
    pub(super) fn ensure_history(&mut self, device: &wgpu::Device, capacity: u32) {
        if self.history.is_some() && self.history_capacity == capacity {
            return;
        }
        let words = capacity as u64 * (1 + SURVIVOR_WORDS as u64) + SURVIVORS_HEADER as u64;
        self.history = Some(device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("occlusion state"),
            size: words * 4,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        }));
        self.history_capacity = capacity;
        self.history_generation += 1;
        self.history_valid = false;
    }

    /// Forgets which instances were visible (the next frame is culled as
    /// after a camera cut).
    pub fn forget(&mut self) {
        self.history = None;
        self.history_capacity = 0;
    }

    /// The bindings of phase 1 (`late` false) or 2, once the history and
    /// the pyramid exist.
    pub(super) fn bindings(&self, late: bool) -> Option<Bindings<'_>> {
        Some(Bindings {
            params: if late {
                &self.late_params
            } else {
                &self.early_params
            },
            history: self.history.as_ref()?,
            pyramid: self.pyramid.buffer()?,
            key: self.pyramid.generation << 32 | self.history_generation,
        })
    }

    /// Writes phase 1's parameters for `camera` (listing the survivors'
    /// count after `counter_word`).
    pub(super) fn write_early(
        &mut self,
        queue: &wgpu::Queue,
        camera: OcclusionCamera,
        counter_word: u32,
    ) {
        self.camera = Some(camera);
        let mut u = self.uniform(camera, PHASE_EARLY);
        u.counter_word = counter_word;
        queue.write_buffer(&self.early_params, 0, bytemuck::bytes_of(&u));
    }

    /// Writes phase 2's parameters (the camera of phase 1, counting the
    /// occluded into `counter_word`); `test` false draws every survivor
    /// phase 1 did not (culling frozen before the history was known).
    /// `None` before phase 1.
    pub(super) fn write_late(
        &mut self,
        queue: &wgpu::Queue,
        counter_word: u32,
        test: bool,
    ) -> Option<OcclusionUniform> {
        let camera = self.camera?;
        let phase = if test {
            PHASE_LATE
        } else {
            PHASE_LATE_UNTESTED
        };
        let mut u = self.uniform(camera, phase);
        u.counter_word = counter_word;
        queue.write_buffer(&self.late_params, 0, bytemuck::bytes_of(&u));
        self.history_valid = true;
        Some(u)
    }

    fn uniform(&self, camera: OcclusionCamera, phase: u32) -> OcclusionUniform {
        let mut u = OcclusionUniform::new(
            camera.view,
            camera.proj,
            camera.viewport,
            self.pyramid.size().unwrap_or((1, 1)),
            phase,
        );
        u.capacity = self.history_capacity;
        u
    }

    /// True once a phase 2 has recorded the instances' visibility.
    pub fn history_valid(&self) -> bool {
        self.history_valid
    }

    /// The visibility history, read back (tests): one word per instance.
    pub fn read_history(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Vec<u32>, crate::gpu::GpuError> {
        let Some(history) = &self.history else {
            return Ok(Vec::new());
        };
        let mut words: Vec<u32> = gpu.read_words(history, 0, history.size())?;
        words.truncate(self.history_capacity as usize);
        Ok(words)
    }

    /// GPU bytes of the history, the pyramid, the late lists and the
    /// parameters.
    pub fn gpu_bytes(&self) -> u64 {
        self.history.as_ref().map_or(0, wgpu::Buffer::size)
            + self.pyramid.gpu_bytes()
            + self.late.as_ref().map_or(0, Lists::gpu_bytes)
            + self.early_params.size()
            + self.late_params.size()
            + self.late_cull_params.size()
    }
}

impl Culler {
    /// Why this device cannot cull by occlusion (`None`: it can).
    pub fn occlusion_unsupported(&self) -> Option<&str> {
        self.occlusion_unsupported.as_deref()
    }

    /// Why occlusion culling, asked for in the settings, does not run:
    /// this device cannot, or the cull pass it runs in is off. `None` when
    /// it runs or was not asked for.
    pub fn occlusion_unavailable(&self) -> Option<&str> {
        if !self.settings.occlusion {
            return None;
        }
        if let Some(why) = self.occlusion_unsupported() {
            return Some(why);
        }
        (!self.settings.indirect())
            .then_some("it runs in the cull pass, which --culling off with --lod off turns off")
    }

    /// True when this frame's camera cull runs in two phases (set by
    /// [`Self::prepare_occlusion`]).
    pub fn occlusion_active(&self) -> bool {
        self.occlusion.as_ref().is_some_and(|o| o.active)
    }

    /// The occlusion state (its pyramid and history), once made.
    pub fn occlusion(&self) -> Option<&Occlusion> {
        self.occlusion.as_ref()
    }

    /// Forgets which instances were visible: the next frame is culled as
    /// after a camera cut (tests measure that frame).
    pub fn forget_visibility(&mut self) {
        if let Some(o) = &mut self.occlusion {
            o.forget();
        }
    }

    /// Before [`Culler::encode`]: decides whether this frame culls by
    /// occlusion (the setting, the device, culling on and a crowd to
    /// draw) and readies phase 1 for `count` instances seen by `camera`,
    /// drawn into `targets`.
    pub fn prepare_occlusion(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        targets: &Targets,
        camera: OcclusionCamera,
        count: u32,
    ) {
        let wanted = self.settings.occlusion && count > 0 && self.occlusion_unavailable().is_none();
        if !wanted {
            if let Some(o) = &mut self.occlusion {
                o.active = false;
                o.late_ran = false;
            }
            return;
        }
        if self.occlusion.is_none() {
            let layouts = [&self.frame_layout, &self.clip_layout, self.crowd.layout()];
            self.occlusion = Some(Occlusion::new(device, layouts, &self.regions));
        }
        let counter = self.counter_word();
        let Some(o) = &mut self.occlusion else {
            return;
        };
        o.ensure_history(device, Culler::capacity_for(count));
        o.pyramid.ensure(
            device,
            &targets.depth,
            (targets.width, targets.height),
            targets.samples,
            targets.generation,
        );
        o.write_early(queue, camera, counter);
        o.active = true;
    }

    /// After the early scene pass: reduces its depth into the pyramid and
    /// records phase 2, which culls what phase 1 did not draw into the late
    /// lists. With culling frozen, phase 2 runs only until the history is
    /// known (the frozen set stays as it was).
    pub fn encode_late(
        &mut self,
        ctx: &FrameContext<'_>,
        encoder: &mut wgpu::CommandEncoder,
        frame_group: &wgpu::BindGroup,
        count: u32,
    ) {
        let Some(mut o) = self.occlusion.take() else {
            return;
        };
        o.late_ran = false;
        let view = self
            .last_view
            .filter(|_| o.active && self.culled_this_frame);
        if let Some(view) = view
            && !(self.settings.freeze && o.history_valid())
        {
            o.pyramid.encode(encoder);
            let counter = self.counter_word();
            o.last_late = o.write_late(ctx.queue, counter, !self.settings.freeze);
            let mut late = o.late.take();
            let params = &o.late_cull_params;
            let uniform = self.cull_into(
                ctx,
                encoder,
                frame_group,
                &view,
                count,
                params,
                &mut late,
                Some((&o, true)),
                false,
                true,
                None,
            );
            if let (Some(_), Some(lists)) = (uniform, &late) {
                o.late_readback.copy(encoder, &lists.args, lists.bytes);
                o.late_ran = true;
            }
            o.late = late;
        }
        self.occlusion = Some(o);
    }

    /// The word of the arguments after the regions' (the occluded count).
    pub(super) fn counter_word(&self) -> u32 {
        self.regions.counter_word()
    }

    /// How the late scene pass draws the crowd (phase 2's lists), when
    /// phase 2 ran this frame.
    pub fn late_draw(&self, count: u32) -> Option<CrowdDraw<'_>> {
        let o = self.occlusion.as_ref().filter(|o| o.late_ran)?;
        Some(self.draw_lists(o.late.as_ref(), true, count))
    }

    /// Phase 2's impostors, when it ran with impostors this frame.
    pub fn late_impostor_draw(&self) -> Option<crate::render::passes::impostor::ImpostorDraw<'_>> {
        let o = self.occlusion.as_ref().filter(|o| o.late_ran)?;
        self.impostor_draw_of(o.late.as_ref(), true, self.last_uniform)
    }

    /// Phase 2's last parameters (tests).
    pub fn last_occlusion_uniform(&self) -> Option<OcclusionUniform> {
        self.occlusion.as_ref().and_then(|o| o.last_late)
    }

    /// Reads phase 2's arguments and lists back, waiting for the GPU
    /// (tests and diagnostics).
    pub fn read_late_lists(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<VisibleLists, crate::gpu::GpuError> {
        crate::render::passes::cull::readback::read_lists(
            self.occlusion.as_ref().and_then(|o| o.late.as_ref()),
            gpu,
        )
    }
}
