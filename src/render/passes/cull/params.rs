//! The cull pass's parameters for a view: where its counters are, and a
//! model's usable levels (each model's bounds are in `scene.rs`).

use crate::crowd::cull::{CullUniform, CullView, MAX_LEVELS};
use crate::lod::LodLevel;
use crate::render::passes::cull::Culler;

impl Culler {
    /// The pass's parameters for `view`, with where its counters are.
    pub(super) fn uniform(&self, view: &CullView, count: u32, region: u32) -> CullUniform {
        CullUniform {
            counter_word: self.regions.counter_word(),
            ..self.scene_uniform(view, count, region)
        }
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
