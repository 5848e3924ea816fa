//! Linear blend skinning on the CPU: morph targets, then up to four joints.
//!
//! This is the reference every other path is checked against, and the
//! CPU-skinning comparison technique. It allocates nothing per vertex and
//! spreads large meshes over the available cores.

use crate::anim::Pose;
use crate::model::Model;
use glam::{Mat4, Vec3, Vec4};
use rayon::prelude::*;

/// Vertices per parallel task: big enough to amortize scheduling.
const CHUNK: usize = 2048;

/// Skins every vertex of `model` in `pose`, writing scene-space positions and
/// unit normals. Both slices hold `model.vertex_count()` elements.
pub fn skin_into(model: &Model, pose: &Pose, positions: &mut [Vec3], normals: &mut [Vec3]) {
    let n = model.vertex_count();
    assert!(
        positions.len() == n && normals.len() == n,
        "skin_into: output slices must hold one element per vertex"
    );
    if n <= CHUNK {
        skin_range(model, pose, 0, positions, normals);
        return;
    }
    positions
        .par_chunks_mut(CHUNK)
        .zip(normals.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (p, nrm))| skin_range(model, pose, c * CHUNK, p, nrm));
}

/// Convenience wrapper that allocates the outputs.
pub fn skin(model: &Model, pose: &Pose) -> (Vec<Vec3>, Vec<Vec3>) {
    let n = model.vertex_count();
    let mut p = vec![Vec3::ZERO; n];
    let mut nr = vec![Vec3::ZERO; n];
    skin_into(model, pose, &mut p, &mut nr);
    (p, nr)
}

/// Skins vertices `first..first + positions.len()`.
fn skin_range(
    model: &Model,
    pose: &Pose,
    first: usize,
    positions: &mut [Vec3],
    normals: &mut [Vec3],
) {
    let end = first + positions.len();
    positions.copy_from_slice(&model.positions[first..end]);
    normals.copy_from_slice(&model.normals[first..end]);
    apply_morphs(model, pose, first, positions, normals);
    for (i, (p, nrm)) in positions.iter_mut().zip(normals.iter_mut()).enumerate() {
        let v = first + i;
        let m = blend(&pose.palette, model.joints[v], model.weights[v]);
        *p = m.transform_point3(*p);
        *nrm = transform_normal(&m, *nrm);
    }
}

/// Adds the weighted morph deltas of every morph set that overlaps the range.
fn apply_morphs(
    model: &Model,
    pose: &Pose,
    first: usize,
    positions: &mut [Vec3],
    normals: &mut [Vec3],
) {
    let end = first + positions.len();
    for set in &model.morphs {
        let a = (set.first_vertex as usize).max(first);
        let b = ((set.first_vertex + set.vertex_count) as usize).min(end);
        if a >= b {
            continue;
        }
        let weights = &pose.morph_weights[set.node];
        for (k, &w) in weights.iter().enumerate() {
            if w == 0.0 {
                continue;
            }
            let offset = set.first_vertex as usize;
            if let Some(d) = set.position_deltas.get(k) {
                for v in a..b {
                    positions[v - first] += w * d[v - offset];
                }
            }
            if let Some(d) = set.normal_deltas.get(k).filter(|d| !d.is_empty()) {
                for v in a..b {
                    normals[v - first] += w * d[v - offset];
                }
            }
        }
    }
}

/// The weighted sum of up to four palette matrices.
#[inline]
pub fn blend(palette: &[Mat4], joints: [u16; 4], weights: [f32; 4]) -> Mat4 {
    let mut cols = [Vec4::ZERO; 4];
    for k in 0..4 {
        let w = weights[k];
        if w == 0.0 {
            continue;
        }
        let m = &palette[joints[k] as usize];
        cols[0] += m.x_axis * w;
        cols[1] += m.y_axis * w;
        cols[2] += m.z_axis * w;
        cols[3] += m.w_axis * w;
    }
    Mat4::from_cols(cols[0], cols[1], cols[2], cols[3])
}

/// Transforms a normal by the inverse transpose of `m`'s upper 3×3 (via its
/// cofactor matrix, which has the same direction) and renormalizes.
#[inline]
pub fn transform_normal(m: &Mat4, n: Vec3) -> Vec3 {
    let (a, b, c) = (
        m.x_axis.truncate(),
        m.y_axis.truncate(),
        m.z_axis.truncate(),
    );
    let (bc, ca, ab) = (b.cross(c), c.cross(a), a.cross(b));
    let det = a.dot(bc);
    let r = (bc * n.x + ca * n.y + ab * n.z) * det.signum();
    r.normalize_or_zero()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    #[test]
    fn normal_transform_matches_inverse_transpose() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(2.0, 0.5, -1.5),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.7),
            Vec3::new(4.0, 5.0, 6.0),
        );
        let n = Vec3::new(0.2, -0.9, 0.4).normalize();
        let expected = glam::Mat3::from_mat4(m).inverse().transpose() * n;
        let got = transform_normal(&m, n);
        assert!(
            (got - expected.normalize()).length() < 1e-5,
            "{got} vs {expected}"
        );
    }

    #[test]
    fn blend_is_weighted_sum() {
        let a = Mat4::from_translation(Vec3::X);
        let b = Mat4::from_translation(Vec3::Y);
        let m = blend(&[a, b], [0, 1, 0, 0], [0.25, 0.75, 0.0, 0.0]);
        let p = m.transform_point3(Vec3::ZERO);
        assert!((p - Vec3::new(0.25, 0.75, 0.0)).length() < 1e-6);
    }
}
