//! How the crowd is drawn from the cull pass's lists: the indirect draws of
//! the mesh levels (or every instance, unculled) and the impostors' region.

use super::{Culler, Lists};
use crate::crowd::cull::CullUniform;
use crate::render::techniques::{ARGS_WORDS, CrowdDraw};

impl Culler {
    /// True when the last `encode` culled (the crowd draws indirectly).
    pub fn culled(&self) -> bool {
        self.culled_this_frame
    }

    /// How to draw the crowd after `encode`.
    pub fn draw(&self, count: u32) -> CrowdDraw<'_> {
        self.draw_lists(self.lists.as_ref(), self.culled_this_frame, count)
    }

    /// The indirect draws of `lists` when `culled`, else every instance.
    pub(super) fn draw_lists<'a>(
        &'a self,
        lists: Option<&'a Lists>,
        culled: bool,
        count: u32,
    ) -> CrowdDraw<'a> {
        match (lists, culled) {
            (Some(lists), true) => CrowdDraw::Indirect {
                args: &lists.args,
                levels: self.regions.mesh_regions(),
                group: &lists.draw_group,
                region_bytes: (!lists.multi).then_some(lists.region * 4),
                visible: &lists.visible,
                region: lists.region,
            },
            _ => CrowdDraw::Direct {
                count,
                group: &self.direct_group,
            },
        }
    }

    /// The impostors' indirect draw after `encode`, when this frame was
    /// culled with impostors on.
    pub fn impostor_draw(&self) -> Option<crate::render::impostor::ImpostorDraw<'_>> {
        self.impostor_draw_of(
            self.lists.as_ref(),
            self.culled_this_frame,
            self.last_uniform,
        )
    }

    /// The impostor region's draw of `lists`, when they were culled this
    /// frame with impostors.
    pub(super) fn impostor_draw_of<'a>(
        &self,
        lists: Option<&'a Lists>,
        culled: bool,
        uniform: Option<CullUniform>,
    ) -> Option<crate::render::impostor::ImpostorDraw<'a>> {
        let lists = lists?;
        let uniform = uniform?;
        if !culled || uniform.flags & crate::crowd::cull::FLAG_IMPOSTOR == 0 {
            return None;
        }
        let region = self.impostor_region();
        Some(crate::render::impostor::ImpostorDraw {
            args: &lists.args,
            offset: (region as usize * ARGS_WORDS * 4) as u64,
            regions: self.regions.models() as u32,
            group: &lists.draw_group,
            dynamic_offset: if lists.multi {
                0
            } else {
                region * lists.region * 4
            },
            region_bytes: (!lists.multi).then_some(lists.region * 4),
        })
    }
}
