//! How the visible list's regions are laid out: every model's mesh levels,
//! model by model, then one impostor region per model (a scene of one
//! model: its levels, then its impostors, as before there were scenes).
//! Each region has five words of `DrawIndexedIndirect` arguments; the
//! occlusion counters follow the last region's.

use crate::render::passes::techniques::ARGS_WORDS;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionLayout {
    /// Mesh levels of each model (at least 1 each).
    pub levels: Vec<u32>,
}

impl RegionLayout {
    /// One model of `levels` mesh levels.
    pub fn single(levels: u32) -> Self {
        Self {
            levels: vec![levels.max(1)],
        }
    }

    pub fn models(&self) -> usize {
        self.levels.len()
    }

    /// Every model's mesh levels together: the regions one multi-draw of
    /// the meshes covers.
    pub fn mesh_regions(&self) -> u32 {
        self.levels.iter().sum()
    }

    /// Mesh and impostor regions together.
    pub fn regions(&self) -> usize {
        self.mesh_regions() as usize + self.models()
    }

    /// Model `m`'s level 0's region.
    pub fn first_region(&self, m: usize) -> u32 {
        self.levels[..m].iter().sum()
    }

    /// Model `m`'s impostors' region.
    pub fn impostor_region(&self, m: usize) -> u32 {
        self.mesh_regions() + m as u32
    }

    /// The word after every region's arguments (occlusion culling's
    /// counters start there).
    pub fn counter_word(&self) -> u32 {
        (self.regions() * ARGS_WORDS) as u32
    }

    /// Bytes of the arguments and the counters after them.
    pub fn args_bytes(&self) -> u64 {
        ((self.regions() * ARGS_WORDS + crate::crowd::occlusion::COUNTER_WORDS) * 4) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_levels_then_impostors() {
        let one = RegionLayout::single(6);
        assert_eq!((one.mesh_regions(), one.regions()), (6, 7));
        assert_eq!(one.impostor_region(0), 6);
        let three = RegionLayout {
            levels: vec![6, 4, 5],
        };
        assert_eq!(three.first_region(2), 10);
        assert_eq!(three.impostor_region(1), 16);
        assert_eq!(three.regions(), 18);
        assert_eq!(three.counter_word(), 90);
    }
}
