//! Normals for primitives that come without them.

use glam::Vec3;

/// Area-weighted smooth normals over a triangle list (local indices). Vertices
/// that no triangle uses get +Y.
pub fn smooth_normals(positions: &[Vec3], triangles: &[u32]) -> Vec<Vec3> {
    let mut normals = vec![Vec3::ZERO; positions.len()];
    for tri in triangles.chunks_exact(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| i as usize);
        // The cross product's length is twice the area: a natural weight.
        let n = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
        normals[a] += n;
        normals[b] += n;
        normals[c] += n;
    }
    normals.iter().map(|n| n.normalize_or(Vec3::Y)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_clockwise_triangle_faces_the_viewer() {
        let p = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let n = smooth_normals(&p, &[0, 1, 2]);
        assert!(n.iter().all(|n| (*n - Vec3::Z).length() < 1e-6));
    }
}
