//! A bounding sphere against a view's planes: the frustum's six planes of
//! a view-projection, the sphere's margin inside them, and whether a
//! sphere swept along the light can reach them (the CPU side of
//! `cull_instance`'s frustum and receivers tests in cull.wgsl).

use glam::{Mat4, Vec3, Vec4};

/// The six planes of `view_proj` (clip space with depth 0..1, the renderer's convention), normalized.
pub fn frustum_planes(view_proj: Mat4) -> [Vec4; 6] {
    let r0 = view_proj.row(0);
    let r1 = view_proj.row(1);
    let r2 = view_proj.row(2);
    let r3 = view_proj.row(3);
    [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2].map(|p| {
        let len = p.truncate().length();
        if len > 0.0 { p / len } else { p }
    })
}

/// The sphere's signed margin against the worst plane: `>= 0` inside or
/// straddling, `< 0` wholly outside one plane.
pub fn sphere_margin(planes: &[Vec4; 6], centre: Vec3, radius: f32) -> f32 {
    planes
        .iter()
        .map(|p| p.truncate().dot(centre) + p.w + radius)
        .fold(f32::INFINITY, f32::min)
}

/// Whether the sphere swept from `centre` along `sweep` (unit; to
/// infinity, or `length` world units) can reach the inside of `planes`:
/// false when it starts and ends wholly outside one plane.
pub fn sweep_reaches(
    planes: &[Vec4; 6],
    centre: Vec3,
    radius: f32,
    sweep: Vec3,
    length: Option<f32>,
) -> bool {
    planes.iter().all(|p| {
        let n = p.truncate();
        let start = n.dot(centre) + p.w + radius;
        match length {
            Some(l) => start >= 0.0 || start + n.dot(sweep) * l >= 0.0,
            None => start >= 0.0 || n.dot(sweep) > 0.0,
        }
    })
}

/// How far a sphere at `centre` travels along `sweep` (unit) before it is
/// wholly below `ground`; `None` when it never goes down (the sweep is
/// then unbounded). The twin of `sweep_length` in cull.wgsl.
pub fn sweep_length(centre: Vec3, radius: f32, sweep: Vec3, ground: f32) -> Option<f32> {
    (sweep.y < -1e-4).then(|| ((centre.y + radius - ground) / -sweep.y).max(0.0))
}
