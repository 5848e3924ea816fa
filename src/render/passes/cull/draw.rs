//! How the crowd is drawn from the cull pass's lists: the indirect draws of
//! the mesh levels (or every instance, unculled) and the impostors' region.

use crate::crowd::cull::CullUniform;
use crate::crowd::scene::{CrowdModelGpu, MAX_SCENE_MODELS};
use crate::render::passes::cull::{Culler, Lists};
use crate::render::passes::techniques::{ARGS_WORDS, CrowdDraw};

/// One model's instanced draw at full detail (culling and LOD off): its
/// level 0's indices from its base vertex, its drawn instances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirectRange {
    pub first_index: u32,
    pub index_count: u32,
    pub base_vertex: u32,
    pub first_instance: u32,
    pub instances: u32,
}

/// Every model's direct draw this frame (fixed-size: no allocation per
/// frame).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirectDraws {
    ranges: [DirectRange; MAX_SCENE_MODELS],
    len: usize,
}

impl DirectDraws {
    /// The draws that draw something.
    pub fn iter(&self) -> impl Iterator<Item = &DirectRange> {
        self.ranges[..self.len].iter().filter(|r| r.instances > 0)
    }

    /// One draw call per model with instances drawn.
    pub fn calls(&self) -> u32 {
        self.iter().count() as u32
    }
}

impl Culler {
    /// True when the last `encode` culled (the crowd draws indirectly).
    pub fn culled(&self) -> bool {
        self.culled_this_frame
    }

    /// Each model's direct draw of its drawn instances in `table` (the
    /// model table written this frame; none of a hidden model's).
    pub fn set_drawn(&mut self, table: &[CrowdModelGpu]) {
        let mut direct = DirectDraws::default();
        for (m, (entry, source)) in table.iter().zip(&self.sources).enumerate() {
            let level = source.levels[0];
            direct.ranges[m] = DirectRange {
                first_index: level.first_index,
                index_count: level.index_count,
                base_vertex: source.base_vertex,
                first_instance: entry.first_instance,
                // The debug switch hides a model from its direct draw too.
                instances: if self.hidden_models >> m & 1 != 0 {
                    0
                } else {
                    entry.drawn()
                },
            };
            direct.len = m + 1;
        }
        self.direct = direct;
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
                models: self.direct,
                group: &self.direct_group,
            },
        }
    }

    /// The impostors' indirect draw after `encode`, when this frame was
    /// culled with impostors on.
    pub fn impostor_draw(&self) -> Option<crate::render::passes::impostor::ImpostorDraw<'_>> {
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
    ) -> Option<crate::render::passes::impostor::ImpostorDraw<'a>> {
        let lists = lists?;
        let uniform = uniform?;
        if !culled || uniform.flags & crate::crowd::cull::FLAG_IMPOSTOR == 0 {
            return None;
        }
        let region = self.impostor_region();
        Some(crate::render::passes::impostor::ImpostorDraw {
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
            tight: self.settings.tight_impostors,
        })
    }
}
