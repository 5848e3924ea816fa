//! The resolved state a view's visible list keeps for each instance it
//! lists (`crowd::resolved`, shaders/resolved.wgsl): which stride a view's
//! lists ask for, whether the camera's keep it (and why not), and the
//! list's words read back for the tests.

use crate::gpu::GpuError;
use crate::render::passes::cull::Culler;

impl Culler {
    /// The camera's visible list read back whole, its regions, kept states
    /// and stride word (tests), waiting for the GPU.
    pub fn read_list_words(&self, gpu: &crate::gpu::GpuContext) -> Result<Vec<u32>, GpuError> {
        match &self.lists {
            Some(l) => gpu.read_words(&l.visible, 0, l.visible.size()),
            None => Ok(Vec::new()),
        }
    }

    /// The resolved-state stride of a view's lists (0: none): with
    /// `previous` (the camera's, when the scene pass writes the velocity
    /// target) also the previous frame's state, else only this frame's.
    /// Only lists bound whole can keep it.
    pub(super) fn state_stride(&self, previous: bool) -> u32 {
        use crate::crowd::resolved::{PREVIOUS_STRIDE, STATE_STRIDE};
        match (self.settings.resolved_state && self.multi_draw, previous) {
            (false, _) => 0,
            (true, true) => PREVIOUS_STRIDE,
            (true, false) => STATE_STRIDE,
        }
    }

    /// True when this frame's crowd is drawn from lists bound whole (the
    /// frame uniform's `resolved`: the vertex shaders then read each
    /// list's state stride, and the state where it is kept).
    pub fn lists_bound_whole(&self) -> bool {
        self.culled_this_frame && self.lists.as_ref().is_some_and(|l| l.multi)
    }

    /// Whether the camera's lists keep the resolved state: `Ok(true)` when
    /// they do, `Ok(false)` when the setting is off or nothing was culled
    /// yet, `Err(why)` when the setting is on and they cannot.
    pub fn resolved_state(&self) -> Result<bool, String> {
        if !self.settings.resolved_state {
            return Ok(false);
        }
        if !self.multi_draw {
            return Err("the adapter has no indirect-first-instance: \
                        the lists are bound a region at a time"
                .into());
        }
        match &self.lists {
            // Not culled, or lists made before the setting was on.
            _ if !self.active() => Ok(false),
            None => Ok(false),
            Some(l) if l.state.want == 0 => Ok(false),
            Some(l) if l.state.has != 0 => Ok(true),
            Some(l) => Err(format!(
                "a list keeping the state of {} instances would pass the \
                 device's {} MiB binding limit",
                Culler::states_for(l.made_for),
                self.max_binding >> 20
            )),
        }
    }
}
