//! More views culled by the same pass: each [`CullTarget`] has its own
//! parameters, visible list and indirect arguments, so several views (the
//! shadow cascades, seen from the sun) are culled in one frame by the
//! camera's rule, each drawn from its own list.

use super::{Culler, Lists};
use crate::crowd::cull::{CullUniform, CullView};
use crate::render::techniques::{CrowdDraw, FrameContext};

/// One view's cull output.
pub struct CullTarget {
    params: wgpu::Buffer,
    lists: Option<Lists>,
    /// Whether the last `encode_target` culled (its draws are indirect).
    culled: bool,
    /// The parameters of its last pass (tests).
    last_uniform: Option<CullUniform>,
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
    ) -> Result<super::VisibleLists, crate::gpu::GpuError> {
        super::readback::read_lists(self.lists.as_ref(), gpu)
    }

    /// GPU bytes of its lists, arguments and parameters.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.params.size() + self.lists.as_ref().map_or(0, Lists::gpu_bytes)
    }
}

impl Culler {
    /// A new output of this pass.
    pub fn new_target(&self, device: &wgpu::Device, label: &str) -> CullTarget {
        CullTarget {
            params: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: std::mem::size_of::<CullUniform>() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            lists: None,
            culled: false,
            last_uniform: None,
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
        target.last_uniform = self.cull_into(
            ctx,
            encoder,
            frame_group,
            view,
            count,
            &target.params,
            &mut target.lists,
        );
        target.culled = target.last_uniform.is_some();
    }

    /// How to draw `target`'s view after `encode_target`.
    pub fn draw_target<'a>(&'a self, target: &'a CullTarget, count: u32) -> CrowdDraw<'a> {
        self.draw_lists(target.lists.as_ref(), target.culled, count)
    }
}
