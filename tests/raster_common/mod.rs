//! A small CPU rasterizer the impostor tests measure the atlas against: the
//! share of the four standard MSAA samples each texel of a square cell
//! covers, and the nearest depth there.
#![allow(dead_code)]

use glam::Vec3;

/// The standard 4× MSAA sample positions, in texels from the centre.
pub const SAMPLES: [(f32, f32); 4] = [
    (-0.125, -0.375),
    (0.375, -0.125),
    (-0.375, 0.125),
    (0.125, 0.375),
];

/// A projected point (x, y in -1..1, y up) in texels of a `cell`² square
/// (rows down), its depth kept.
fn to_texel(q: Vec3, cell: u32) -> Vec3 {
    Vec3::new(
        (q.x * 0.5 + 0.5) * cell as f32,
        (0.5 - q.y * 0.5) * cell as f32,
        q.z,
    )
}

/// Rasterizes `triangles` into a `cell`² square: `project` takes a point to
/// x, y in -1..1 across the cell (y up) and a depth z. Per texel: the share
/// of samples covered and the mean over them of the nearest depth;
/// `cull_back` drops the triangles that face away (clockwise on screen),
/// as the GPU does for a model that is not double-sided.
pub fn rasterize(
    triangles: &[[Vec3; 3]],
    project: impl Fn(Vec3) -> Vec3,
    cell: u32,
    cull_back: bool,
) -> Vec<(f32, Option<f32>)> {
    let mut depth = vec![[f32::INFINITY; 4]; (cell * cell) as usize];
    for t in triangles {
        let [a, b, c] = t.map(|p| to_texel(project(p), cell));
        let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        // Texel rows run down: a counter-clockwise triangle on screen has
        // a negative area here.
        if area.abs() < 1e-9 || (cull_back && area > 0.0) {
            continue;
        }
        let lo = |v: f32| (v.floor() - 1.0).clamp(0.0, cell as f32) as u32;
        let hi = |v: f32| (v.ceil() + 1.0).clamp(0.0, cell as f32) as u32;
        for y in lo(a.y.min(b.y).min(c.y))..hi(a.y.max(b.y).max(c.y)) {
            for x in lo(a.x.min(b.x).min(c.x))..hi(a.x.max(b.x).max(c.x)) {
                for (s, (dx, dy)) in SAMPLES.iter().enumerate() {
                    let (px, py) = (x as f32 + 0.5 + dx, y as f32 + 0.5 + dy);
                    let w0 = ((b.x - px) * (c.y - py) - (b.y - py) * (c.x - px)) / area;
                    let w1 = ((c.x - px) * (a.y - py) - (c.y - py) * (a.x - px)) / area;
                    let w2 = 1.0 - w0 - w1;
                    if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                        continue;
                    }
                    let z = w0 * a.z + w1 * b.z + w2 * c.z;
                    let slot = &mut depth[(y * cell + x) as usize][s];
                    *slot = slot.min(z);
                }
            }
        }
    }
    depth
        .iter()
        .map(|d| {
            let covered: Vec<f32> = d.iter().copied().filter(|z| z.is_finite()).collect();
            let mean =
                (!covered.is_empty()).then(|| covered.iter().sum::<f32>() / covered.len() as f32);
            (covered.len() as f32 / 4.0, mean)
        })
        .collect()
}

/// The triangle nearest under a texel's centre: its index, the centre's
/// barycentric weights and whether it faces away.
pub type Nearest = (usize, [f32; 3], bool);

/// Per texel of a `cell`² square (as [`rasterize`] projects): the nearest
/// triangle under the texel's centre and the centre's barycentric weights
/// in it, and whether it faces away (clockwise on screen; dropped with
/// `cull_back`).
pub fn nearest_at_centres(
    triangles: &[[Vec3; 3]],
    project: impl Fn(Vec3) -> Vec3,
    cell: u32,
    cull_back: bool,
) -> Vec<Option<Nearest>> {
    // The depth beside each nearest.
    let mut out: Vec<Option<(f32, Nearest)>> = vec![None; (cell * cell) as usize];
    for (i, t) in triangles.iter().enumerate() {
        let [a, b, c] = t.map(|p| to_texel(project(p), cell));
        let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        if area.abs() < 1e-9 || (cull_back && area > 0.0) {
            continue;
        }
        let lo = |v: f32| (v.floor() - 1.0).clamp(0.0, cell as f32) as u32;
        let hi = |v: f32| (v.ceil() + 1.0).clamp(0.0, cell as f32) as u32;
        for y in lo(a.y.min(b.y).min(c.y))..hi(a.y.max(b.y).max(c.y)) {
            for x in lo(a.x.min(b.x).min(c.x))..hi(a.x.max(b.x).max(c.x)) {
                let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
                let w0 = ((b.x - px) * (c.y - py) - (b.y - py) * (c.x - px)) / area;
                let w1 = ((c.x - px) * (a.y - py) - (c.y - py) * (a.x - px)) / area;
                let w2 = 1.0 - w0 - w1;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let z = w0 * a.z + w1 * b.z + w2 * c.z;
                let slot = &mut out[(y * cell + x) as usize];
                if slot.is_none_or(|(d, _)| z < d) {
                    *slot = Some((z, (i, [w0, w1, w2], area > 0.0)));
                }
            }
        }
    }
    out.into_iter().map(|s| s.map(|(_, n)| n)).collect()
}
