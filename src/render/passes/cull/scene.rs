//! The cull pass over a scene of several models: one dispatch over every
//! instance, each model with its own bounds and levels, each (model,
//! level) its own region of the visible list (`RegionLayout`), all mesh
//! regions drawn by one multi-draw.

use crate::crowd::cull::{CullModel, CullUniform, CullView, MAX_LEVELS};
use crate::crowd::scene::MAX_SCENE_MODELS;
use crate::render::passes::cull::Culler;

impl Culler {
    /// The parameters of a scene's pass for `view` (on the stack: the
    /// pass runs for every view of every frame).
    pub(super) fn scene_uniform(&self, view: &CullView, count: u32, region: u32) -> CullUniform {
        let n = self.sources.len().min(MAX_SCENE_MODELS);
        let usable: [_; MAX_SCENE_MODELS] = std::array::from_fn(|m| match self.sources.get(m) {
            Some(s) => self.usable_levels(&s.levels),
            None => ([0.0; MAX_LEVELS], 0, 0),
        });
        let models: [CullModel<'_>; MAX_SCENE_MODELS] = std::array::from_fn(|m| {
            let (errors, levels, far_level) = &usable[m];
            let Some(s) = self.sources.get(m) else {
                return CullModel {
                    sphere: (glam::Vec3::ZERO, 0.0),
                    half: glam::Vec3::ZERO,
                    level_error: &[],
                    nearest_error: 0.0,
                    far_level: 0,
                    chain_levels: 0,
                    first_region: 0,
                    impostor_region: 0,
                    hidden: true,
                };
            };
            CullModel {
                sphere: s.bounds.sphere,
                half: s.bounds.half,
                level_error: &errors[..(*levels).clamp(1, MAX_LEVELS)],
                nearest_error: s.nearest_error,
                far_level: *far_level,
                chain_levels: s.levels.len() as u32,
                first_region: self.regions.first_region(m),
                impostor_region: self.regions.impostor_region(m),
                hidden: self.hidden_models >> m & 1 != 0,
            }
        });
        CullUniform::new_scene(
            view,
            &self.settings,
            &models[..n],
            count,
            region,
            self.impostors_ready,
        )
    }

    /// Each region's draw: index count, first index and base vertex (the
    /// impostors' regions draw their own quad).
    pub(super) fn region_draws(&self) -> Vec<[u32; 3]> {
        let mut draws = Vec::with_capacity(self.regions.regions());
        for s in &self.sources {
            draws.extend(
                s.levels
                    .iter()
                    .map(|l| [l.index_count, l.first_index, s.base_vertex]),
            );
        }
        let impostors = self.regions.regions() - draws.len();
        draws.extend((0..impostors).map(|_| [crate::render::passes::cull::IMPOSTOR_INDICES, 0, 0]));
        draws
    }
}
