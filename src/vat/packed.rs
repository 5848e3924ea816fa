//! The packed texel: a vertex's position and normal in one `Rgba16Uint`
//! texel (8 bytes instead of two RGBA16F texels).
//!
//! - x, y, z: the position quantized to 16 bits per axis inside the bake's
//!   all-frame bounds: `p = min + f32(q) * ((max - min) / 65535)`.
//! - w: the unit normal, octahedral-encoded as two 8-bit components,
//!   `u` in the low byte and `v` in the high byte. A byte `b` maps to
//!   `max((f32(b) - 128) / 127, -1)`: 128 is exactly 0, 1 is -1, 255 is +1
//!   (the encoder writes 1..=255; 0 decodes as -1 too), so the axes and the
//!   octahedron's edges, ±z included, are stored exactly.
//!
//! [`decode`] is written with the f32 operations a shader has, so a WGSL
//! twin can mirror it step by step (docs/formats.md, "The bake export format").

use crate::Aabb;
use glam::{Vec2, Vec3};

/// Bits per position axis.
pub const POSITION_BITS: u32 = 16;
/// Bits per octahedral normal component.
pub const NORMAL_BITS: u32 = 8;
/// The largest position code, `2^16 - 1`.
const POSITION_LEVELS: f32 = 65535.0;
/// The octahedral component scale: codes `128 ± 127`.
const NORMAL_SCALE: f32 = 127.0;

/// Worst angle, in radians, between a unit normal and its decoded packing.
///
/// Rounding moves `(u, v)` by at most `1/254` per component, `√2/254` in
/// all; the octahedral map stretches the plane by at most 3 (at a face's
/// centre, `(±1, ±1, ±1)/√3`, in the direction `(1, 1)`), so the angle is at
/// most `3·√2/254` rad ≈ 0.957°. The encoder picks the best of the four
/// neighbouring codes, which keeps it below that.
pub const NORMAL_BOUND_RADIANS: f32 = 3.0 * std::f32::consts::SQRT_2 / 254.0;

/// The size of one position step per axis: `(max - min) / 65535`.
pub fn step(bounds: &Aabb) -> Vec3 {
    bounds.size() / POSITION_LEVELS
}

/// Packs a position (inside `bounds`) and a unit normal into one texel.
pub fn encode(position: Vec3, normal: Vec3, bounds: &Aabb) -> [u16; 4] {
    let step = step(bounds);
    let q = |p: f32, min: f32, step: f32| {
        if step > 0.0 {
            ((p - min) / step).round().clamp(0.0, POSITION_LEVELS) as u16
        } else {
            0
        }
    };
    [
        q(position.x, bounds.min.x, step.x),
        q(position.y, bounds.min.y, step.y),
        q(position.z, bounds.min.z, step.z),
        encode_normal(normal),
    ]
}

/// Unpacks a texel into its position and unit normal (the shader's twin).
pub fn decode(texel: [u16; 4], bounds: &Aabb) -> (Vec3, Vec3) {
    let q = Vec3::new(texel[0] as f32, texel[1] as f32, texel[2] as f32);
    let position = bounds.min + q * step(bounds);
    (position, decode_normal(texel[3]))
}

/// The octahedral code of a unit normal: `u | v << 8`. Of the four codes
/// around the exact `(u, v)`, the one whose decoding is closest wins.
pub fn encode_normal(n: Vec3) -> u16 {
    let exact = octahedral(n);
    let scaled = exact * NORMAL_SCALE;
    let target = n.normalize_or_zero();
    let mut best = (f32::NEG_INFINITY, 0u16);
    for su in [scaled.x.floor(), scaled.x.ceil()] {
        for sv in [scaled.y.floor(), scaled.y.ceil()] {
            let byte = |s: f32| (s.clamp(-NORMAL_SCALE, NORMAL_SCALE) + 128.0) as u16;
            let code = byte(su) | byte(sv) << 8;
            let cos = decode_normal(code).dot(target);
            if cos > best.0 {
                best = (cos, code);
            }
        }
    }
    best.1
}

/// The unit normal of an octahedral code (low byte u, high byte v).
pub fn decode_normal(code: u16) -> Vec3 {
    let component = |b: u16| ((b as f32 - 128.0) / NORMAL_SCALE).max(-1.0);
    let (u, v) = (component(code & 0xff), component(code >> 8));
    let mut n = Vec3::new(u, v, 1.0 - u.abs() - v.abs());
    let t = (-n.z).max(0.0);
    n.x += if n.x >= 0.0 { -t } else { t };
    n.y += if n.y >= 0.0 { -t } else { t };
    n.normalize()
}

/// The exact octahedral coordinates of `n` in [-1, 1]²: the upper half
/// projected onto the octahedron, the lower half folded over the diagonals.
/// A zero vector maps to +z.
fn octahedral(n: Vec3) -> Vec2 {
    let l1 = n.x.abs() + n.y.abs() + n.z.abs();
    if l1 == 0.0 || l1.is_nan() {
        return Vec2::ZERO;
    }
    let p = Vec2::new(n.x, n.y) / l1;
    if n.z >= 0.0 {
        return p;
    }
    let sign = |a: f32| if a >= 0.0 { 1.0 } else { -1.0 };
    Vec2::new((1.0 - p.y.abs()) * sign(p.x), (1.0 - p.x.abs()) * sign(p.y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_code_128_and_the_ends_are_1_and_255() {
        assert_eq!(decode_normal(128 | 128 << 8), Vec3::Z);
        assert_eq!(decode_normal(255 | 128 << 8), Vec3::X);
        assert_eq!(decode_normal(1 | 128 << 8), -Vec3::X);
        assert_eq!(decode_normal(128 | 255 << 8), Vec3::Y);
        assert_eq!(decode_normal(255 | 255 << 8), -Vec3::Z);
        // Code 0 is never written but still decodes inside the square.
        assert_eq!(decode_normal(128 << 8), -Vec3::X);
    }

    #[test]
    fn a_flat_axis_decodes_to_its_min() {
        let bounds = Aabb {
            min: Vec3::new(-1.0, 2.0, 0.0),
            max: Vec3::new(1.0, 2.0, 4.0),
        };
        let texel = encode(Vec3::new(1.0, 2.0, 0.0), Vec3::Z, &bounds);
        assert_eq!(&texel[..3], &[65535, 0, 0]);
        assert_eq!(decode(texel, &bounds).0, Vec3::new(1.0, 2.0, 0.0));
    }
}
