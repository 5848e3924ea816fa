//! The horse: skeleton, skinned and painted geometry, and the assembled asset.
//!
//! Model space is glTF's: +Y up, the horse faces +Z, its left side is +X,
//! hooves on y = 0 at rest, units in metres (about 1.6 m at the withers).

use glam::{Vec3, vec3};

use super::mesh::{Cap, Chain, Influences, Mesh, MeshBuilder, Ring, Station, Tube, refine, sweep};
use super::skeleton::Skeleton;

/// Joints of one leg from the body down, plus the rest position of the toe
/// (the front of the hoof sole, which stays planted during stance).
#[derive(Clone, Copy, Debug)]
pub struct Leg {
    pub upper: usize,
    pub lower: usize,
    pub cannon: usize,
    pub hoof: usize,
    pub toe: Vec3,
    pub front: bool,
    /// +1 for the left legs (+X), -1 for the right.
    pub side: f32,
}

/// The horse skeleton with named handles on the joints the gaits drive.
#[derive(Clone, Debug)]
pub struct HorseRig {
    pub skeleton: Skeleton,
    pub hips: usize,
    pub spine1: usize,
    pub spine2: usize,
    pub neck1: usize,
    pub neck2: usize,
    pub head: usize,
    pub tail: [usize; 3],
    /// Left fore, right fore, left hind, right hind.
    pub legs: [Leg; 4],
}

const LEG_X: f32 = 0.19;
/// Rest joint positions of a left foreleg: shoulder pivot, elbow, knee, fetlock.
const FORE: [Vec3; 4] = [
    vec3(LEG_X - 0.02, 1.40, 0.44),
    vec3(LEG_X, 0.86, 0.30),
    vec3(LEG_X, 0.50, 0.42),
    vec3(LEG_X, 0.19, 0.41),
];
/// Rest joint positions of a left hind leg: hip, stifle, hock, fetlock.
const HIND: [Vec3; 4] = [
    vec3(LEG_X, 1.22, -0.56),
    vec3(LEG_X, 0.86, -0.36),
    vec3(LEG_X, 0.55, -0.65),
    vec3(LEG_X, 0.19, -0.63),
];
/// Hoof sole: centre of the ground ring relative to the fetlock, and toe reach.
const HOOF_SOLE_Z: f32 = 0.065;
const FORE_SOLE_Z: f32 = 0.465;
const HIND_SOLE_Z: f32 = -0.555;

const POLL: Vec3 = vec3(0.0, 1.84, 1.04);
const MUZZLE: Vec3 = vec3(0.0, 1.33, 1.42);
const TAIL_END: Vec3 = vec3(0.0, 0.60, -1.03);

impl HorseRig {
    pub fn new() -> Self {
        let mut s = Skeleton::default();
        let hips = s.add("Hips", None, vec3(0.0, 1.22, -0.50));
        let spine1 = s.add("Spine1", Some(hips), vec3(0.0, 1.26, -0.05));
        let spine2 = s.add("Spine2", Some(spine1), vec3(0.0, 1.30, 0.36));
        let neck1 = s.add("Neck1", Some(spine2), vec3(0.0, 1.30, 0.52));
        let neck2 = s.add("Neck2", Some(neck1), vec3(0.0, 1.58, 0.80));
        let head = s.add("Head", Some(neck2), POLL);
        let tail1 = s.add("Tail1", Some(hips), vec3(0.0, 1.47, -0.86));
        let tail2 = s.add("Tail2", Some(tail1), vec3(0.0, 1.30, -0.99));
        let tail3 = s.add("Tail3", Some(tail2), vec3(0.0, 1.00, -1.05));
        let mut leg = |name: &str, parent: usize, joints: [Vec3; 4], side: f32, front: bool| {
            let at = |p: Vec3| vec3(p.x * side, p.y, p.z);
            let upper = s.add(&format!("{name}Upper"), Some(parent), at(joints[0]));
            let lower = s.add(&format!("{name}Lower"), Some(upper), at(joints[1]));
            let cannon = s.add(&format!("{name}Cannon"), Some(lower), at(joints[2]));
            let hoof = s.add(&format!("{name}Hoof"), Some(cannon), at(joints[3]));
            let sole = if front { FORE_SOLE_Z } else { HIND_SOLE_Z };
            Leg {
                upper,
                lower,
                cannon,
                hoof,
                toe: vec3(LEG_X * side, 0.0, sole + HOOF_SOLE_Z),
                front,
                side,
            }
        };
        let legs = [
            leg("FrontLeft", spine2, FORE, 1.0, true),
            leg("FrontRight", spine2, FORE, -1.0, true),
            leg("HindLeft", hips, HIND, 1.0, false),
            leg("HindRight", hips, HIND, -1.0, false),
        ];
        Self {
            skeleton: s,
            hips,
            spine1,
            spine2,
            neck1,
            neck2,
            head,
            tail: [tail1, tail2, tail3],
            legs,
        }
    }

