//! The shadow casters the camera's cull pass lists: while it places every
//! instance for the camera, the pass also tests the instance's sphere
//! against each shadow cascade's box (the first test of a cascade's own
//! rule) and appends the instances inside any of them to a list at the end
//! of its arguments. The cascades' cull passes then go over that list
//! (dispatched indirectly) instead of the whole crowd: every instance they
//! skip is one their frustum test would have culled first, so they list
//! exactly what they listed before. In the herd's view of a million horses
//! the cascades' boxes hold a few per cent of the crowd.
//!
//! The gate is [`CasterGate::admits`], the CPU twin of `list_caster` in
//! shaders/cull.wgsl. It keeps a sphere a little outside a box
//! ([`gate_slack`]), so that a rounding difference between the camera's
//! and a cascade's compiled pass can never drop an instance the cascade
//! would keep; the cascade's own test then decides exactly.

use super::cull::{CULL_GROUP, frustum_planes, sphere_margin};
use super::instance::MAX_INSTANCES;
use super::shadow::MAX_CASCADES;
use glam::{Mat4, Vec3, Vec4};

/// The word (after the regions' arguments) counting the instances the
/// camera's pass listed for the cascades; the three after it are the
/// cascades' indirect dispatch (workgroups x, y, z). `CASTER_WORD` in
/// cull.wgsl.
pub const CASTER_WORD: u32 = 7;

/// The list's entries start this many words after the regions' arguments
/// (after every counter: `crowd::occlusion::COUNTER_WORDS`).
pub const CASTER_ENTRIES: u32 = CASTER_WORD + 4;

/// Storage buffers the cascades' pass over the list binds in the compute
/// stage with its parameters as a uniform (one more with them as storage):
/// the frame, the clip table, the crowd's five, its arguments and visible
/// list, and the camera's arguments.
pub const LISTED_STORAGE_BUFFERS: u32 = 10;

/// The views whose boxes the camera's pass can test: one per cascade.
pub const CASTER_VIEWS: usize = MAX_CASCADES;

// The cascades' dispatch is one row of workgroups: the pass adds one each
// time a CULL_GROUP-th instance is listed, and a row holds 65,535.
const _: () = assert!(MAX_INSTANCES.div_ceil(CULL_GROUP) <= 65_535);

/// How far outside a plane a sphere may be and still be listed: a
/// thousandth of a unit plus a ten-thousandth of the magnitudes summed (f32
/// rounding of the margin is about 1e-7 of them). The twin of `gate_slack`
/// in cull.wgsl.
pub fn gate_slack(plane: Vec4, centre: Vec3) -> f32 {
    1e-3 + 1e-4 * (plane.w.abs() + centre.abs().element_sum())
}

/// The cascades' boxes the camera's pass lists casters for: each one's
/// six planes, as the cascade's own parameters hold them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CasterGate {
    pub views: Vec<[Vec4; 6]>,
}

impl CasterGate {
    /// The gate of the cascades seen through `view_projs` (at most
    /// [`CASTER_VIEWS`]).
    pub fn new(view_projs: impl IntoIterator<Item = Mat4>) -> Self {
        Self {
            views: view_projs
                .into_iter()
                .take(CASTER_VIEWS)
                .map(frustum_planes)
                .collect(),
        }
    }

    /// Whether an instance with this world sphere is listed: it reaches
    /// inside every plane of some cascade's box, give or take the slack.
    /// A sphere far outside a box's bounding sphere ([`box_bound`]) is
    /// outside it without testing its planes: the shortcut the camera's
    /// pass takes, which lists the same instances.
    pub fn admits(&self, centre: Vec3, radius: f32) -> bool {
        self.views.iter().any(|planes| {
            near_bound(box_bound(planes), centre, radius) && inside_planes(planes, centre, radius)
        })
    }

    /// The planes as the cull parameters carry them (`caster_planes`),
    /// with the number of views.
    pub fn uniform_planes(&self) -> ([[f32; 4]; 6 * CASTER_VIEWS], u32) {
        let mut out = [[0.0; 4]; 6 * CASTER_VIEWS];
        for (v, planes) in self.views.iter().enumerate() {
            for (k, p) in planes.iter().enumerate() {
                out[v * 6 + k] = p.to_array();
            }
        }
        (out, self.views.len() as u32)
    }

    /// Each box's bound ([`box_bound`]) as the cull parameters carry them
    /// (`caster_bounds`).
    pub fn uniform_bounds(&self) -> [[f32; 4]; CASTER_VIEWS] {
        let mut out = [[0.0; 4]; CASTER_VIEWS];
        for (v, planes) in self.views.iter().enumerate() {
            out[v] = box_bound(planes).to_array();
        }
        out
    }

    /// True when a cascade whose planes are `planes` keeps nothing the
    /// gate drops: every sphere inside its box is admitted (tests).
    pub fn covers(&self, planes: &[Vec4; 6], centre: Vec3, radius: f32) -> bool {
        sphere_margin(planes, centre, radius) < 0.0 || self.admits(centre, radius)
    }
}

