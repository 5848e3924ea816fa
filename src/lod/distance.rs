//! How far a level's surface is from the full mesh's, pose by pose.
//!
//! The measure is one-sided: for every vertex of the full mesh (every vertex
//! its triangles use), the distance to the nearest triangle of the level in
//! the same pose; the level's error is the worst over vertices and poses.
//!
//! For speed, each vertex looks only at a few candidate triangles: the
//! [`CANDIDATES`] level triangles nearest to it in the rest pose. A minimum
//! over a subset of the triangles is never below the minimum over all of
//! them, so the result is an upper bound on the exact one-sided distance
//! (and equals it whenever the nearest triangle in a pose is among the
//! candidates, which the tests check against a brute-force measure).

use super::frames::P3;
use glam::Vec3;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Level triangles each full-mesh vertex is measured against.
pub const CANDIDATES: usize = 16;

fn sub(a: P3, b: P3) -> P3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: P3, b: P3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a - b * t`, squared length.
fn len_sq_minus(a: P3, b: P3, t: f32) -> f32 {
    let d = [a[0] - b[0] * t, a[1] - b[1] * t, a[2] - b[2] * t];
    dot(d, d)
}

/// Squared distance from `p` to triangle `abc` (closest point by Voronoi
/// region, after Ericson, "Real-Time Collision Detection", 5.1.5), in
/// plain scalar arithmetic.
pub fn point_triangle_sq(p: P3, a: P3, b: P3, c: P3) -> f32 {
    let (ab, ac, ap) = (sub(b, a), sub(c, a), sub(p, a));
    let (d1, d2) = (dot(ab, ap), dot(ac, ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return dot(ap, ap);
    }
    let bp = sub(p, b);
    let (d3, d4) = (dot(ab, bp), dot(ac, bp));
    if d3 >= 0.0 && d4 <= d3 {
        return dot(bp, bp);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return len_sq_minus(ap, ab, d1 / (d1 - d3));
    }
    let cp = sub(p, c);
    let (d5, d6) = (dot(ab, cp), dot(ac, cp));
    if d6 >= 0.0 && d5 <= d6 {
        return dot(cp, cp);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return len_sq_minus(ap, ac, d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return len_sq_minus(bp, sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)));
    }
    let denom = va + vb + vc;
    if denom.abs() <= f32::MIN_POSITIVE {
        // A degenerate (zero-area) triangle that no edge test caught.
        return dot(ap, ap).min(dot(bp, bp)).min(dot(cp, cp));
    }
    let (v, w) = (vb / denom, vc / denom);
    let d = [
        ap[0] - ab[0] * v - ac[0] * w,
        ap[1] - ab[1] * v - ac[1] * w,
        ap[2] - ab[2] * v - ac[2] * w,
    ];
    dot(d, d)
}

/// For each full-mesh vertex a level does not use, the level triangles it
/// is measured against, nearest at rest first. Vertices the level uses are
/// corners of its triangles in every pose, so their distance is 0 and they
/// have no entry.
pub struct Candidates {
    /// (vertex, range in `triangles`).
    vertices: Vec<(u32, std::ops::Range<u32>)>,
    /// Triangle numbers in the level.
    triangles: Vec<u32>,
}

impl Candidates {
    /// The [`CANDIDATES`] level triangles nearest to each full-mesh vertex
    /// in the rest pose `rest`, found with a uniform grid.
    pub fn new(rest: &[P3], full: &[u32], level: &[u32]) -> Self {
        let mut used = vec![false; rest.len()];
        for &i in level {
            used[i as usize] = true;
        }
        let mut wanted = vec![false; rest.len()];
        for &i in full {
            wanted[i as usize] = !used[i as usize];
        }
        let grid = Grid::new(rest, level);
        let per_vertex: Vec<(u32, Vec<u32>)> = (0..rest.len() as u32)
            .into_par_iter()
            .filter(|&v| wanted[v as usize])
            .map_init(
                || vec![u32::MAX; level.len() / 3],
                |seen, v| (v, grid.nearest(rest, level, rest[v as usize], v, seen)),
            )
            .collect();
        let mut vertices = Vec::with_capacity(per_vertex.len());
        let mut triangles = Vec::new();
        for (v, list) in per_vertex {
            let start = triangles.len() as u32;
            triangles.extend(list);
            vertices.push((v, start..triangles.len() as u32));
        }
        Self {
            vertices,
            triangles,
        }
    }

    /// The worst, over the vertices and the poses, of the distance from a
    /// full-mesh vertex to its nearest candidate triangle, in the poses'
    /// units. `pose(i)` gives pose `i`'s positions.
    pub fn worst<'a>(
        &self,
        level: &[u32],
        poses: usize,
        pose: impl Fn(usize) -> &'a [P3] + Sync,
    ) -> f32 {
        // The worst so far, as f32 bits (ordered like the values, since
        // squared distances are never negative). A (vertex, pose) pair
        // stops scanning candidates once one is within it: that pair
        // cannot raise the worst, so the result is unchanged.
        let worst = AtomicU32::new(0);
        self.vertices.par_iter().for_each(|(v, range)| {
            let cands = &self.triangles[range.start as usize..range.end as usize];
            let mut mine = 0.0f32;
            for i in 0..poses {
                let p = pose(i);
                let x = p[*v as usize];
                let bar = mine.max(f32::from_bits(worst.load(Ordering::Relaxed)));
                let mut best = f32::INFINITY;
                for &t in cands {
                    let t = t as usize * 3;
                    let d = point_triangle_sq(
                        x,
                        p[level[t] as usize],
                        p[level[t + 1] as usize],
                        p[level[t + 2] as usize],
                    );
                    best = best.min(d);
                    if best <= bar {
                        break;
                    }
                }
                if best > mine {
                    mine = best;
                    worst.fetch_max(mine.to_bits(), Ordering::Relaxed);
                }
            }
        });
        f32::from_bits(worst.into_inner()).sqrt()
    }
}

/// Level triangles bucketed by the rest-pose cells their bounding boxes
/// overlap.
struct Grid {
    origin: Vec3,
    cell: f32,
    dims: [i32; 3],
    /// Per cell, a range of `items`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Grid {
    fn new(rest: &[P3], level: &[u32]) -> Self {
        let tris = level.len() / 3;
        let corner = |t: usize, k: usize| Vec3::from(rest[level[t * 3 + k] as usize]);
        let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for t in 0..tris {
            for k in 0..3 {
                lo = lo.min(corner(t, k));
                hi = hi.max(corner(t, k));
            }
        }
        if tris == 0 {
            (lo, hi) = (Vec3::ZERO, Vec3::ZERO);
        }
        // About two triangles per cell, at most 64 cells a side.
        let size = (hi - lo).max(Vec3::splat(1e-6));
        let cell = (size.x * size.y * size.z / (tris.max(1) as f32 * 0.5))
            .cbrt()
            .max(size.max_element() / 64.0);
        let dims = ((size / cell).floor().as_ivec3() + 1).to_array();
        let count = (dims[0] * dims[1] * dims[2]) as usize;
        let mut grid = Self {
            origin: lo,
            cell,
            dims,
            starts: vec![0; count + 1],
            items: Vec::new(),
        };
        // Two passes (count, then fill) into one flat list.
        let mut cells_of = Vec::with_capacity(tris);
        for t in 0..tris {
            let (a, b, c) = (corner(t, 0), corner(t, 1), corner(t, 2));
            let (l, h) = (grid.cell_of(a.min(b).min(c)), grid.cell_of(a.max(b).max(c)));
            cells_of.push((l, h));
            Self::cells(dims, l, h, |i| grid.starts[i + 1] += 1);
        }
        for i in 0..count {
            grid.starts[i + 1] += grid.starts[i];
        }
        let mut fill = grid.starts.clone();
        grid.items = vec![0; grid.starts[count] as usize];
        for (t, (l, h)) in cells_of.into_iter().enumerate() {
            let items = &mut grid.items;
            Self::cells(dims, l, h, |i| {
                items[fill[i] as usize] = t as u32;
                fill[i] += 1;
            });
        }
        grid
    }

    fn cell_of(&self, p: Vec3) -> [i32; 3] {
        let c = ((p - self.origin) / self.cell).floor().as_ivec3();
        [0, 1, 2].map(|k| c[k].clamp(0, self.dims[k] - 1))
    }

    fn cells(dims: [i32; 3], l: [i32; 3], h: [i32; 3], mut f: impl FnMut(usize)) {
        for z in l[2]..=h[2] {
            for y in l[1]..=h[1] {
                for x in l[0]..=h[0] {
                    f(((z * dims[1] + y) * dims[0] + x) as usize);
                }
            }
        }
    }

    /// The [`CANDIDATES`] triangles nearest to `p`, nearest first: rings of
    /// cells grow around `p` until the k-th nearest found is closer than
    /// anything outside the rings can be. `seen` (one slot per triangle)
    /// marks the triangles already measured for vertex `v`.
    fn nearest(&self, rest: &[P3], level: &[u32], p: P3, v: u32, seen: &mut [u32]) -> Vec<u32> {
        let mut found: Vec<(f32, u32)> = Vec::new();
        let home = self.cell_of(Vec3::from(p));
        let widest = *self.dims.iter().max().expect("three dimensions");
        for r in 0..=widest {
            let l = home.map(|c| c - r);
            let h = home.map(|c| c + r);
            let (cl, ch) = (
                l.map(|c| c.max(0)),
                [0, 1, 2].map(|k| h[k].min(self.dims[k] - 1)),
            );
            Self::cells(self.dims, cl, ch, |i| {
                // The cube's inner cells were visited by the smaller rings.
                let x = i as i32 % self.dims[0];
                let y = (i as i32 / self.dims[0]) % self.dims[1];
                let z = i as i32 / (self.dims[0] * self.dims[1]);
                let ring = (x - home[0])
                    .abs()
                    .max((y - home[1]).abs())
                    .max((z - home[2]).abs());
                if ring < r {
                    return;
                }
                for &t in &self.items[self.starts[i] as usize..self.starts[i + 1] as usize] {
                    if seen[t as usize] != v {
                        seen[t as usize] = v;
                        let k = t as usize * 3;
                        let d = point_triangle_sq(
                            p,
                            rest[level[k] as usize],
                            rest[level[k + 1] as usize],
                            rest[level[k + 2] as usize],
                        );
                        found.push((d, t));
                    }
                }
            });
            // Anything unseen overlaps no cell of the cube r cells around
            // home, so along some axis it is at least r cells from p (from
            // p's projection when p lies outside the grid, farther still).
            let reach = r as f32 * self.cell;
            if found.len() >= CANDIDATES {
                found.select_nth_unstable_by(CANDIDATES - 1, |a, b| a.0.total_cmp(&b.0));
                found.truncate(CANDIDATES);
                let kth = found.iter().map(|f| f.0).fold(0.0, f32::max);
                if kth <= reach * reach {
                    break;
                }
            }
        }
        found.sort_by(|a, b| a.0.total_cmp(&b.0));
        found.into_iter().map(|(_, t)| t).collect()
    }
}