    fn pos(&self, joint: usize) -> Vec3 {
        self.skeleton.rest_position(joint)
    }
}

impl Default for HorseRig {
    fn default() -> Self {
        Self::new()
    }
}

// Colours (sRGB): a bay with black points.
const COAT: [f32; 3] = [0.56, 0.31, 0.15];
const COAT_DARK: [f32; 3] = [0.40, 0.21, 0.10];
const POINTS: [f32; 3] = [0.09, 0.07, 0.06];
const HOOF: [f32; 3] = [0.23, 0.21, 0.19];
const MUZZLE_COLOUR: [f32; 3] = [0.20, 0.13, 0.10];
const BLAZE: [f32; 3] = [0.92, 0.90, 0.86];

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    let t = t.clamp(0.0, 1.0);
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// Coat shaded slightly darker along the top line.
fn coat(outward: Vec3) -> [f32; 3] {
    mix(COAT, COAT_DARK, (outward.y - 0.3) * 1.2)
}

fn st(y: f32, z: f32, side: f32, front: f32, back: f32) -> Station {
    Station::new(vec3(0.0, y, z), side, front, back)
}

/// Builds the skinned, painted horse mesh.
pub fn build_mesh(rig: &HorseRig) -> Mesh {
    let mut b = MeshBuilder::default();
    body(&mut b, rig);
    neck_and_head(&mut b, rig);
    tail(&mut b, rig);
    for leg in &rig.legs {
        leg_tube(&mut b, rig, leg);
    }
    b.finish()
}

fn body(b: &mut MeshBuilder, rig: &HorseRig) {
    // (z, top, bottom, half-width): the side silhouette of the barrel.
    const PROFILE: [(f32, f32, f32, f32); 12] = [
        (-0.93, 1.38, 1.14, 0.06),
        (-0.88, 1.49, 0.99, 0.16),
        (-0.78, 1.555, 0.89, 0.215),
        (-0.63, 1.585, 0.85, 0.245),
        (-0.45, 1.578, 0.88, 0.26),
        (-0.25, 1.55, 0.88, 0.275),
        (0.00, 1.525, 0.85, 0.285),
        (0.20, 1.545, 0.82, 0.28),
        (0.36, 1.60, 0.83, 0.26),
        (0.52, 1.56, 0.88, 0.23),
        (0.64, 1.46, 0.96, 0.18),
        (0.72, 1.34, 1.04, 0.12),
    ];
    let stations: Vec<Station> = PROFILE
        .iter()
        .map(|&(z, top, bottom, w)| {
            let cy = 0.5 * (top + bottom);
            st(cy, z, w, top - cy, cy - bottom)
        })
        .collect();
    let rings = sweep(&refine(&stations, 2), Vec3::X);
    let chain = Chain::new(
        &[
            (rig.hips, vec3(0.0, 1.24, -0.95)),
            (rig.spine1, rig.pos(rig.spine1)),
            (rig.spine2, rig.pos(rig.spine2)),
        ],
        vec3(0.0, 1.30, 0.80),
        0.2,
    );
    b.tube(
        &Tube {
            rings: &rings,
            segments: 22,
            start: Cap::Round(0.04),
            end: Cap::Round(0.05),
            roundness: 0.85,
        },
        &|p| chain.influences(p),
        &|s| coat(s.outward),
    );
}

