//! How a scene's impostor atlases share one pair of textures. A layer is
//! as wide as the widest model's and as tall as the tallest's (rounded up
//! to a multiple of the largest cell, so that every mip level halves
//! exactly), with as many mip levels as the largest cell needs. Each model
//! fills its own run of layers with its rows of cells, one strip of a
//! cell's height after another: row `r` of its atlas frame `f` is strip
//! `f × rows + r` of its run, so a model whose layer is shorter than the
//! shared one packs its frames across layers instead of leaving the rest
//! of each layer empty. A model alone is its own atlas (a strip per row, a
//! layer per frame). A model samples its cells where [`ModelPlace::place`]
//! (the twin of `atlas_place` in shaders/impostor_common.wgsl) puts them
//! and never reads below its own last level (a texel per cell), so what it
//! reads is what its own atlas holds, texel for texel.

use super::{AtlasLayout, TEXEL_BYTES};

/// Where one model's atlas lies in the scene's textures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelPlace {
    /// Its first layer.
    pub first_layer: u32,
    /// Its layers.
    pub layers: u32,
    /// Rows of its cells in a layer.
    pub strips: u32,
    /// Its rows of cells in an atlas frame, and its cell's side.
    pub rows: u32,
    pub cell: u32,
}

impl ModelPlace {
    fn new(layout: &AtlasLayout, first_layer: u32, layer_height: u32) -> Self {
        let rows = layout.elevations.len().max(1) as u32;
        let cell = layout.cell.max(1);
        let strips = (layer_height / cell).max(1);
        Self {
            first_layer,
            layers: (layout.layers * rows).div_ceil(strips),
            strips,
            rows,
            cell,
        }
    }

    /// Where row `row` of atlas frame `frame` lies: the layer, and the
    /// texel row its cells start at (column `c`'s cell starts `c × cell`
    /// texels across).
    pub fn place(&self, frame: u32, row: u32) -> (u32, u32) {
        let strip = frame * self.rows + row;
        (
            self.first_layer + strip / self.strips,
            strip % self.strips * self.cell,
        )
    }
}

/// Where each model's atlas lies in the scene's textures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneAtlasPlan {
    /// Texels of a layer.
    pub layer_size: (u32, u32),
    pub mips: u32,
    /// Every model's layers.
    pub layers: u32,
    /// Each model's place, in the order given.
    pub models: Vec<ModelPlace>,
}

impl SceneAtlasPlan {
    pub fn plan(layouts: &[&AtlasLayout]) -> Self {
        let cell = layouts.iter().map(|l| l.cell).max().unwrap_or(1).max(1);
        let round = |v: u32| v.max(1).div_ceil(cell) * cell;
        let width = layouts.iter().map(|l| l.layer_size().0).max().unwrap_or(1);
        let height = layouts.iter().map(|l| l.layer_size().1).max().unwrap_or(1);
        let layer_size = (round(width), round(height));
        let mut models = Vec::with_capacity(layouts.len());
        let mut layers = 0;
        for l in layouts {
            let place = ModelPlace::new(l, layers, layer_size.1);
            layers += place.layers;
            models.push(place);
        }
        Self {
            layer_size,
            mips: cell.ilog2() + 1,
            layers,
            models,
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
    use std::collections::HashSet;

    fn layout(cell: u32, rows: usize, layers: u32) -> AtlasLayout {
        crate::impostor::test_layout(cell, rows, layers)
    }

    #[test]
    fn the_layer_is_the_widest_and_tallest_rounded_to_the_largest_cell() {
        let (a, b, c) = (layout(32, 5, 40), layout(32, 7, 16), layout(16, 15, 9));
        let plan = SceneAtlasPlan::plan(&[&a, &b, &c]);
        // 12 × 32 wide; the tallest is c's 15 × 16 = 240, rounded up to
        // 8 × 32 so that each of the 6 levels halves exactly.
        assert_eq!(plan.layer_size, (384, 256));
        assert_eq!(plan.mips, 6);
        for m in 0..plan.mips {
            assert_eq!(plan.layer_size.0 % (1 << m), 0);
            assert_eq!(plan.layer_size.1 % (1 << m), 0);
        }
        // a's 5-row frames pack 8 strips a layer: 200 rows in 25 layers;
        // b's 7 rows 112 in 14; c's 15 rows of 16 texels, 16 a layer: 135
        // in 9, a frame across two layers where it falls so.
        let runs: Vec<_> = plan
            .models
            .iter()
            .map(|m| (m.first_layer, m.layers, m.strips))
            .collect();
        assert_eq!(runs, vec![(0, 25, 8), (25, 14, 8), (39, 9, 16)]);
        assert_eq!(plan.layers, 48);
        for l in [&a, &b, &c] {
            let (w, _) = l.layer_size();
            assert!(w <= plan.layer_size.0);
            assert!(l.mips() <= plan.mips);
        }
    }

    /// Every row of every frame of every model gets a strip of its own, in
    /// its model's run of layers and wholly inside the layer.
    #[test]
    fn every_row_of_every_frame_has_its_own_strip() {
        let layouts = [
            layout(32, 5, 44),
            layout(32, 7, 26),
            layout(16, 5, 13),
            layout(32, 5, 1),
        ];
        let refs: Vec<_> = layouts.iter().collect();
        let plan = SceneAtlasPlan::plan(&refs);
        let (w, h) = plan.layer_size;
        let mut taken = HashSet::new();
        for (l, m) in layouts.iter().zip(&plan.models) {
            let (lw, _) = l.layer_size();
            assert!(lw <= w);
            for f in 0..l.layers {
                for r in 0..l.elevations.len() as u32 {
                    let (layer, y) = m.place(f, r);
                    assert!(layer >= m.first_layer && layer < m.first_layer + m.layers);
                    assert!(y + l.cell <= h, "row {r} of frame {f} leaves the layer");
                    // Texel rows of the strip, each taken once.
                    for t in y..y + l.cell {
                        assert!(taken.insert((layer, t)), "layer {layer} row {t} twice");
                    }
                }
            }
        }
    }

    /// A horse's 5 rows and a bird's 7 pack where padding each layer to the
    /// tallest would waste two rows in seven of the horse's.
    #[test]
    fn shorter_layers_pack_instead_of_padding() {
        let (horse, bird) = (layout(32, 5, 44), layout(32, 7, 26));
        let plan = SceneAtlasPlan::plan(&[&horse, &bird]);
        assert_eq!(plan.layer_size, (384, 224));
        assert_eq!(plan.models[0].layers, 32); // 220 rows, 7 a layer
        assert_eq!(plan.models[1].layers, 26);
        let separate = horse.bytes() + bird.bytes();
        let padded = (44 + 26) * plan.bytes() / plan.layers as u64;
        assert!(plan.bytes() < padded);
        // Within a layer of the separate atlases' sum.
        assert!(plan.bytes() <= separate + plan.bytes() / plan.layers as u64);
    }

    #[test]
    fn one_model_is_its_own_atlas() {
        let a = layout(32, 5, 40);
        let one = SceneAtlasPlan::plan(&[&a]);
        assert_eq!((one.layer_size, one.mips), (a.layer_size(), a.mips()));
        assert_eq!(one.bytes(), a.bytes());
        assert_eq!(one.models[0].layers, 40);
        for f in 0..40 {
            for r in 0..5 {
                assert_eq!(one.models[0].place(f, r), (f, r * 32));
            }
        }
    }
}
