//! The bird: a gull with a ~1 m wingspan, its skeleton, geometry and clips.
//!
//! Model space is glTF's: +Y up, facing +Z, left wing along +X, the lowest
//! point of the body on y = 0 in the rest pose (wings spread level).

use std::f32::consts::TAU;

use glam::{Quat, Vec3, vec3};

use super::clip::Clip;
use super::glb::{self, Asset, Material};
use super::mesh::{Cap, Chain, Influences, Mesh, MeshBuilder, Station, Tube, refine, sweep};
use super::skeleton::{Pose, Skeleton};

/// Wing beat period of `Flap` (s).
pub const FLAP_PERIOD: f32 = 0.5;
/// Soaring cycle of `Glide` (s).
pub const GLIDE_PERIOD: f32 = 2.0;

/// The gull skeleton with handles on its joints.
#[derive(Clone, Debug)]
pub struct BirdRig {
    pub skeleton: Skeleton,
    pub body: usize,
    pub neck: usize,
    pub head: usize,
    pub tail: usize,
    /// Left and right wings: inner (shoulder), outer (elbow), tip (wrist).
    pub wings: [[usize; 3]; 2],
}

const BODY: Vec3 = vec3(0.0, 0.06, 0.0);
const NECK: Vec3 = vec3(0.0, 0.075, 0.085);
const HEAD: Vec3 = vec3(0.0, 0.095, 0.14);
const BEAK_TIP: Vec3 = vec3(0.0, 0.082, 0.235);
const TAIL: Vec3 = vec3(0.0, 0.066, -0.10);
const TAIL_END: Vec3 = vec3(0.0, 0.062, -0.21);
/// Left wing joints (shoulder, elbow, wrist) and the wing tip.
const WING: [Vec3; 4] = [
    vec3(0.035, 0.085, 0.045),
    vec3(0.19, 0.088, 0.04),
    vec3(0.32, 0.088, 0.05),
    vec3(0.51, 0.085, -0.015),
];

impl BirdRig {
    pub fn new() -> Self {
        let mut s = Skeleton::default();
        let body = s.add("Body", None, BODY);
        let neck = s.add("Neck", Some(body), NECK);
        let head = s.add("Head", Some(neck), HEAD);
        let tail = s.add("Tail", Some(body), TAIL);
        let mut wing = |side: &str, sx: f32| {
            let at = |p: Vec3| vec3(p.x * sx, p.y, p.z);
            let inner = s.add(&format!("{side}WingInner"), Some(body), at(WING[0]));
            let outer = s.add(&format!("{side}WingOuter"), Some(inner), at(WING[1]));
            let tip = s.add(&format!("{side}WingTip"), Some(outer), at(WING[2]));
            [inner, outer, tip]
        };
        let wings = [wing("Left", 1.0), wing("Right", -1.0)];
        Self {
            skeleton: s,
            body,
            neck,
            head,
            tail,
            wings,
        }
    }
}

impl Default for BirdRig {
    fn default() -> Self {
        Self::new()
    }
}

/// The complete bird `.glb`.
pub fn glb() -> Vec<u8> {
    let rig = BirdRig::new();
    let mesh = build_mesh(&rig);
    let clips = [
        Clip::looping("Flap", &rig.skeleton, FLAP_PERIOD, 30, |p| {
            flap_pose(&rig, p)
        }),
        Clip::looping("Glide", &rig.skeleton, GLIDE_PERIOD, 60, |p| {
            glide_pose(&rig, p)
        }),
    ];
    glb::encode(&Asset {
        name: "Bird",
        skeleton: &rig.skeleton,
        mesh: &mesh,
        material: Material { roughness: 0.7 },
        clips: &clips,
    })
}

// Colours (sRGB): a gull.
const WHITE: [f32; 3] = [0.93, 0.93, 0.92];
const MANTLE: [f32; 3] = [0.55, 0.59, 0.65];
const UNDERWING: [f32; 3] = [0.82, 0.83, 0.85];
const WINGTIP: [f32; 3] = [0.07, 0.07, 0.08];
const BEAK: [f32; 3] = [0.96, 0.78, 0.18];
const BEAK_SPOT: [f32; 3] = [0.85, 0.20, 0.10];
const EYE: [f32; 3] = [0.05, 0.05, 0.05];

