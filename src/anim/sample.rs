//! Keyframe interpolation of one channel at one time.

use super::{Channel, Interpolation, Path};
use glam::{Quat, Vec4};

impl Channel {
    /// Evaluates the channel at absolute time `t` (seconds, the file's time
    /// base) into `out`, which holds `self.width` floats. Times outside the
    /// keys clamp to the first or last key.
    pub fn sample_into(&self, t: f32, out: &mut [f32]) {
        let w = self.width;
        let n = self.times.len();
        debug_assert_eq!(out.len(), w);
        if n == 0 {
            return;
        }
        let cubic = self.interpolation == Interpolation::CubicSpline;
        // Element k's value starts at this float offset.
        let value_at = |k: usize| if cubic { (3 * k + 1) * w } else { k * w };
        if n == 1 || t <= self.times[0] {
            out.copy_from_slice(&self.values[value_at(0)..value_at(0) + w]);
            return self.finish(out);
        }
        if t >= self.times[n - 1] {
            out.copy_from_slice(&self.values[value_at(n - 1)..value_at(n - 1) + w]);
            return self.finish(out);
        }
        // times[k] <= t < times[k + 1]
        let k = self.times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (self.times[k], self.times[k + 1]);
        let dt = t1 - t0;
        let s = if dt > 0.0 { (t - t0) / dt } else { 0.0 };
        let a = &self.values[value_at(k)..value_at(k) + w];
        let b = &self.values[value_at(k + 1)..value_at(k + 1) + w];
        match self.interpolation {
            Interpolation::Step => out.copy_from_slice(a),
            Interpolation::Linear if self.path == Path::Rotation => {
                let qa = Quat::from_slice(a);
                let mut qb = Quat::from_slice(b);
                // Shortest path.
                if qa.dot(qb) < 0.0 {
                    qb = -qb;
                }
                let q = slerp(qa, qb, s);
                out.copy_from_slice(&q.to_array());
            }
            Interpolation::Linear => {
                for i in 0..w {
                    out[i] = a[i] + (b[i] - a[i]) * s;
                }
            }
            Interpolation::CubicSpline => {
                // Out-tangent of key k and in-tangent of key k + 1.
                let out_tangent = &self.values[(3 * k + 2) * w..(3 * k + 3) * w];
                let in_tangent = &self.values[(3 * (k + 1)) * w..(3 * (k + 1) + 1) * w];
                let (s2, s3) = (s * s, s * s * s);
                let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                let h10 = s3 - 2.0 * s2 + s;
                let h01 = -2.0 * s3 + 3.0 * s2;
                let h11 = s3 - s2;
                for i in 0..w {
                    out[i] = h00 * a[i]
                        + h10 * dt * out_tangent[i]
                        + h01 * b[i]
                        + h11 * dt * in_tangent[i];
                }
            }
        }
        self.finish(out);
    }

    /// Rotations come out unit length whatever the interpolation did.
    fn finish(&self, out: &mut [f32]) {
        if self.path == Path::Rotation {
            let v = Vec4::from_slice(out);
            let len = v.length();
            if len > 0.0 && len.is_finite() {
                (v / len).write_to_slice(out);
            } else {
                Quat::IDENTITY.write_to_slice(out);
            }
        }
    }
}

/// Spherical interpolation of two unit quaternions on the shorter arc (the
/// caller has already flipped `b` to the same hemisphere as `a`).
fn slerp(a: Quat, b: Quat, s: f32) -> Quat {
    let cos = a.dot(b).clamp(-1.0, 1.0);
    if cos > 0.9995 {
        // Nearly parallel: normalized lerp is exact to float precision.
        return (a * (1.0 - s) + b * s).normalize();
    }
    let theta = cos.acos();
    let sin = theta.sin();
    let wa = ((1.0 - s) * theta).sin() / sin;
    let wb = (s * theta).sin() / sin;
    (a * wa + b * wb).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(path: Path, interpolation: Interpolation, times: &[f32], values: &[f32]) -> Channel {
        let width = match path {
            Path::Rotation => 4,
            _ => 3,
        };
        Channel {
            node: 0,
            path,
            interpolation,
            times: times.to_vec(),
            values: values.to_vec(),
            width,
        }
    }

    #[test]
    fn linear_translation_and_clamping() {
        let c = channel(
            Path::Translation,
            Interpolation::Linear,
            &[1.0, 3.0],
            &[0.0, 0.0, 0.0, 2.0, 4.0, -6.0],
        );
        let mut out = [0.0; 3];
        c.sample_into(2.0, &mut out);
        assert_eq!(out, [1.0, 2.0, -3.0]);
        c.sample_into(-5.0, &mut out);
        assert_eq!(out, [0.0, 0.0, 0.0]);
        c.sample_into(9.0, &mut out);
        assert_eq!(out, [2.0, 4.0, -6.0]);
    }

    #[test]
    fn step_holds_the_previous_key() {
        let c = channel(
            Path::Scale,
            Interpolation::Step,
            &[0.0, 1.0, 2.0],
            &[1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0],
        );
        let mut out = [0.0; 3];
        c.sample_into(0.999, &mut out);
        assert_eq!(out, [1.0; 3]);
        c.sample_into(1.0, &mut out);
        assert_eq!(out, [2.0; 3]);
        c.sample_into(1.5, &mut out);
        assert_eq!(out, [2.0; 3]);
    }

    #[test]
    fn slerp_takes_the_short_way() {
        let a = Quat::from_rotation_y(0.0);
        // The same 90° rotation written with a negative w: the short way is 45°.
        let b = -Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        let mut values = a.to_array().to_vec();
        values.extend_from_slice(&b.to_array());
        let c = channel(Path::Rotation, Interpolation::Linear, &[0.0, 1.0], &values);
        let mut out = [0.0; 4];
        c.sample_into(0.5, &mut out);
        let q = Quat::from_slice(&out);
        let expected = Quat::from_rotation_y(std::f32::consts::FRAC_PI_4);
        assert!(q.dot(expected).abs() > 0.99999, "{q:?}");
    }

    #[test]
    fn cubic_spline_is_hermite() {
        // One float: p0 = 0, p1 = 1, out-tangent of key 0 = 2, in-tangent of key 1 = 0,
        // over dt = 2. Hermite at s = 0.5: h00*0 + h10*dt*2 + h01*1 + h11*dt*0.
        let c = Channel {
            node: 0,
            path: Path::Weights,
            interpolation: Interpolation::CubicSpline,
            times: vec![0.0, 2.0],
            // (in, value, out) per key
            values: vec![9.0, 0.0, 2.0, 0.0, 1.0, 9.0],
            width: 1,
        };
        let mut out = [0.0; 1];
        c.sample_into(1.0, &mut out);
        let expected = 0.125 * 2.0 * 2.0 + 0.5;
        assert!((out[0] - expected).abs() < 1e-6, "{}", out[0]);
        c.sample_into(2.0, &mut out);
        assert_eq!(out[0], 1.0);
    }
}
