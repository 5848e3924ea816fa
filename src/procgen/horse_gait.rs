//! The horse's clips: `Gallop`, `Walk` and `Idle`.
//!
//! Gaits are driven by hoof trajectories: each hoof's toe follows a path in
//! model space (planted and moving backwards at the gait's forward speed
//! during stance, lifted and carried forward during swing), and a planar
//! leg solver places the joints. The animation stays in place; the renderer
//! moves the horse forward at [`HORSE_WALK_SPEED`] / [`HORSE_GALLOP_SPEED`],
//! so a planted hoof stays put in the world.

use std::f32::consts::{PI, TAU};

use glam::{Mat4, Quat, Vec2, Vec3};

use super::clip::Clip;
use super::horse::{HorseRig, Leg};
use super::skeleton::Pose;

/// Forward speed (m/s) matching the `Walk` clip: every hoof moves backwards
/// at exactly this speed while planted, so its stride over one stance is
/// `HORSE_WALK_SPEED * WALK.duty * WALK.period`.
pub const HORSE_WALK_SPEED: f32 = 1.3;
/// Forward speed (m/s) matching the `Gallop` clip, measured the same way.
pub const HORSE_GALLOP_SPEED: f32 = 8.5;

/// Key rate of the short, fast clips; slower clips use half of it.
const FAST_KEYS_PER_SECOND: f32 = 60.0;

/// Per-gait parameters. Leg order follows [`HorseRig::legs`]: LF, RF, LH, RH.
#[derive(Clone, Copy, Debug)]
pub struct Gait {
    pub period: f32,
    pub speed: f32,
    /// Fraction of the cycle a hoof is on the ground.
    pub duty: f32,
    /// Touchdown phase of each leg.
    pub touchdown: [f32; 4],
    /// Toe lift height, [fore, hind].
    pub lift: [f32; 2],
    /// Hoof fold (rad, sole turning backwards) at its peak in swing.
    pub hoof_fold: [f32; 2],
    /// Knee / hock fold of the cannon in swing (rad, + folds the hoof back).
    pub knee_fold: [f32; 2],
    /// Cannon reach before touchdown (rad, - reaches forward).
    pub reach: [f32; 2],
    /// Stance centre relative to the rest toe (m along z).
    pub stance_shift: [f32; 2],
    /// Fraction of the cycle spent rolling over the toe before lift-off.
    pub breakover: f32,
}

/// Transverse gallop on the right lead: LH, RH, LF, RF, then suspension.
pub const GALLOP: Gait = Gait {
    period: 0.6,
    speed: HORSE_GALLOP_SPEED,
    duty: 0.23,
    touchdown: [0.32, 0.42, 0.0, 0.10],
    lift: [0.34, 0.26],
    hoof_fold: [2.0, 1.5],
    knee_fold: [1.9, -0.8],
    reach: [-0.45, -0.2],
    stance_shift: [0.04, 0.10],
    breakover: 0.05,
};

/// Four-beat walk: LH, LF, RH, RF, evenly spaced.
pub const WALK: Gait = Gait {
    period: 1.1,
    speed: HORSE_WALK_SPEED,
    duty: 0.62,
    touchdown: [0.25, 0.75, 0.0, 0.5],
    lift: [0.12, 0.10],
    hoof_fold: [1.2, 0.9],
    knee_fold: [0.8, -0.45],
    reach: [-0.15, -0.1],
    stance_shift: [0.03, 0.07],
    breakover: 0.08,
};

/// Grazing loop length in seconds.
pub const IDLE_PERIOD: f32 = 6.0;

pub fn clips(rig: &HorseRig) -> Vec<Clip> {
    let clip = |name: &str, period: f32, f: &dyn Fn(f32) -> Pose| {
        let rate = if period < 1.0 {
            FAST_KEYS_PER_SECOND
        } else {
            0.5 * FAST_KEYS_PER_SECOND
        };
        let keys = (period * rate).round() as usize;
        Clip::looping(name, &rig.skeleton, period, keys, f)
    };
    vec![
        clip("Gallop", GALLOP.period, &|p| {
            gait_pose(rig, &GALLOP, &gallop_body(p), p)
        }),
        clip("Walk", WALK.period, &|p| {
            gait_pose(rig, &WALK, &walk_body(p), p)
        }),
        clip("Idle", IDLE_PERIOD, &|p| idle_pose(rig, p)),
    ]
}

