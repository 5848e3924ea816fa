//! How a scene's impostor atlases share one pair of textures: every
//! model's layers one after another, each layer as large as the largest
//! model's (a model's cells in its top left corner, the rest left empty),
//! with as many mip levels as the largest cell needs. A model samples its
//! own layers with the shared layer size and never reads below its own
//! last level (a texel per cell), so what it reads is what its own atlas
//! holds, texel for texel.

use super::{AtlasLayout, TEXEL_BYTES};

/// Where each model's atlas lies in the scene's textures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneAtlasPlan {
    /// Texels of a layer: the widest and the tallest model's, rounded up
    /// to a multiple of the largest cell (so that every mip level halves
    /// exactly).
    pub layer_size: (u32, u32),
    pub mips: u32,
    /// Every model's layers.
    pub layers: u32,
    /// Each model's first layer.
    pub first_layers: Vec<u32>,
}

impl SceneAtlasPlan {
    pub fn plan(layouts: &[&AtlasLayout]) -> Self {
        let cell = layouts.iter().map(|l| l.cell).max().unwrap_or(1).max(1);
        let round = |v: u32| v.div_ceil(cell) * cell;
        let width = layouts.iter().map(|l| l.layer_size().0).max().unwrap_or(1);
        let height = layouts.iter().map(|l| l.layer_size().1).max().unwrap_or(1);
        let mut first_layers = Vec::with_capacity(layouts.len());
        let mut layers = 0;
        for l in layouts {
            first_layers.push(layers);
            layers += l.layers;
        }
        Self {
            layer_size: (round(width.max(1)), round(height.max(1))),
            mips: cell.ilog2() + 1,
            layers,
            first_layers,
        }
    }

    /// Bytes on the GPU, every mip level included.
    pub fn bytes(&self) -> u64 {
        let (w, h) = self.layer_size;
        let texels: u64 = (0..self.mips)
            .map(|m| ((w >> m).max(1) as u64) * ((h >> m).max(1) as u64))
            .sum();
        texels * self.layers as u64 * TEXEL_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impostor::ImpostorOptions;

    fn layout(cell: u32, rows: usize, layers: u32) -> AtlasLayout {
        let o = ImpostorOptions::default();
        AtlasLayout {
            cell,
            yaws: o.yaws,
            elevations: vec![0.0; rows],
            clips: Vec::new(),
            layers,
            centre: glam::Vec3::ZERO,
            radius: 1.0,
            mesh_level: 0,
            first_index: 0,
            index_count: 0,
        }
    }

    #[test]
    fn models_follow_one_another_in_the_largest_layer() {
        let (a, b, c) = (layout(32, 5, 40), layout(32, 7, 16), layout(16, 15, 9));
        let plan = SceneAtlasPlan::plan(&[&a, &b, &c]);
        assert_eq!(plan.first_layers, vec![0, 40, 56]);
        assert_eq!(plan.layers, 65);
        // 12 × 32 wide; the tallest is c's 15 × 16 = 240, rounded up to
        // 8 × 32 so that each of the 6 levels halves exactly.
        assert_eq!(plan.layer_size, (384, 256));
        assert_eq!(plan.mips, 6);
        for m in 0..plan.mips {
            assert_eq!(plan.layer_size.0 % (1 << m), 0);
            assert_eq!(plan.layer_size.1 % (1 << m), 0);
        }
        // Each model's own levels fit its region of the shared layer.
        for l in [&a, &b, &c] {
            let (w, h) = l.layer_size();
            assert!(w <= plan.layer_size.0 && h <= plan.layer_size.1);
            assert!(l.mips() <= plan.mips);
        }
        // One model: its own atlas.
        let one = SceneAtlasPlan::plan(&[&a]);
        assert_eq!((one.layer_size, one.mips), (a.layer_size(), a.mips()));
        assert_eq!(one.bytes(), a.bytes());
    }
}