fn neck_and_head(b: &mut MeshBuilder, rig: &HorseRig) {
    let chain = Chain::new(
        &[
            (rig.spine2, vec3(0.0, 1.26, 0.26)),
            (rig.neck1, rig.pos(rig.neck1)),
            (rig.neck2, rig.pos(rig.neck2)),
            (rig.head, POLL),
        ],
        MUZZLE,
        0.1,
    );
    let skin = |p: Vec3| chain.influences(p);

    // Neck: centre line from inside the chest to the throat latch; `front`
    // is the crest side, `back` the throat side.
    let neck = [
        st(1.26, 0.36, 0.17, 0.26, 0.26),
        st(1.36, 0.52, 0.15, 0.22, 0.24),
        st(1.50, 0.68, 0.12, 0.15, 0.16),
        st(1.63, 0.82, 0.10, 0.12, 0.12),
        st(1.74, 0.93, 0.085, 0.10, 0.10),
        st(1.82, 1.01, 0.075, 0.09, 0.09),
    ];
    let neck_rings = sweep(&refine(&neck, 2), Vec3::X);
    b.tube(
        &Tube {
            rings: &neck_rings,
            segments: 16,
            start: Cap::Round(0.05),
            end: Cap::Round(0.05),
            roundness: 0.95,
        },
        &skin,
        &|s| coat(s.outward),
    );

    // Mane: a dark ridge along the crest.
    let mane: Vec<Station> = neck_rings[2..]
        .iter()
        .map(|r: &Ring| {
            Station::new(
                r.center + r.front_axis * (r.front - 0.03),
                0.028,
                0.06,
                0.03,
            )
        })
        .collect();
    let mane_rings = sweep(&refine(&mane, 1), Vec3::X);
    b.tube(
        &Tube {
            rings: &mane_rings,
            segments: 8,
            start: Cap::Round(0.03),
            end: Cap::Round(0.04),
            roundness: 1.0,
        },
        &skin,
        &|_| POINTS,
    );

    // Head: poll to muzzle; `front` is the face, `back` the jaw.
    let axis = (MUZZLE - POLL).normalize();
    let at = |t: f32| POLL + (MUZZLE - POLL) * t;
    let head = [
        Station::new(at(-0.08), 0.06, 0.03, 0.07),
        Station::new(at(0.0), 0.088, 0.05, 0.13),
        Station::new(at(0.16), 0.098, 0.06, 0.17),
        Station::new(at(0.32), 0.088, 0.06, 0.135),
        Station::new(at(0.50), 0.072, 0.056, 0.09),
        Station::new(at(0.68), 0.063, 0.05, 0.075),
        Station::new(at(0.85), 0.066, 0.052, 0.074),
        Station::new(at(0.97), 0.05, 0.038, 0.05),
    ];
    let head_rings = sweep(&refine(&head, 2), Vec3::X);
    let head_skin = Influences::single(rig.head);
    b.tube(
        &Tube {
            rings: &head_rings,
            segments: 14,
            start: Cap::Round(0.03),
            end: Cap::Round(0.025),
            roundness: 0.9,
        },
        &|p| {
            if (p - POLL).dot(axis) < 0.08 {
                skin(p)
            } else {
                head_skin
            }
        },
        &|s| {
            let face = s.outward.dot(head_rings[0].front_axis);
            if s.along > 0.8 {
                MUZZLE_COLOUR
            } else if s.along > 0.12 && s.pos.x.abs() < 0.022 && face > 0.0 {
                BLAZE
            } else {
                coat(s.outward)
            }
        },
    );

    // Ears.
    for side in [1.0f32, -1.0] {
        let base = POLL + vec3(0.055 * side, 0.02, -0.01);
        let ear = [
            Station::new(base, 0.028, 0.022, 0.022),
            Station::new(base + vec3(0.012 * side, 0.08, 0.01), 0.022, 0.016, 0.018),
            Station::new(base + vec3(0.02 * side, 0.13, 0.02), 0.008, 0.006, 0.008),
        ];
        let rings = sweep(&ear, Vec3::X);
        b.tube(
            &Tube {
                rings: &rings,
                segments: 6,
                start: Cap::Round(0.01),
                end: Cap::Round(0.012),
                roundness: 1.0,
            },
            &|_| head_skin,
            &|s| mix(COAT, POINTS, s.along * 1.4 - 0.3),
        );
    }
}

fn tail(b: &mut MeshBuilder, rig: &HorseRig) {
    let [t1, t2, t3] = rig.tail;
    let chain = Chain::new(
        &[
            (rig.hips, vec3(0.0, 1.52, -0.74)),
            (t1, rig.pos(t1)),
            (t2, rig.pos(t2)),
            (t3, rig.pos(t3)),
        ],
        TAIL_END,
        0.08,
    );
    let stations = [
        st(1.46, -0.80, 0.04, 0.04, 0.04),
        st(1.46, -0.87, 0.05, 0.05, 0.05),
        st(1.37, -0.95, 0.06, 0.065, 0.06),
        st(1.22, -1.01, 0.075, 0.08, 0.07),
        st(1.00, -1.05, 0.08, 0.09, 0.08),
        st(0.80, -1.05, 0.07, 0.08, 0.07),
        st(0.62, -1.03, 0.04, 0.05, 0.04),
    ];
    let rings = sweep(&refine(&stations, 2), Vec3::X);
    b.tube(
        &Tube {
            rings: &rings,
            segments: 10,
            start: Cap::Round(0.03),
            end: Cap::Round(0.04),
            roundness: 1.0,
        },
        &|p| chain.influences(p),
        &|s| {
            if s.along < 0.12 {
                coat(s.outward)
            } else {
                POINTS
            }
        },
    );
}

