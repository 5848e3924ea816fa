//! Each atlas cell's bounds, and the quad an impostor draws for them: the
//! texels of a cell that any atlas frame covers (the twin of
//! shaders/impostor_bounds.wgsl), and how far the quad reaches beyond them
//! so that the mip level an impostor reads, whose texels spread coverage
//! past the covered texels, is never cut (the twin of `impostor_span` in
//! shaders/impostor.wgsl). Tight quads cost no fragments where every frame
//! of a cell is empty; with every cell's bounds its whole cell
//! ([`full_bounds`]) the quads are the sphere's squares, as before.

use super::AtlasLayout;

/// A cell's covered texels: (first x, first y, last x + 1, last y + 1)
/// within the cell, x to the right and y down; `[cell, cell, 0, 0]` when
/// no frame covers any.
pub type CellBounds = [u32; 4];

/// Nothing covered yet (what the GPU's bounds start from).
pub fn empty_bounds(layout: &AtlasLayout) -> Vec<CellBounds> {
    vec![[layout.cell, layout.cell, 0, 0]; layout.cells() as usize]
}

/// Every cell whole: the quads of the sphere's squares.
pub fn full_bounds(layout: &AtlasLayout) -> Vec<CellBounds> {
    vec![[0, 0, layout.cell, layout.cell]; layout.cells() as usize]
}

/// The bounds of every cell over the frames' coverage: `coverage(layer,
/// x, y)` of the model's own atlas (a layer per frame, its rows of cells
/// one under another) is above zero where the atlas covers the texel.
pub fn cell_bounds(
    layout: &AtlasLayout,
    coverage: impl Fn(u32, u32, u32) -> bool,
) -> Vec<CellBounds> {
    let mut bounds = empty_bounds(layout);
    let rows = layout.elevations.len() as u32;
    for layer in 0..layout.layers {
        for row in 0..rows {
            for column in 0..layout.yaws {
                let b = &mut bounds[(row * layout.yaws + column) as usize];
                for y in 0..layout.cell {
                    for x in 0..layout.cell {
                        let (tx, ty) = (column * layout.cell + x, row * layout.cell + y);
                        if coverage(layer, tx, ty) {
                            *b = [b[0].min(x), b[1].min(y), b[2].max(x + 1), b[3].max(y + 1)];
                        }
                    }
                }
            }
        }
    }
    bounds
}

/// Workgroup side of the bounds pass: invocation (x, y) of a cell reads
/// the texels x, y modulo it.
const BOUNDS_GROUP: u32 = 8;

/// A model's colour sums for the splat level (the twin of the sums in
/// shaders/impostor_bounds.wgsl): over every cell of every frame, the
/// cell's mean premultiplied albedo (red, green, blue) and coverage in
/// 1/`STAT_ONE` units, each invocation's share of a cell rounded as the
/// GPU rounds it. `texel(layer, x, y)` is the atlas's linear RGBA.
pub fn atlas_sums(layout: &AtlasLayout, texel: impl Fn(u32, u32, u32) -> [f32; 4]) -> [u32; 4] {
    use crate::crowd::splat::STAT_ONE;
    let mut sums = [0u32; 4];
    let rows = layout.elevations.len() as u32;
    let area = (layout.cell * layout.cell) as f32;
    for layer in 0..layout.layers {
        for row in 0..rows {
            for column in 0..layout.yaws {
                for (lx, ly) in
                    (0..BOUNDS_GROUP).flat_map(|y| (0..BOUNDS_GROUP).map(move |x| (x, y)))
                {
                    let mut share = [0.0f32; 4];
                    for y in (ly..layout.cell).step_by(BOUNDS_GROUP as usize) {
                        for x in (lx..layout.cell).step_by(BOUNDS_GROUP as usize) {
                            let t = texel(layer, column * layout.cell + x, row * layout.cell + y);
                            for c in 0..4 {
                                share[c] += t[c];
                            }
                        }
                    }
                    for c in 0..4 {
                        sums[c] += (share[c] * STAT_ONE / area).round() as u32;
                    }
                }
            }
        }
    }
    sums
}

/// The part of its cell an impostor's quad covers, as (u0, v0, u1, v1)
/// in 0..1 of the cell: the bounds widened by what the mip level read at
/// `footprint` (atlas texels per pixel) spreads, two of its texels (a
/// bilinear tap reaches 1.5), clamped to the cell. An empty cell gives an
/// empty span. The twin of `impostor_span` in shaders/impostor.wgsl.
pub fn quad_span(bounds: CellBounds, cell: u32, footprint: f32) -> [f32; 4] {
    let cell = cell as f32;
    if bounds[2] <= bounds[0] || bounds[3] <= bounds[1] {
        return [0.5; 4];
    }
    let lod = (footprint.max(1e-6).log2() - 0.5).clamp(0.0, cell.log2());
    let margin = 2.0 * lod.ceil().exp2();
    let lo = |b: u32| ((b as f32 - margin) / cell).clamp(0.0, 1.0);
    let hi = |b: u32| ((b as f32 + margin) / cell).clamp(0.0, 1.0);
    [lo(bounds[0]), lo(bounds[1]), hi(bounds[2]), hi(bounds[3])]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two yaws × two elevations of 16² cells, two frames.
    fn layout() -> AtlasLayout {
        AtlasLayout {
            yaws: 2,
            ..crate::impostor::test_layout(16, 2, 2)
        }
    }

    #[test]
    fn a_cells_bounds_are_the_union_of_its_frames() {
        let l = layout();
        // Cell (column 1, row 0): texel (3, 4) in frame 0, (9, 2) in frame
        // 1; cell (0, 1): texel (0, 15); the rest empty.
        let covered = |layer: u32, x: u32, y: u32| {
            matches!((layer, x, y), (0, 19, 4) | (1, 25, 2) | (1, 0, 31))
        };
        let b = cell_bounds(&l, covered);
        assert_eq!(b[1], [3, 2, 10, 5]);
        assert_eq!(b[2], [0, 15, 1, 16]);
        assert_eq!(b[0], [16, 16, 0, 0]);
        assert_eq!(quad_span(b[0], 16, 1.0), [0.5; 4], "empty: no quad");
    }

    #[test]
    fn a_full_cell_spans_its_whole_quad_and_a_mip_widens_the_span() {
        let full = full_bounds(&layout())[0];
        for footprint in [0.1, 1.0, 7.0, 100.0] {
            assert_eq!(quad_span(full, 16, footprint), [0.0, 0.0, 1.0, 1.0]);
        }
        let b = [6, 6, 10, 10];
        // Level 0 (a texel per pixel or more): two texels around.
        assert_eq!(
            quad_span(b, 16, 1.0),
            [4.0 / 16.0, 4.0 / 16.0, 12.0 / 16.0, 12.0 / 16.0]
        );
        // Level 2 (4-texel mip texels): eight around, clamped to the cell.
        assert_eq!(quad_span(b, 16, 8.0), [0.0, 0.0, 1.0, 1.0]);
        let near = quad_span(b, 16, 0.5);
        let far = quad_span(b, 16, 3.0);
        assert!(far[0] < near[0] && far[2] > near[2], "{near:?} {far:?}");
    }
}
