//! How many instances the skin pass holds: each drawn instance takes its
//! own model's vertices in the buffer of skinned vertices (a horse 2,448,
//! a deer 4,278), and a word per region in the state, and both must fit
//! one storage binding. A scene's cap is shared out over its models
//! (`CrowdModelGpu::share_cap`), so what fits depends on the shares.

use crate::render::passes::techniques::compute_skinning::{MAX_SKIN_LEVELS, SKINNED_VERTEX_BYTES, STATE_HEADER};
use crate::crowd::cull::INDEX_MASK;
use crate::crowd::scene::{CrowdModelGpu, MAX_SCENE_MODELS};

/// The most instances the state holds for `levels` mesh levels when one
/// binding holds `limit` bytes (the index bits of a list entry too).
pub fn state_cap(levels: usize, limit: u64) -> u32 {
    let words = (limit / 4).saturating_sub(STATE_HEADER as u64);
    let by_state = words / (3 + levels.clamp(1, MAX_SKIN_LEVELS) as u64);
    by_state.min(INDEX_MASK as u64 + 1).min(u32::MAX as u64) as u32
}

/// The most instances the pass can hold for a mesh of `vertices` vertices
/// and `levels` levels when one binding holds `limit` bytes: the skinned
/// vertices and the state must each fit one binding.
pub fn compute_cap(vertices: usize, levels: usize, limit: u64) -> u32 {
    let by_vertices = limit / (vertices.max(1) as u64 * SKINNED_VERTEX_BYTES);
    by_vertices.min(state_cap(levels, limit) as u64) as u32
}

/// Skinned vertices the drawn instances of `table` take, each its model's
/// (`vertices[m]`).
pub fn vertices_taken(table: &[CrowdModelGpu], vertices: &[u32]) -> u64 {
    table
        .iter()
        .zip(vertices)
        .map(|(e, &v)| e.drawn() as u64 * v.max(1) as u64)
        .sum()
}

/// The largest cap, at most `hard`, whose shares of `table`'s counts
/// (`CrowdModelGpu::share_cap`) take at most `max_vertices` skinned
/// vertices, each instance its model's `vertices[m]`. For one model:
/// [`compute_cap`] of its vertices.
pub fn scene_cap(table: &[CrowdModelGpu], vertices: &[u32], hard: u32, max_vertices: u64) -> u32 {
    let n = table.len().min(MAX_SCENE_MODELS);
    let mut scratch = [CrowdModelGpu::default(); MAX_SCENE_MODELS];
    let total: u64 = table[..n].iter().map(|e| e.count as u64).sum();
    let mut fits = |cap: u32| {
        scratch[..n].copy_from_slice(&table[..n]);
        CrowdModelGpu::share_cap(&mut scratch[..n], cap);
        vertices_taken(&scratch[..n], vertices) <= max_vertices
    };
    // When the whole crowd fits, every cap past it draws all of it: the
    // cap is then what the vertices hold of a crowd of these proportions
    // (what the panel shows).
    let top = (hard as u64).min(total) as u32;
    if fits(top) {
        let per_crowd = vertices_taken(&table[..n], vertices).max(1);
        let proportional = max_vertices as u128 * total.max(1) as u128 / per_crowd as u128;
        return proportional.max(top as u128).min(hard as u128) as u32;
    }
    // The vertices taken grow with the cap: the last cap that fits.
    let (mut lo, mut hi) = (0u32, top);
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) { lo = mid } else { hi = mid }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(first_instance: u32, count: u32) -> CrowdModelGpu {
        CrowdModelGpu {
            first_instance,
            count,
            ..Default::default()
        }
    }

    #[test]
    fn a_scene_fits_its_shares_of_each_models_vertices() {
        // 40 of 1,000 vertices and 60 of 3,000: a whole crowd takes
        // 220,000 vertices; twice that holds twice the crowd.
        let table = [entry(0, 40), entry(40, 60)];
        let vertices = [1000, 3000];
        assert_eq!(scene_cap(&table, &vertices, 500, 220_000), 100);
        assert_eq!(scene_cap(&table, &vertices, 500, 440_000), 200);
        assert_eq!(scene_cap(&table, &vertices, 150, 440_000), 150);
        // One model: its vertices' cap.
        let one = [entry(0, 10)];
        assert_eq!(scene_cap(&one, &[1000], 500, 123_456), 123);
        assert_eq!(scene_cap(&one, &[1000], 500, 5_000), 5);
        // Half the vertices: 50 instances, 20 and 30, take 110,000.
        assert_eq!(scene_cap(&table, &vertices, 500, 110_000), 50);
        // One vertex short of that: 49 (shares 20 and 29: 107,000).
        let cap = scene_cap(&table, &vertices, 500, 109_999);
        assert_eq!(cap, 49);
        let mut shared = table;
        CrowdModelGpu::share_cap(&mut shared, cap);
        assert!(vertices_taken(&shared, &vertices) <= 109_999);
        CrowdModelGpu::share_cap(&mut shared, cap + 1);
        assert!(vertices_taken(&shared, &vertices) > 109_999);
        // The hard cap binds first.
        assert_eq!(scene_cap(&table, &vertices, 30, 110_000), 30);
        // Every slot the largest model's size would hold 36 instances.
        assert_eq!(compute_cap(3000, 1, 110_000 * SKINNED_VERTEX_BYTES), 36);
        // Nothing fits: 0.
        assert_eq!(scene_cap(&table, &vertices, 500, 10), 0);
    }

    #[test]
    fn the_state_and_the_vertices_each_fit_a_binding() {
        let limit = 1 << 20;
        let by_state = state_cap(4, limit);
        assert_eq!(by_state as u64, (limit / 4 - STATE_HEADER as u64) / 7);
        assert_eq!(compute_cap(1, 4, limit), by_state);
        assert_eq!(compute_cap(1000, 4, limit) as u64, limit / 16_000);
    }
}