fn leg_tube(b: &mut MeshBuilder, rig: &HorseRig, leg: &Leg) {
    // (y, z, side, front, back) down the leg; the upper leg tucks in towards
    // the midline so it stays inside the body and only the limb shows.
    let (rows, parent, top, socks, tuck): (&[[f32; 5]], usize, Vec3, f32, [f32; 2]) = if leg.front {
        (
            &[
                [1.46, 0.46, 0.05, 0.08, 0.08],
                [1.38, 0.44, 0.06, 0.10, 0.10],
                [1.14, 0.40, 0.075, 0.12, 0.12],
                [0.98, 0.34, 0.075, 0.10, 0.12],
                [0.86, 0.31, 0.07, 0.08, 0.10],
                [0.76, 0.34, 0.062, 0.072, 0.06],
                [0.62, 0.38, 0.05, 0.05, 0.045],
                [0.50, 0.42, 0.045, 0.05, 0.045],
                [0.40, 0.42, 0.034, 0.036, 0.036],
                [0.26, 0.415, 0.034, 0.036, 0.036],
                [0.19, 0.41, 0.044, 0.044, 0.05],
                [0.12, 0.44, 0.036, 0.036, 0.036],
                [0.075, FORE_SOLE_Z + 0.005, 0.046, 0.05, 0.045],
                [0.0, FORE_SOLE_Z, 0.056, HOOF_SOLE_Z, 0.05],
            ],
            rig.spine2,
            vec3(leg.toe.x, 1.70, 0.48),
            0.56,
            [0.86, 1.30],
        )
    } else {
        (
            &[
                [1.32, -0.58, 0.07, 0.12, 0.12],
                [1.20, -0.56, 0.09, 0.14, 0.15],
                [1.03, -0.47, 0.10, 0.12, 0.13],
                [0.88, -0.39, 0.085, 0.09, 0.09],
                [0.77, -0.47, 0.07, 0.07, 0.085],
                [0.66, -0.56, 0.058, 0.05, 0.07],
                [0.56, -0.64, 0.05, 0.05, 0.07],
                [0.45, -0.645, 0.038, 0.04, 0.04],
                [0.27, -0.635, 0.036, 0.038, 0.04],
                [0.19, -0.63, 0.045, 0.045, 0.05],
                [0.12, -0.60, 0.036, 0.036, 0.036],
                [0.075, HIND_SOLE_Z + 0.005, 0.046, 0.05, 0.045],
                [0.0, HIND_SOLE_Z, 0.056, HOOF_SOLE_Z, 0.05],
            ],
            rig.hips,
            vec3(leg.toe.x, 1.45, -0.60),
            0.62,
            [0.84, 1.25],
        )
    };
    let stations: Vec<Station> = rows
        .iter()
        .map(|&[y, z, side, front, back]| {
            let inward = 0.06 * smooth01((y - tuck[0]) / (tuck[1] - tuck[0]));
            Station::new(vec3(leg.side * (LEG_X - inward), y, z), side, front, back)
        })
        .collect();
    let mut rings = sweep(&refine(&stations, 2), Vec3::X);
    // The hoof rings lie flat so the sole sits on the ground.
    for r in rings.iter_mut().filter(|r| r.center.y < 0.05) {
        r.side_axis = Vec3::X;
        r.front_axis = Vec3::Z;
    }
    let chain = Chain::new(
        &[
            (parent, top),
            (leg.upper, rig.pos(leg.upper)),
            (leg.lower, rig.pos(leg.lower)),
            (leg.cannon, rig.pos(leg.cannon)),
            (leg.hoof, rig.pos(leg.hoof)),
        ],
        leg.toe - vec3(0.0, 0.0, HOOF_SOLE_Z),
        0.08,
    );
    b.tube(
        &Tube {
            rings: &rings,
            segments: 12,
            start: Cap::Round(0.04),
            end: Cap::Flat,
            roundness: 0.95,
        },
        &|q| chain.influences(q),
        &|s| {
            if s.pos.y < 0.08 {
                HOOF
            } else {
                mix(coat(s.outward), POINTS, (socks - s.pos.y) / 0.08)
            }
        },
    );
}

fn smooth01(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}