fn mix(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    let t = t.clamp(0.0, 1.0);
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

fn st(y: f32, z: f32, side: f32, top: f32, bottom: f32) -> Station {
    Station::new(vec3(0.0, y, z), side, top, bottom)
}

/// Builds the skinned, painted gull mesh.
pub fn build_mesh(rig: &BirdRig) -> Mesh {
    let mut b = MeshBuilder::default();
    let chain = Chain::new(
        &[
            (rig.tail, TAIL_END),
            (rig.body, TAIL),
            (rig.neck, NECK),
            (rig.head, HEAD),
        ],
        BEAK_TIP,
        0.03,
    );
    let skin = |p: Vec3| chain.influences(p);

    // Body and neck: white below, grey mantle on the back.
    let body = [
        st(0.066, -0.13, 0.02, 0.012, 0.012),
        st(0.064, -0.09, 0.04, 0.03, 0.03),
        st(0.062, -0.03, 0.056, 0.042, 0.05),
        st(0.062, 0.03, 0.058, 0.046, 0.062),
        st(0.068, 0.075, 0.046, 0.04, 0.05),
        st(0.080, 0.11, 0.034, 0.032, 0.034),
    ];
    let rings = sweep(&refine(&body, 2), Vec3::X);
    b.tube(
        &Tube {
            rings: &rings,
            segments: 14,
            start: Cap::Round(0.02),
            end: Cap::Round(0.02),
            roundness: 1.0,
        },
        &skin,
        &|s| {
            if s.outward.y > 0.55 && s.pos.z < 0.07 {
                MANTLE
            } else {
                WHITE
            }
        },
    );

    // Head.
    let head = [
        st(0.092, 0.10, 0.026, 0.026, 0.026),
        st(0.095, 0.125, 0.027, 0.029, 0.025),
        st(0.095, 0.15, 0.025, 0.026, 0.022),
        st(0.091, 0.172, 0.017, 0.016, 0.016),
        st(0.088, 0.186, 0.011, 0.009, 0.011),
    ];
    let rings = sweep(&refine(&head, 2), Vec3::X);
    let head_only = Influences::single(rig.head);
    let eye = |p: Vec3| (vec3(p.x.abs(), p.y, p.z) - vec3(0.024, 0.104, 0.152)).length() < 0.007;
    b.tube(
        &Tube {
            rings: &rings,
            segments: 12,
            start: Cap::Round(0.012),
            end: Cap::Round(0.006),
            roundness: 1.0,
        },
        &|p| if p.z > HEAD.z { head_only } else { skin(p) },
        &|s| if eye(s.pos) { EYE } else { WHITE },
    );

    // Beak: a slightly hooked cone.
    let beak = [
        st(0.088, 0.178, 0.011, 0.011, 0.012),
        st(0.087, 0.205, 0.008, 0.008, 0.009),
        st(0.085, 0.225, 0.005, 0.006, 0.007),
        st(0.080, 0.238, 0.002, 0.002, 0.003),
    ];
    let rings = sweep(&refine(&beak, 2), Vec3::X);
    b.tube(
        &Tube {
            rings: &rings,
            segments: 8,
            start: Cap::Round(0.004),
            end: Cap::Round(0.002),
            roundness: 1.0,
        },
        &|_| head_only,
        &|s| {
            if s.along > 0.6 && s.outward.y < -0.2 {
                BEAK_SPOT
            } else {
                BEAK
            }
        },
    );

    // Tail: a flat fan.
    let tail = [
        st(0.068, -0.08, 0.025, 0.01, 0.01),
        st(0.066, -0.13, 0.04, 0.007, 0.007),
        st(0.064, -0.18, 0.05, 0.005, 0.005),
        st(0.063, -0.21, 0.048, 0.004, 0.004),
    ];
    let rings = sweep(&refine(&tail, 2), Vec3::X);
    b.tube(
        &Tube {
            rings: &rings,
            segments: 8,
            start: Cap::Round(0.01),
            end: Cap::Round(0.004),
            roundness: 0.6,
        },
        &skin,
        &|_| WHITE,
    );

    for (w, sx) in [(0, 1.0f32), (1, -1.0)] {
        wing(&mut b, rig, rig.wings[w], sx);
    }
    b.finish()
}

/// One wing: an airfoil lofted along the span, (x, leading edge z, chord,
/// thickness) per station.
fn wing(b: &mut MeshBuilder, rig: &BirdRig, joints: [usize; 3], sx: f32) {
    const SPAN: [[f32; 4]; 10] = [
        [0.02, 0.062, 0.15, 0.022],
        [0.06, 0.06, 0.155, 0.016],
        [0.12, 0.056, 0.15, 0.013],
        [0.19, 0.052, 0.142, 0.011],
        [0.26, 0.056, 0.132, 0.009],
        [0.32, 0.06, 0.12, 0.008],
        [0.38, 0.05, 0.10, 0.006],
        [0.44, 0.03, 0.075, 0.005],
        [0.485, 0.008, 0.042, 0.004],
        [0.51, -0.01, 0.016, 0.003],
    ];
    let stations: Vec<Station> = SPAN
        .iter()
        .map(|&[x, le, chord, thick]| {
            let y = WING[0].y + 0.002 - 0.01 * (x / 0.51).powi(2);
            Station::new(
                vec3(x * sx, y, le - 0.5 * chord),
                0.5 * chord,
                0.4 * thick,
                0.6 * thick,
            )
        })
        .collect();
    // Side axis along the chord, mirrored per wing so front is down on both.
    let rings = sweep(&refine(&stations, 2), vec3(0.0, 0.0, sx));
    let at = |p: Vec3| vec3(p.x * sx, p.y, p.z);
    let chain = Chain::new(
        &[
            (rig.body, vec3(0.0, WING[0].y, WING[0].z)),
            (joints[0], at(WING[0])),
            (joints[1], at(WING[1])),
            (joints[2], at(WING[2])),
        ],
        at(WING[3]),
        0.04,
    );
    b.tube(
        &Tube {
            rings: &rings,
            segments: 10,
            start: Cap::Round(0.01),
            end: Cap::Round(0.006),
            roundness: 0.9,
        },
        &|p| chain.influences(p),
        &|s| {
            let span = s.pos.x.abs();
            let base = if s.outward.y > 0.0 { MANTLE } else { UNDERWING };
            mix(base, WINGTIP, (span - 0.40) / 0.03)
        },
    );
}

fn deg(d: f32) -> f32 {
    d.to_radians()
}

/// Sets a wing's joints from left-wing angles; the right wing is mirrored
/// (rotations about Y and Z change sign, about X they do not).
fn set_wing(pose: &mut Pose, joints: [usize; 3], sx: f32, angles: [[f32; 3]; 3]) {
    for (&joint, [sweep, roll, twist]) in joints.iter().zip(angles) {
        let q = Quat::from_rotation_y(sx * sweep)
            * Quat::from_rotation_z(sx * roll)
            * Quat::from_rotation_x(twist);
        pose.rotate(joint, q);
    }
}

/// Flapping flight: a full stroke with the wing folding on the upstroke.
pub fn flap_pose(rig: &BirdRig, p: f32) -> Pose {
    let (s, c) = (TAU * p).sin_cos();
    // Wrist and hand fold on the upstroke (second half), smoothly.
    let fold = if p < 0.5 {
        0.0
    } else {
        0.5 - 0.5 * (TAU * (2.0 * p - 1.0)).cos()
    };
    let mut pose = Pose::rest(&rig.skeleton);
    // The body rises through the downstroke and sinks through the upstroke.
    pose.root_offset = vec3(0.0, -0.012 * c, 0.0);
    pose.rotate(rig.body, Quat::from_rotation_x(deg(-3.0) + deg(2.0) * s));
    pose.rotate(rig.neck, Quat::from_rotation_x(deg(-2.0) * s));
    pose.rotate(rig.head, Quat::from_rotation_x(deg(4.0) - deg(1.0) * s));
    pose.rotate(rig.tail, Quat::from_rotation_x(deg(-4.0) * s));
    let angles = [
        // [sweep back, roll up, twist (leading edge down)]
        [
            deg(6.0) * fold,
            deg(14.0) + deg(40.0) * c,
            deg(8.0) * s.max(0.0),
        ],
        [
            deg(28.0) * fold,
            deg(8.0) * s - deg(8.0) * fold,
            deg(4.0) * s.max(0.0),
        ],
        [
            deg(45.0) * fold,
            deg(10.0) * s + deg(4.0) * fold,
            deg(6.0) * s.max(0.0),
        ],
    ];
    for (w, sx) in [(0, 1.0), (1, -1.0)] {
        set_wing(&mut pose, rig.wings[w], sx, angles);
    }
    pose
}

/// Soaring: wings held in a shallow dihedral, banking gently from side to side.
pub fn glide_pose(rig: &BirdRig, p: f32) -> Pose {
    let (s, c) = (TAU * p).sin_cos();
    let mut pose = Pose::rest(&rig.skeleton);
    pose.root_offset = vec3(0.0, 0.01 * s, 0.0);
    pose.rotate(
        rig.body,
        Quat::from_rotation_z(deg(7.0) * s) * Quat::from_rotation_x(deg(-2.0)),
    );
    pose.rotate(rig.neck, Quat::from_rotation_z(deg(-4.0) * s));
    pose.rotate(
        rig.head,
        Quat::from_rotation_z(deg(-2.5) * s) * Quat::from_rotation_x(deg(6.0)),
    );
    pose.rotate(
        rig.tail,
        Quat::from_rotation_z(deg(-8.0) * s) * Quat::from_rotation_y(deg(4.0) * c),
    );
    for (w, sx) in [(0, 1.0f32), (1, -1.0)] {
        // The wing on the outside of the turn rides a little higher.
        let bank = sx * s;
        let angles = [
            [deg(3.0), deg(7.0) + deg(3.0) * bank, deg(1.5) * c],
            [deg(4.0), deg(-4.0) + deg(1.5) * c, deg(1.0) * s],
            [
                deg(10.0),
                deg(5.0) + deg(3.0) * (TAU * p + 0.8).sin(),
                deg(1.0) * c,
            ],
        ];
        set_wing(&mut pose, rig.wings[w], sx, angles);
    }
    pose
}