/// The gate's rule for one box: the sphere reaches inside every plane,
/// give or take the slack (the plane loop of `list_caster` in cull.wgsl).
fn inside_planes(planes: &[Vec4; 6], centre: Vec3, radius: f32) -> bool {
    planes
        .iter()
        .all(|&p| p.truncate().dot(centre) + p.w + radius + gate_slack(p, centre) >= 0.0)
}

/// The three planes that meet at a box's corner `k` (0..8): one of each
/// opposite pair, picked by `k`'s bits.
fn corner_planes(planes: &[Vec4; 6], k: usize) -> [Vec4; 3] {
    [
        planes[k & 1],
        planes[2 + (k >> 1 & 1)],
        planes[4 + (k >> 2 & 1)],
    ]
}

/// A box's bounding sphere for the gate: xyz its centre, w the distance
/// to its farthest corner plus the slack's part that does not depend on
/// the instance, doubled (`2e-3 + 2e-4 · max |w|`). The box is six planes
/// in opposite pairs (a cascade's orthographic view), and its corners
/// are where one plane of each pair meets.
pub fn box_bound(planes: &[Vec4; 6]) -> Vec4 {
    let mut corners = [Vec3::ZERO; 8];
    for (k, corner) in corners.iter_mut().enumerate() {
        *corner = meet(corner_planes(planes, k));
    }
    let centre = corners.iter().copied().sum::<Vec3>() / 8.0;
    let reach = corners
        .iter()
        .map(|c| c.distance(centre))
        .fold(0.0, f32::max);
    let w = planes.iter().map(|p| p.w.abs()).fold(0.0, f32::max);
    centre.extend(reach + 2e-3 + 2e-4 * w)
}

/// Whether a sphere may reach inside the box `bound` bounds, give or take
/// the slack: its centre within the bound's radius plus twice its own
/// radius and twice the slack's part that grows with the centre. A centre
/// the planes admit lies in the box grown by `radius + slack` on every
/// face, whose corners are at most √3 times that beyond the box's; twice
/// it leaves room for rounding. The twin of `near_bound` in cull.wgsl.
pub fn near_bound(bound: Vec4, centre: Vec3, radius: f32) -> bool {
    let reach = bound.w + 2.0 * radius + 2e-4 * centre.abs().element_sum();
    centre.distance_squared(bound.truncate()) <= reach * reach
}

/// Where three planes meet (the origin when two are parallel).
fn meet([a, b, c]: [Vec4; 3]) -> Vec3 {
    let (na, nb, nc) = (a.truncate(), b.truncate(), c.truncate());
    let det = na.dot(nb.cross(nc));
    if det.abs() < 1e-12 {
        return Vec3::ZERO;
    }
    -(a.w * nb.cross(nc) + b.w * nc.cross(na) + c.w * na.cross(nb)) / det
}

/// The arguments' words for the list's counter and the cascades' dispatch
/// before the camera's pass: nothing listed, no workgroups (x), one row
/// (y, z).
pub const CASTER_TEMPLATE: [u32; 4] = [0, 0, 1, 1];

