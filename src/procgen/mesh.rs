//! Mesh building: tubes lofted through cross-section rings, skinned to bone
//! chains with smooth falloff, painted per vertex, with smooth normals.
//!
//! A tube's rings are ellipses (optionally squarish) with separate extents
//! in front of and behind the ring centre, so one tube can model a deep
//! chest, a wedge-shaped head or an airfoil. Triangles are wound
//! counter-clockwise seen from outside, as glTF requires.

use std::f32::consts::TAU;

use glam::Vec3;

/// Skinned triangle mesh with per-vertex colour, ready for the glTF writer (glb.rs).
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    /// Linear RGBA.
    pub colors: Vec<[f32; 4]>,
    pub joints: Vec<[u16; 4]>,
    pub weights: Vec<[f32; 4]>,
    pub indices: Vec<u32>,
}

/// Up to four joint influences with weights summing to one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Influences {
    pub joints: [u16; 4],
    pub weights: [f32; 4],
}

impl Influences {
    /// Fully bound to one joint.
    pub fn single(joint: usize) -> Self {
        Self::from_pairs(&[(joint, 1.0)])
    }

    /// Merges duplicate joints, keeps the four heaviest (ties broken by joint
    /// index, so the result is deterministic) and normalises.
    pub fn from_pairs(pairs: &[(usize, f32)]) -> Self {
        let mut merged: Vec<(usize, f32)> = Vec::with_capacity(pairs.len());
        for &(joint, weight) in pairs {
            if weight <= 0.0 || !weight.is_finite() {
                continue;
            }
            match merged.iter_mut().find(|(j, _)| *j == joint) {
                Some((_, w)) => *w += weight,
                None => merged.push((joint, weight)),
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        merged.truncate(4);
        let total: f32 = merged.iter().map(|(_, w)| w).sum();
        let mut out = Self {
            joints: [0; 4],
            weights: [0.0; 4],
        };
        if merged.is_empty() || total <= 0.0 {
            out.weights[0] = 1.0;
            return out;
        }
        for (slot, (joint, weight)) in merged.iter().enumerate() {
            out.joints[slot] = u16::try_from(*joint).unwrap_or(0);
            out.weights[slot] = weight / total;
        }
        // Put the rounding residue on the heaviest weight so the sum is 1.
        let residue = 1.0 - out.weights.iter().sum::<f32>();
        out.weights[0] += residue;
        out
    }
}

/// A chain of bones as a polyline: joint `joints[i]` owns the segment from
/// `points[i]` to `points[i + 1]`. A vertex is projected onto the polyline
/// and blended between neighbouring bones within `blend` metres of a joint.
#[derive(Clone, Debug)]
pub struct Chain {
    joints: Vec<usize>,
    points: Vec<Vec3>,
    blend: f32,
}

impl Chain {
    /// `links` are `(joint, start of its segment)`; `end` closes the last one.
    pub fn new(links: &[(usize, Vec3)], end: Vec3, blend: f32) -> Self {
        Self {
            joints: links.iter().map(|&(j, _)| j).collect(),
            points: links.iter().map(|&(_, p)| p).chain([end]).collect(),
            blend,
        }
    }

    pub fn influences(&self, p: Vec3) -> Influences {
        let lengths: Vec<f32> = self
            .points
            .windows(2)
            .map(|w| w[0].distance(w[1]))
            .collect();
        // Arc length of the closest point on the polyline.
        let mut best = (f32::MAX, 0.0);
        let mut start = 0.0;
        for (w, &len) in self.points.windows(2).zip(&lengths) {
            let d = w[1] - w[0];
            let t = if len > 0.0 {
                ((p - w[0]).dot(d) / (len * len)).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let dist = p.distance(w[0] + d * t);
            if dist < best.0 - 1e-6 {
                best = (dist, start + t * len);
            }
            start += len;
        }
        let s = best.1;
        let mut pairs = Vec::with_capacity(self.joints.len());
        let mut seg_start = 0.0;
        for (i, &joint) in self.joints.iter().enumerate() {
            let len = lengths.get(i).copied().unwrap_or(0.0);
            let seg_end = seg_start + len;
            let rise = if i == 0 {
                1.0
            } else {
                let b = self.boundary_blend(&lengths, i);
                smoothstep(seg_start - b, seg_start + b, s)
            };
            let fall = if i + 1 == self.joints.len() {
                1.0
            } else {
                let b = self.boundary_blend(&lengths, i + 1);
                1.0 - smoothstep(seg_end - b, seg_end + b, s)
            };
            pairs.push((joint, rise * fall));
            seg_start = seg_end;
        }
        Influences::from_pairs(&pairs)
    }

    /// Half-width of the blend zone at the joint between segments k-1 and k.
    fn boundary_blend(&self, lengths: &[f32], k: usize) -> f32 {
        let before = lengths.get(k - 1).copied().unwrap_or(0.0);
        let after = lengths.get(k).copied().unwrap_or(0.0);
        self.blend.min(0.45 * before).min(0.45 * after).max(1e-4)
    }
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A cross-section placed along a path: `side` is the half-width along the
/// side axis, `front` / `back` the extents along and against the front axis.
#[derive(Clone, Copy, Debug)]
pub struct Station {
    pub at: Vec3,
    pub side: f32,
    pub front: f32,
    pub back: f32,
}

impl Station {
    pub const fn new(at: Vec3, side: f32, front: f32, back: f32) -> Self {
        Self {
            at,
            side,
            front,
            back,
        }
    }
}

/// Inserts `steps - 1` Catmull-Rom interpolated stations between each pair,
/// for smoother silhouettes from a few hand-placed stations.
pub fn refine(stations: &[Station], steps: usize) -> Vec<Station> {
    let n = stations.len();
    if n < 2 || steps < 2 {
        return stations.to_vec();
    }
    let get = |i: isize| stations[i.clamp(0, n as isize - 1) as usize];
    let mut out = Vec::with_capacity((n - 1) * steps + 1);
    for i in 0..n - 1 {
        let (p0, p1, p2, p3) = (
            get(i as isize - 1),
            get(i as isize),
            get(i as isize + 1),
            get(i as isize + 2),
        );
        for k in 0..steps {
            let t = k as f32 / steps as f32;
            let cr = |a: f32, b: f32, c: f32, d: f32| {
                let t2 = t * t;
                let t3 = t2 * t;
                0.5 * (2.0 * b
                    + (c - a) * t
                    + (2.0 * a - 5.0 * b + 4.0 * c - d) * t2
                    + (3.0 * b - a - 3.0 * c + d) * t3)
            };
            let at = Vec3::new(
                cr(p0.at.x, p1.at.x, p2.at.x, p3.at.x),
                cr(p0.at.y, p1.at.y, p2.at.y, p3.at.y),
                cr(p0.at.z, p1.at.z, p2.at.z, p3.at.z),
            );
            let size = |f: fn(&Station) -> f32| {
                cr(f(&p0), f(&p1), f(&p2), f(&p3)).max(0.25 * f(&p1).min(f(&p2)))
            };
            out.push(Station::new(
                at,
                size(|s| s.side),
                size(|s| s.front),
                size(|s| s.back),
            ));
        }
    }
    out.push(stations[n - 1]);
    out
}

/// A positioned cross-section. `side_axis × front_axis` is the tube direction.
#[derive(Clone, Copy, Debug)]
pub struct Ring {
    pub center: Vec3,
    pub side_axis: Vec3,
    pub front_axis: Vec3,
    pub side: f32,
    pub front: f32,
    pub back: f32,
}

/// Rings through `stations`, perpendicular to the path, with the side axis
/// as close to `side_hint` as the path allows.
pub fn sweep(stations: &[Station], side_hint: Vec3) -> Vec<Ring> {
    let n = stations.len();
    (0..n)
        .map(|i| {
            let prev = stations[i.saturating_sub(1)].at;
            let next = stations[(i + 1).min(n - 1)].at;
            let tangent = (next - prev).normalize_or(Vec3::Z);
            let side_axis = (side_hint - tangent * side_hint.dot(tangent)).normalize_or(Vec3::X);
            let s = stations[i];
            Ring {
                center: s.at,
                side_axis,
                front_axis: tangent.cross(side_axis),
                side: s.side,
                front: s.front,
                back: s.back,
            }
        })
        .collect()
}

/// How a tube end is closed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cap {
    /// A pole this far beyond the end ring, sharing the ring's vertices.
    Round(f32),
    /// A flat disc with its own vertices (a crisp edge, e.g. a hoof sole).
    Flat,
}

/// A tube through `rings` with `segments` vertices per ring.
#[derive(Clone, Copy, Debug)]
pub struct Tube<'a> {
    pub rings: &'a [Ring],
    pub segments: usize,
    pub start: Cap,
    pub end: Cap,
    /// 1 is an ellipse; smaller values square the section off.
    pub roundness: f32,
}

/// What a paint function knows about a vertex.
#[derive(Clone, Copy, Debug)]
pub struct Surf {
    pub pos: Vec3,
    /// Unit direction from the ring centre (rest pose).
    pub outward: Vec3,
    /// 0 at the first ring, 1 at the last.
    pub along: f32,
}

/// Accumulates tubes into one [`Mesh`].
#[derive(Default)]
pub struct MeshBuilder {
    mesh: Mesh,
}

impl MeshBuilder {
    fn push(
        &mut self,
        pos: Vec3,
        outward: Vec3,
        along: f32,
        skin: &dyn Fn(Vec3) -> Influences,
        paint: &dyn Fn(&Surf) -> [f32; 3],
    ) -> u32 {
        let inf = skin(pos);
        let [r, g, b] = paint(&Surf {
            pos,
            outward,
            along,
        });
        self.mesh.positions.push(pos);
        self.mesh.normals.push(outward);
        self.mesh
            .colors
            .push([srgb_to_linear(r), srgb_to_linear(g), srgb_to_linear(b), 1.0]);
        self.mesh.joints.push(inf.joints);
        self.mesh.weights.push(inf.weights);
        u32::try_from(self.mesh.positions.len() - 1).unwrap_or(u32::MAX)
    }

    /// Adds a closed or open tube, skinning each vertex with `skin` and
    /// colouring it with `paint` (sRGB in, stored linear).
    pub fn tube(
        &mut self,
        tube: &Tube,
        skin: &dyn Fn(Vec3) -> Influences,
        paint: &dyn Fn(&Surf) -> [f32; 3],
    ) {
        let segs = tube.segments.max(3);
        let n = tube.rings.len();
        if n < 2 {
            return;
        }
        let e = tube.roundness.clamp(0.2, 1.0);
        let mut grid: Vec<Vec<u32>> = Vec::with_capacity(n);
        for (i, ring) in tube.rings.iter().enumerate() {
            let along = i as f32 / (n - 1) as f32;
            let row = (0..segs)
                .map(|j| {
                    let phi = TAU * j as f32 / segs as f32;
                    let (s, c) = phi.sin_cos();
                    let (s, c) = (s.signum() * s.abs().powf(e), c.signum() * c.abs().powf(e));
                    let reach = if s >= 0.0 { ring.front } else { ring.back };
                    let offset = ring.side_axis * (ring.side * c) + ring.front_axis * (reach * s);
                    let outward =
                        (ring.side_axis * c + ring.front_axis * s).normalize_or(ring.side_axis);
                    self.push(ring.center + offset, outward, along, skin, paint)
                })
                .collect();
            grid.push(row);
        }
        for i in 0..n - 1 {
            for j in 0..segs {
                let k = (j + 1) % segs;
                let (a, b, c, d) = (grid[i][j], grid[i][k], grid[i + 1][k], grid[i + 1][j]);
                self.mesh.indices.extend_from_slice(&[a, b, c, a, c, d]);
            }
        }
        self.cap(tube.rings[0], &grid[0], tube.start, false, 0.0, skin, paint);
        self.cap(
            tube.rings[n - 1],
            &grid[n - 1],
            tube.end,
            true,
            1.0,
            skin,
            paint,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn cap(
        &mut self,
        ring: Ring,
        row: &[u32],
        cap: Cap,
        at_end: bool,
        along: f32,
        skin: &dyn Fn(Vec3) -> Influences,
        paint: &dyn Fn(&Surf) -> [f32; 3],
    ) {
        let dir = ring.side_axis.cross(ring.front_axis) * if at_end { 1.0 } else { -1.0 };
        let (pole_at, rim): (Vec3, Vec<u32>) = match cap {
            Cap::Round(offset) => (ring.center + dir * offset, row.to_vec()),
            Cap::Flat => {
                let rim = row
                    .iter()
                    .map(|&v| {
                        let p = self.mesh.positions[v as usize];
                        self.push(p, dir, along, skin, paint)
                    })
                    .collect();
                (ring.center, rim)
            }
        };
        let pole = self.push(pole_at, dir, along, skin, paint);
        let segs = rim.len();
        for j in 0..segs {
            let k = (j + 1) % segs;
            if at_end {
                self.mesh.indices.extend_from_slice(&[pole, rim[j], rim[k]]);
            } else {
                self.mesh.indices.extend_from_slice(&[pole, rim[k], rim[j]]);
            }
        }
    }

    /// Computes area-weighted smooth normals and returns the mesh.
    pub fn finish(mut self) -> Mesh {
        let mut acc = vec![Vec3::ZERO; self.mesh.positions.len()];
        for tri in self.mesh.indices.chunks_exact(3) {
            let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
            let p = &self.mesh.positions;
            let n = (p[b] - p[a]).cross(p[c] - p[a]);
            for v in [a, b, c] {
                acc[v] += n;
            }
        }
        for (normal, sum) in self.mesh.normals.iter_mut().zip(acc) {
            // Fall back to the analytic outward direction on degenerate fans.
            *normal = sum.try_normalize().unwrap_or(*normal).normalize_or(Vec3::Y);
        }
        self.mesh
    }
}

fn srgb_to_linear(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}
