//! The cull pass's parameters for a view: one model's bounds and usable
//! levels (a scene's are in `scene.rs`), and where its counters are.

use super::Culler;
use crate::crowd::cull::{CullModel, CullUniform, CullView, MAX_LEVELS};
use crate::lod::LodLevel;

impl Culler {
    /// The pass's parameters for `view`, with where its counters are.
    pub(super) fn uniform(&self, view: &CullView, count: u32, region: u32) -> CullUniform {
        CullUniform {
            counter_word: self.regions.counter_word(),
            ..self.view_uniform(view, count, region)
        }
    }

    fn view_uniform(&self, view: &CullView, count: u32, region: u32) -> CullUniform {
        if !self.sources.is_empty() {
            return self.scene_uniform(view, count, region);
        }
        let (errors, usable, far_level) = self.usable_levels(&self.levels);
        let model = CullModel {
            sphere: self.bounds.sphere,
            half: self.bounds.half,
            level_error: &errors[..usable.clamp(1, MAX_LEVELS)],
            nearest_error: self.nearest_error,
            far_level,
            chain_levels: self.impostor_region(),
            first_region: 0,
            impostor_region: self.impostor_region(),
            hidden: self.hidden_models & 1 != 0,
        };
        CullUniform::new_scene(
            view,
            &self.settings,
            &[model],
            count,
            region,
            self.impostors_ready,
        )
    }

    /// The levels' errors, how many the settings let the pass use, and
    /// the first coarse one among those.
    pub(super) fn usable_levels(&self, levels: &[LodLevel]) -> ([f32; MAX_LEVELS], usize, u32) {
        let errors: [f32; MAX_LEVELS] =
            std::array::from_fn(|l| levels.get(l).map_or(0.0, |level| level.error));
        let usable = if self.settings.coarse_levels {
            levels.len()
        } else {
            levels.iter().filter(|l| !l.coarse).count()
        };
        let far_level = levels
            .iter()
            .take(usable)
            .position(|l| l.coarse)
            .unwrap_or(usable) as u32;
        (errors, usable, far_level)
    }
}