/// The cascades' dispatch (workgroups x, y, z) over a list of `listed`
/// instances: a workgroup for each CULL_GROUP begun, in one row. The rule
/// the camera's pass follows adding a workgroup at every CULL_GROUP-th
/// instance it lists.
pub fn listed_dispatch(listed: u32) -> [u32; 3] {
    [listed.div_ceil(CULL_GROUP), 1, 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The box x, y in -10..10, z in -50..0 (an orthographic view down -z).
    fn gate() -> CasterGate {
        CasterGate::new([glam::camera::rh::proj::directx::orthographic(
            -10.0, 10.0, -10.0, 10.0, 0.0, 50.0,
        )])
    }

    #[test]
    fn a_workgroup_for_each_group_begun() {
        assert_eq!(listed_dispatch(0), [0, 1, 1]);
        assert_eq!(listed_dispatch(1), [1, 1, 1]);
        assert_eq!(listed_dispatch(CULL_GROUP), [1, 1, 1]);
        assert_eq!(listed_dispatch(CULL_GROUP + 1), [2, 1, 1]);
        assert_eq!(&listed_dispatch(0)[..], &CASTER_TEMPLATE[1..]);
    }

    #[test]
    fn inside_a_box_is_listed_and_far_outside_is_not() {
        let g = gate();
        assert!(g.admits(Vec3::new(0.0, 0.0, -5.0), 1.0));
        // Straddling the side at x = 10.
        assert!(g.admits(Vec3::new(10.5, 0.0, -5.0), 1.0));
        assert!(!g.admits(Vec3::new(12.0, 0.0, -5.0), 1.0));
        assert!(!g.admits(Vec3::new(0.0, 0.0, 40.0), 1.0));
    }

    #[test]
    fn the_slack_keeps_what_rounding_could_drop() {
        let g = gate();
        // Just outside by less than the slack: listed.
        assert!(g.admits(Vec3::new(11.0005, 0.0, -5.0), 1.0));
        // Outside by more: not.
        assert!(!g.admits(Vec3::new(11.01, 0.0, -5.0), 1.0));
        for x in [-11.0f32, -3.0, 0.0, 10.999, 11.0] {
            let planes = g.views[0];
            assert!(g.covers(&planes, Vec3::new(x, 0.0, -5.0), 1.0));
        }
    }

    #[test]
    fn the_bound_never_drops_what_the_planes_admit() {
        // Light-like views: the box above, one turned and far from the
        // origin, and a thin one; spheres from tiny to large, most near
        // the boxes' corners where the bound is tightest.
        let views = [
            glam::camera::rh::proj::directx::orthographic(-10.0, 10.0, -10.0, 10.0, 0.0, 50.0),
            glam::camera::rh::proj::directx::orthographic(-40.0, 40.0, -40.0, 40.0, 0.0, 300.0)
                * crate::crowd::shadow::light_rotation(Vec3::new(0.3, 0.8, -0.5))
                * Mat4::from_translation(Vec3::new(-900.0, -5.0, 1200.0)),
            glam::camera::rh::proj::directx::orthographic(-0.5, 0.5, -3.0, 3.0, 1.0, 2.0)
                * crate::crowd::shadow::light_rotation(Vec3::new(-0.7, 0.2, 0.1)),
        ];
        let mut rng = crate::crowd::rng::SplitMix64::new(7);
        let mut range = |lo: f32, hi: f32| lo + (hi - lo) * rng.next_f32();
        for vp in views {
            let g = CasterGate::new([vp]);
            let planes = g.views[0];
            let bound = box_bound(&planes);
            let inverse = vp.inverse();
            let (mut admitted, mut far_dropped) = (0, 0);
            for _ in 0..20_000 {
                let ndc = Vec3::new(range(-1.6, 1.6), range(-1.6, 1.6), range(-0.6, 1.6));
                let c = inverse.project_point3(ndc);
                let r = [1e-3, 0.05, 0.7, 4.0][(range(0.0, 4.0) as usize).min(3)] * bound.w / 10.0;
                let admits = inside_planes(&planes, c, r);
                assert!(
                    !admits || near_bound(bound, c, r),
                    "{c} (radius {r}) admitted by the planes, dropped by the bound {bound}"
                );
                assert_eq!(g.admits(c, r), admits);
                admitted += admits as u32;
                far_dropped += (!near_bound(bound, c, r)) as u32;
            }
            assert!(admitted > 1000, "{admitted} admitted");
            assert!(far_dropped > 1000, "the bound dropped only {far_dropped}");
            // Tiny spheres just beyond each corner, along its diagonal, that
            // the planes admit only by the slack: where the bound is
            // tightest.
            for k in 0..8 {
                let [a, b, c] = corner_planes(&planes, k);
                let corner = meet([a, b, c]);
                let out = -(a.truncate() + b.truncate() + c.truncate()) / 3f32.sqrt();
                for r in [0.0, 1e-5, 1e-3] {
                    let slack = [a, b, c]
                        .map(|p| gate_slack(p, corner))
                        .into_iter()
                        .fold(f32::MAX, f32::min);
                    let centre = corner + out * (3f32.sqrt() * (r + slack) * 0.999);
                    assert!(inside_planes(&planes, centre, r), "{centre} {r}");
                    assert!(
                        near_bound(bound, centre, r),
                        "{centre} (radius {r}) beyond a corner: dropped by the bound {bound}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_bound_is_the_box_corners() {
        let g = gate();
        let bound = box_bound(&g.views[0]);
        // The box -10..10 × -10..10 × -50..0: centre (0, 0, -25), corners
        // √(10² + 10² + 25²) away.
        assert!(
            bound.truncate().distance(Vec3::new(0.0, 0.0, -25.0)) < 1e-4,
            "{bound}"
        );
        let reach = (10f32 * 10.0 + 10.0 * 10.0 + 25.0 * 25.0).sqrt();
        assert!((bound.w - reach).abs() < 0.05, "{bound}");
        assert_eq!(g.uniform_bounds()[0], bound.to_array());
        assert_eq!(g.uniform_bounds()[1], [0.0; 4]);
    }

    #[test]
    fn no_views_list_nothing_and_planes_fill_in_order() {
        assert!(!CasterGate::default().admits(Vec3::ZERO, 1.0));
        let g = gate();
        let (planes, n) = g.uniform_planes();
        assert_eq!(n, 1);
        assert_eq!(planes[0], g.views[0][0].to_array());
        assert_eq!(planes[6], [0.0; 4]);
    }
}