/// Spine, neck and tail motion of one moment (angles in radians, + pitches
/// the front end down / lowers the head / raises the tail).
#[derive(Clone, Copy, Debug, Default)]
pub struct Body {
    pub lift: f32,
    pub pitch: f32,
    pub spine: [f32; 2],
    pub neck: [f32; 2],
    pub head: f32,
    pub tail: [f32; 3],
    pub tail_swing: f32,
}

fn wave(p: f32, peak_at: f32) -> f32 {
    (TAU * (p - peak_at)).cos()
}

fn gallop_body(p: f32) -> Body {
    let deg = f32::to_radians;
    Body {
        // Highest in the gathered suspension, lowest while the legs bear weight.
        lift: 0.035 * wave(p, 0.88) - 0.025,
        // Nose up while the hinds push, nose down over the forehand.
        pitch: deg(5.0) * wave(p, 0.62),
        spine: [deg(2.5) * wave(p, 0.9), deg(-2.0) * wave(p, 0.9)],
        neck: [
            deg(12.0) + deg(9.0) * wave(p, 0.55),
            deg(4.0) * wave(p, 0.62),
        ],
        head: deg(-8.0) * wave(p, 0.58),
        tail: [
            deg(28.0) + deg(6.0) * wave(p, 0.1),
            deg(8.0) * wave(p, 0.25),
            deg(-4.0) + deg(8.0) * wave(p, 0.4),
        ],
        tail_swing: 0.0,
    }
}

fn walk_body(p: f32) -> Body {
    let deg = f32::to_radians;
    let twice = |peak: f32| (2.0 * TAU * (p - peak)).cos();
    Body {
        lift: 0.012 * twice(0.05) - 0.012,
        pitch: deg(1.0) * twice(0.3),
        spine: [0.0, 0.0],
        // The head nods down as each forefoot takes the weight.
        neck: [deg(3.0) + deg(3.5) * twice(0.32), deg(1.5) * twice(0.36)],
        head: deg(-2.0) * twice(0.32),
        tail: [deg(3.0), deg(2.0) * twice(0.1), 0.0],
        tail_swing: deg(6.0) * wave(p, 0.3),
    }
}

/// Smooth curve through `(x, y)` keys (flat tangents at every key).
pub fn curve(x: f32, keys: &[(f32, f32)]) -> f32 {
    let Some(&(x0, y0)) = keys.first() else {
        return 0.0;
    };
    if x <= x0 {
        return y0;
    }
    for w in keys.windows(2) {
        let ((a, ya), (b, yb)) = (w[0], w[1]);
        if x <= b {
            let t = if b > a { (x - a) / (b - a) } else { 1.0 };
            let t = t * t * (3.0 - 2.0 * t);
            return ya + (yb - ya) * t;
        }
    }
    keys.last().map_or(0.0, |k| k.1)
}

fn rot_x(angle: f32) -> Quat {
    Quat::from_rotation_x(angle)
}

/// The body and tail part of a pose, before the legs are solved.
fn body_pose(rig: &HorseRig, body: &Body) -> Pose {
    let mut pose = Pose::rest(&rig.skeleton);
    pose.root_offset = Vec3::new(0.0, body.lift, 0.0);
    pose.rotate(rig.hips, rot_x(body.pitch));
    pose.rotate(rig.spine1, rot_x(body.spine[0]));
    pose.rotate(rig.spine2, rot_x(body.spine[1]));
    pose.rotate(rig.neck1, rot_x(body.neck[0]));
    pose.rotate(rig.neck2, rot_x(body.neck[1]));
    pose.rotate(rig.head, rot_x(body.head));
    pose.rotate(
        rig.tail[0],
        Quat::from_rotation_y(body.tail_swing) * rot_x(body.tail[0]),
    );
    pose.rotate(rig.tail[1], rot_x(body.tail[1]));
    pose.rotate(rig.tail[2], rot_x(body.tail[2]));
    pose
}

