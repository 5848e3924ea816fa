//! Where an instance is: the CPU twin of `place`, `loop_placement` and the
//! herd's part of `anim_state` (shaders/crowd.wgsl, behaviour.wgsl). The
//! culling tests place a crowd here and cull it by the same rule as the GPU.

use super::anim::BehaviourView;
use super::clip_time::instance_clip_time;
use super::frame::FrameUniform;
use super::instance::Instance;
use super::scene_time::scene_cycles;
use crate::vat::VatClip;
use glam::Vec3;

/// An instance's frame in the world: origin, heading and up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    pub origin: Vec3,
    pub forward: Vec3,
    pub up: Vec3,
}

impl Placement {
    /// Model space to world space for an instance of `scale`, as
    /// `finish_vertex` does.
    pub fn to_world(&self, p: Vec3, scale: f32) -> Vec3 {
        let [right, up, forward] = self.basis();
        self.origin + right * (p.x * scale) + up * (p.y * scale) + forward * (p.z * scale)
    }

    /// The model's axes in the world: right, up, forward
    /// (`placement_basis`).
    pub fn basis(&self) -> [Vec3; 3] {
        let right = self.up.cross(self.forward).normalize();
        [right, self.forward.cross(right), self.forward]
    }

    /// The half-axes in the world of a model-space box of half size `half`
    /// on an instance of `scale` (those `occlusion_keep` gives `box_rect`).
    pub fn box_axes(&self, half: Vec3, scale: f32) -> [Vec3; 3] {
        let [right, up, forward] = self.basis();
        [
            right * (half.x * scale),
            up * (half.y * scale),
            forward * (half.z * scale),
        ]
    }
}

/// The radius of an instance's loop (`loop_radius`).
pub fn loop_radius(inst: &Instance, frame: &FrameUniform) -> f32 {
    let big_r = frame.field_radius.max(1e-3);
    if frame.motion == 1 {
        big_r * (0.35 + 0.65 * inst.lane)
    } else {
        big_r * (0.62 + 0.38 * inst.lane)
    }
}

/// Where an instance is, having covered `dist` model units (`place`).
pub fn place(inst: &Instance, frame: &FrameUniform, dist: f32) -> Placement {
    let big_r = frame.field_radius.max(1e-3);
    let y_up = Vec3::Y;
    match frame.motion {
        1 => {
            let r = loop_radius(inst, frame);
            let a = inst.phase + dist / r;
            let size = frame.model_size;
            let wave = 3.0 * a + inst.phase * 5.0;
            let amp = size * 0.9;
            let y = frame.ground_y + size * (3.0 + 9.0 * inst.height) + amp * wave.sin();
            let dy = amp * wave.cos() * 3.0 / r;
            let tangent = Vec3::new(-a.sin(), 0.0, a.cos());
            let inward = Vec3::new(-a.cos(), 0.0, -a.sin());
            Placement {
                origin: Vec3::new(a.cos() * r, y, a.sin() * r),
                forward: (tangent + Vec3::new(0.0, dy, 0.0)).normalize(),
                up: (y_up + inward * 0.35).normalize(),
            }
        }
        0 => {
            let r = loop_radius(inst, frame);
            let a = inst.phase + dist / r;
            Placement {
                origin: Vec3::new(a.cos() * r, frame.ground_y, a.sin() * r),
                forward: Vec3::new(-a.sin(), 0.0, a.cos()),
                up: y_up,
            }
        }
        _ => {
            let r = big_r * inst.lane.sqrt();
            let h = inst.phase * 7.0 + inst.height * std::f32::consts::TAU;
            Placement {
                origin: Vec3::new(inst.phase.cos() * r, frame.ground_y, inst.phase.sin() * r),
                forward: Vec3::new(h.sin(), 0.0, h.cos()),
                up: y_up,
            }
        }
    }
}

/// Where an instance is with behaviour off (`loop_placement`), for a clip
/// of `ground_speed` model units per second of clip time.
pub fn loop_placement(inst: &Instance, frame: &FrameUniform, ground_speed: f32) -> Placement {
    let rate = frame.playback * inst.speed;
    if frame.time_hi == 0.0 {
        return place(
            inst,
            frame,
            frame.time_lo * rate * ground_speed * frame.stride * inst.scale,
        );
    }
    let lap = std::f32::consts::TAU * loop_radius(inst, frame);
    let speed = rate * ground_speed * frame.stride * inst.scale;
    place(
        inst,
        frame,
        scene_cycles(frame.time_hi, frame.time_lo, speed, lap) * lap,
    )
}

/// Instance `index`'s placement this frame as `anim_state` computes it, for
/// the loops and the herd; `None` for the flock (its state lives on the
/// GPU). `ground_speeds` are the clip table's.
pub fn instance_placement(
    inst: &Instance,
    index: u32,
    frame: &FrameUniform,
    clips: &[VatClip],
    ground_speeds: &[f32],
    view: BehaviourView<'_>,
) -> Option<Placement> {
    match view {
        BehaviourView::Herd { herd, table } if frame.behaviour != 0 => {
            let h = herd.instance_local(table, index, table.time);
            Some(Placement {
                origin: Vec3::new(h.position.x, frame.ground_y, h.position.y),
                forward: Vec3::new(h.forward.x, 0.0, h.forward.y),
                up: Vec3::Y,
            })
        }
        BehaviourView::Flock { .. } if frame.behaviour != 0 => None,
        _ => {
            let (clip, _) = instance_clip_time(inst, frame, clips);
            let speed = ground_speeds.get(clip).copied().unwrap_or(0.0);
            Some(loop_placement(inst, frame, speed))
        }
    }
}
