//! Recording the cull pass's compute dispatch: the plain pass, occlusion
//! culling's phase 1 (and the step sizing phase 2) or its phase 2, each in
//! rows of `CULL_GROUP`-invocation workgroups.

use super::{Culler, Lists, Occlusion};
use crate::crowd::cull::CULL_GROUP;

/// Which dispatch of the cull pass to record.
#[derive(Clone, Copy)]
pub(super) enum CullDispatch<'a> {
    /// One invocation per instance, every survivor appended.
    Plain,
    /// Occlusion culling's phase 1, then the step sizing phase 2.
    Early(&'a Occlusion),
    /// Phase 2 over phase 1's survivors (its lists give the dispatch).
    Late(&'a Occlusion, &'a Lists),
    /// A shadow cascade over the casters the camera's pass listed: its
    /// group 3 with the camera's arguments, which give the dispatch.
    Listed(&'a wgpu::BindGroup, &'a wgpu::Buffer),
}

impl Culler {
    /// Resets `lists`' arguments and records the compute pass filling them
    /// (with `splat`, the splat variant's pipeline and group 1).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn dispatch(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        kind: CullDispatch<'_>,
        frame_group: &wgpu::BindGroup,
        crowd_group: &wgpu::BindGroup,
        lists: &Lists,
        count: u32,
        splat: Option<(&wgpu::ComputePipeline, &wgpu::BindGroup)>,
    ) {
        encoder.copy_buffer_to_buffer(&lists.template, 0, &lists.args, 0, lists.bytes);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("cull pass"),
            timestamp_writes: None,
        });
        let (pipeline, clip_group) = splat.unwrap_or((
            match kind {
                CullDispatch::Plain => &self.pipeline,
                CullDispatch::Early(o) => &o.pipeline,
                CullDispatch::Late(o, _) => &o.late_pipeline,
                CullDispatch::Listed(..) => match &self.listed {
                    Some(l) => &l.pipeline,
                    None => return,
                },
            },
            &self.clip_group,
        ));
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, frame_group, &[]);
        pass.set_bind_group(1, clip_group, &[]);
        pass.set_bind_group(2, crowd_group, &[]);
        let out_group = match kind {
            CullDispatch::Listed(group, _) => group,
            _ => &lists.out_group,
        };
        pass.set_bind_group(3, out_group, &[]);
        let groups = crate::gpu::dispatch_rows_within(count, CULL_GROUP, self.row_groups);
        match kind {
            CullDispatch::Plain => pass.dispatch_workgroups(groups.0, groups.1, 1),
            CullDispatch::Early(o) => {
                pass.dispatch_workgroups(groups.0, groups.1, 1);
                // Phase 2's workgroups, from the survivors it listed (its
                // group 1 is the plain pass's, splats or not).
                pass.set_pipeline(&o.args_pipeline);
                pass.set_bind_group(1, &self.clip_group, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
            CullDispatch::Late(_, early) => {
                let offset = (self.counter_word() as u64 + 2) * 4;
                pass.dispatch_workgroups_indirect(&early.args, offset);
            }
            CullDispatch::Listed(_, camera_args) => {
                pass.dispatch_workgroups_indirect(camera_args, self.listed_dispatch_offset());
            }
        }
    }
}