/// Full gait pose at cycle phase `p` in `[0, 1)`.
pub fn gait_pose(rig: &HorseRig, gait: &Gait, body: &Body, p: f32) -> Pose {
    let mut pose = body_pose(rig, body);
    let world = rig.skeleton.world(&pose);
    for leg in &rig.legs {
        let target = hoof_target(gait, leg, p);
        solve_leg(rig, leg, &world, &target, &mut pose);
    }
    pose
}

/// Where the toe is and how the leg is folded at one moment.
#[derive(Clone, Copy, Debug)]
pub struct HoofTarget {
    /// Toe position in the sagittal plane: (y, z).
    pub toe: Vec2,
    /// World pitch of the hoof (+ lifts the heel / folds the sole back).
    pub hoof: f32,
    /// Extra cannon rotation on top of following the leg line.
    pub cannon: f32,
}

/// The toe path of `leg` at phase `p`.
pub fn hoof_target(gait: &Gait, leg: &Leg, p: f32) -> HoofTarget {
    let i = usize::from(!leg.front);
    let touchdown = match (leg.front, leg.side > 0.0) {
        (true, true) => gait.touchdown[0],
        (true, false) => gait.touchdown[1],
        (false, true) => gait.touchdown[2],
        (false, false) => gait.touchdown[3],
    };
    let q = (p - touchdown).rem_euclid(1.0);
    let sweep = gait.speed * gait.duty * gait.period;
    let centre = leg.toe.z + gait.stance_shift[i];
    let (front_z, back_z) = (centre + 0.5 * sweep, centre - 0.5 * sweep);
    if q < gait.duty {
        let roll = curve(q, &[(gait.duty - gait.breakover, 0.0), (gait.duty, 0.45)]);
        return HoofTarget {
            toe: Vec2::new(0.0, front_z - sweep * q / gait.duty),
            hoof: roll,
            cannon: 0.0,
        };
    }
    let u = (q - gait.duty) / (1.0 - gait.duty);
    // Hermite from lift-off to touchdown, leaving and arriving at ground speed.
    let m = -gait.speed * gait.period * (1.0 - gait.duty);
    let (h00, h10, h01, h11) = hermite(u);
    let z = h00 * back_z + h10 * m + h01 * front_z + h11 * m;
    let y = gait.lift[i] * (PI * u.powf(0.8)).sin().max(0.0);
    let fold = gait.hoof_fold[i];
    let hoof = curve(
        u,
        &[(0.0, 0.45), (0.3, fold), (0.6, fold * 0.5), (0.88, 0.0)],
    );
    let knee = gait.knee_fold[i];
    let cannon = curve(
        u,
        &[
            (0.0, 0.0),
            (0.3, knee),
            (0.62, knee * 0.3),
            (0.85, gait.reach[i]),
            (1.0, 0.0),
        ],
    );
    HoofTarget {
        toe: Vec2::new(y, z),
        hoof,
        cannon,
    }
}

fn hermite(u: f32) -> (f32, f32, f32, f32) {
    let (u2, u3) = (u * u, u * u * u);
    (
        2.0 * u3 - 3.0 * u2 + 1.0,
        u3 - 2.0 * u2 + u,
        -2.0 * u3 + 3.0 * u2,
        u3 - u2,
    )
}

/// Angle of a sagittal vector (y, z); a rotation about +X adds to it.
fn angle(v: Vec2) -> f32 {
    v.y.atan2(v.x)
}

fn rotate(v: Vec2, a: f32) -> Vec2 {
    let (s, c) = a.sin_cos();
    Vec2::new(v.x * c - v.y * s, v.x * s + v.y * c)
}

fn yz(v: Vec3) -> Vec2 {
    Vec2::new(v.y, v.z)
}

