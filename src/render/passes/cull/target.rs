//! More views culled by the same pass: each [`CullTarget`] has its own
//! parameters, visible list and indirect arguments, so several views (the
//! shadow cascades, seen from the sun) are culled in one frame by the
//! camera's rule, each drawn from its own list.

use crate::crowd::cull::{CullUniform, CullView};
use crate::render::passes::cull::{ArgsReadback, CullStats, Culler, Lists};
use crate::render::passes::techniques::{CrowdDraw, FrameContext};

/// One view's cull output.
pub struct CullTarget {
    params: wgpu::Buffer,
    lists: Option<Lists>,
    /// Whether the last `encode_target` culled (its draws are indirect).
    culled: bool,
    /// The parameters of its last pass (tests).
    last_uniform: Option<CullUniform>,
    /// Its counts, read back a frame or two late.
    readback: ArgsReadback,
    /// Its group for the pass over the casters the camera listed.
    listed: Option<super::ListedGroup>,
    /// Whether the last `encode_target` went over the camera's list.
    went_over_list: bool,
}

impl CullTarget {
    /// The parameters of its last pass (`None` before the first).
    pub fn last_uniform(&self) -> Option<CullUniform> {
        self.last_uniform
    }

    /// Reads its last pass's arguments and visible list back, waiting for
    /// the GPU (tests and diagnostics).
    pub fn read_lists(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<crate::render::passes::cull::VisibleLists, crate::gpu::GpuError> {
        crate::render::passes::cull::readback::read_lists(self.lists.as_ref(), gpu)
    }

    /// True when the last `encode_target` culled (its lists are this
    /// frame's).
    pub fn culled(&self) -> bool {
        self.culled
    }

    /// True when the last `encode_target` went over the casters the
    /// camera's pass listed rather than the whole crowd.
    pub fn went_over_list(&self) -> bool {
        self.culled && self.went_over_list
    }

    /// Not culled this frame (its view is not drawn): its lists are old.
    pub fn skip(&mut self) {
        self.culled = false;
    }

    /// GPU bytes of its lists, arguments and parameters.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.params.size() + self.lists.as_ref().map_or(0, Lists::gpu_bytes)
    }

    /// What its view drew in the last frame read back (`None` before one,
    /// or when it was not culled).
    pub fn stats(&self) -> Option<CullStats> {
        self.culled.then_some(self.readback.last).flatten()
    }

    /// After the frame's submit: starts the read-back of its counts and
    /// collects earlier ones; `wait` blocks for them (benchmarks, tests).
    pub fn after_submit(&mut self, device: &wgpu::Device, wait: bool) {
        self.readback.after_submit();
        self.readback.collect(device, wait);
    }

    /// Forgets the counts read so far (a cascade no longer drawn).
    pub fn clear_stats(&mut self) {
        self.readback.last = None;
    }
}

impl Culler {
    /// A new output of this pass.
    pub fn new_target(&self, device: &wgpu::Device, label: &str) -> CullTarget {
        CullTarget {
            params: super::params::params_buffer(device, label),
            lists: None,
            culled: false,
            last_uniform: None,
            readback: ArgsReadback::new(device, &self.regions),
            listed: None,
            went_over_list: false,
        }
    }

    /// Records the cull pass for `count` instances seen from `view` into
    /// `target`, with the camera's settings (never frozen: a frozen camera
    /// still casts live shadows).
    pub fn encode_target(
        &mut self,
        ctx: &FrameContext<'_>,
        encoder: &mut wgpu::CommandEncoder,
        frame_group: &wgpu::BindGroup,
        view: &CullView,
        count: u32,
        target: &mut CullTarget,
    ) {
        target.culled = false;
        if !self.settings.indirect() || count == 0 {
            target.last_uniform = None;
            return;
        }
        self.crowd.update(ctx);
        let listed = self.casters_listed();
        target.last_uniform = self.cull_into(
            ctx,
            encoder,
            frame_group,
            view,
            count,
            &target.params,
            &mut target.lists,
            None,
            false,
            false,
            listed.then_some(&mut target.listed),
        );
        target.culled = target.last_uniform.is_some();
        target.went_over_list = listed;
        if let (true, Some(lists)) = (target.culled, &target.lists) {
            target.readback.copy(encoder, &lists.args, lists.bytes);
        }
    }

    /// How to draw `target`'s view after `encode_target`.
    pub fn draw_target<'a>(&'a self, target: &'a CullTarget, count: u32) -> CrowdDraw<'a> {
        self.draw_lists(target.lists.as_ref(), target.culled, count)
    }

    /// The impostor region's draw of `target` (a cascade's casters that
    /// cast as impostors), when it was culled with impostors this frame.
    pub fn target_impostor_draw<'a>(
        &self,
        target: &'a CullTarget,
    ) -> Option<crate::render::passes::impostor::ImpostorDraw<'a>> {
        self.impostor_draw_of(target.lists.as_ref(), target.culled, target.last_uniform)
    }
}