/// Pitch of a joint's world rotation (all body joints pitch about X only).
fn world_pitch(m: &Mat4) -> f32 {
    m.y_axis.z.atan2(m.y_axis.y)
}

/// Solves one leg so its toe lands on `target`, writing the leg's local
/// rotations into `pose`. A target out of reach leaves the leg straight.
pub fn solve_leg(rig: &HorseRig, leg: &Leg, world: &[Mat4], target: &HoofTarget, pose: &mut Pose) {
    let rest = |j: usize| yz(rig.skeleton.rest_position(j));
    let (p0, e0, k0, f0, t0) = (
        rest(leg.upper),
        rest(leg.lower),
        rest(leg.cannon),
        rest(leg.hoof),
        yz(leg.toe),
    );
    let parent = rig.skeleton.joints().get(leg.upper).and_then(|j| j.parent);
    let parent_pitch = parent.and_then(|p| world.get(p)).map_or(0.0, world_pitch);
    let pivot = world.get(leg.upper).map_or(p0, |m| yz(m.w_axis.truncate()));

    let fetlock = target.toe + rotate(f0 - t0, target.hoof);
    let line = angle(fetlock - pivot) - angle(f0 - p0);
    let cannon = line + target.cannon;
    let knee = fetlock + rotate(k0 - f0, cannon);

    // Two-bone solve for shoulder/hip -> elbow/stifle -> knee/hock.
    let (l1, l2) = ((e0 - p0).length(), (k0 - e0).length());
    let to_knee = knee - pivot;
    let d = to_knee
        .length()
        .clamp((l1 - l2).abs() + 1e-4, l1 + l2 - 1e-4);
    let bend_side = (k0 - p0).perp_dot(e0 - p0).signum();
    let cos_a = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
    let elbow = pivot
        + rotate(
            to_knee.normalize_or(Vec2::NEG_X) * l1,
            bend_side * cos_a.acos(),
        );
    let knee_reached = pivot + to_knee.normalize_or(Vec2::NEG_X) * d;

    let upper = angle(elbow - pivot) - angle(e0 - p0);
    let lower = angle(knee_reached - elbow) - angle(k0 - e0);
    pose.rotate(leg.upper, rot_x(upper - parent_pitch));
    pose.rotate(leg.lower, rot_x(lower - upper));
    pose.rotate(leg.cannon, rot_x(cannon - lower));
    pose.rotate(leg.hoof, rot_x(target.hoof - cannon));
}

/// Grazing: lower the head to the grass, crop, look about, raise it again.
fn idle_pose(rig: &HorseRig, p: f32) -> Pose {
    let deg = f32::to_radians;
    let down = curve(p, &[(0.0, 0.0), (0.16, 1.0), (0.78, 1.0), (0.94, 0.0)]);
    let crop = (TAU * 18.0 * p).sin() * down;
    let look = (TAU * 3.0 * p).sin() * down;
    let body = Body {
        lift: -0.01 * down,
        pitch: deg(2.0) * down,
        spine: [0.0, deg(2.0) * down],
        neck: [deg(78.0) * down, deg(24.0) * down + deg(2.0) * crop],
        head: deg(-52.0) * down + deg(4.0) * crop,
        tail: [
            deg(3.0),
            deg(3.0) * (TAU * 2.0 * p).sin(),
            deg(4.0) * (TAU * 2.0 * p).cos(),
        ],
        tail_swing: deg(14.0) * (TAU * 2.0 * p).sin(),
    };
    let mut pose = body_pose(rig, &body);
    if let Some(r) = pose.rotations.get_mut(rig.neck1) {
        *r = (Quat::from_rotation_y(deg(10.0) * look) * *r).normalize();
    }
    // Legs stay planted: solve them against the lowered forehand.
    let world = rig.skeleton.world(&pose);
    let stand = Gait {
        duty: 1.0,
        speed: 0.0,
        breakover: 0.0,
        stance_shift: [0.0, 0.0],
        ..WALK
    };
    for leg in &rig.legs {
        let target = hoof_target(&stand, leg, 0.0);
        solve_leg(rig, leg, &world, &target, &mut pose);
    }
    pose
}
