//! The skin pass's level data: each level's vertex list and each vertex's
//! level bits, as `skin_levels` in shaders/skin_pass.wgsl reads them.

use crate::render::passes::techniques::compute_skinning::{LEVELS_HEADER, LEVELS_SPANS, MAX_SKIN_LEVELS};
use crate::lod::LodChain;

/// One model's mesh levels as the pass sees them: its chain, its first
/// vertex in the shared stream and its vertex count.
pub type LevelSource<'a> = (&'a LodChain, u32, usize);

/// Every level's vertices (model after model, each model's levels: the
/// visible list's regions), once each, ascending, in the shared stream's
/// numbering; each level's (first, length, base vertex) and each vertex's
/// level bits, laid out as the pass reads them (`skin_levels`); and each
/// level's list length. Levels past [`MAX_SKIN_LEVELS`] are left out.
pub fn level_data(sources: &[LevelSource<'_>]) -> (Vec<u32>, Vec<u32>) {
    let vertices = sources
        .iter()
        .map(|&(_, base, n)| base as usize + n)
        .max()
        .unwrap_or(0);
    let mut bits = vec![0u32; vertices];
    let mut lists: Vec<(u32, Vec<u32>)> = Vec::new();
    for &(chain, base, n) in sources {
        for l in 0..chain.levels.len() {
            if lists.len() == MAX_SKIN_LEVELS {
                break;
            }
            let mut used: Vec<u32> = chain
                .level_indices(l)
                .iter()
                .filter(|&&v| (v as usize) < n)
                .map(|&v| v + base)
                .collect();
            used.sort_unstable();
            used.dedup();
            for &v in &used {
                bits[v as usize] |= 1 << lists.len();
            }
            lists.push((base, used));
        }
    }
    let listed: usize = lists.iter().map(|(_, l)| l.len()).sum();
    let bits_at = LEVELS_HEADER as usize + listed;
    let mut data = vec![0u32; bits_at];
    data[0] = lists.len() as u32;
    data[1] = bits_at as u32;
    let mut at = LEVELS_HEADER as usize;
    for (l, (base, list)) in lists.iter().enumerate() {
        let span = LEVELS_SPANS as usize + 3 * l;
        data[span..span + 3].copy_from_slice(&[at as u32, list.len() as u32, *base]);
        data[at..at + list.len()].copy_from_slice(list);
        at += list.len();
    }
    data.extend(bits);
    (data, lists.iter().map(|(_, l)| l.len() as u32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lod::LodLevel;

    fn level(first_index: u32, index_count: u32) -> LodLevel {
        LodLevel {
            first_index,
            index_count,
            ..LodLevel::default()
        }
    }

    /// Each level lists the vertices its triangles use, once, ascending;
    /// each vertex carries the bits of the levels that use it.
    #[test]
    fn level_data_lists_each_levels_vertices_once() {
        let chain = LodChain {
            // Level 0: vertices 0..6; level 1: 0, 2, 5 (twice); level 2: 5, 1.
            indices: vec![0, 1, 2, 3, 4, 5, 5, 2, 0, 0, 2, 5, 5, 1, 5],
            levels: vec![level(0, 6), level(6, 6), level(12, 3)],
            ..LodChain::default()
        };
        let (data, lengths) = level_data(&[(&chain, 0, 7)]);
        assert_eq!(lengths, [6, 3, 2]);
        assert_eq!(data[0], 3);
        let span = |l: usize| {
            let first = data[LEVELS_SPANS as usize + 3 * l] as usize;
            let len = data[LEVELS_SPANS as usize + 3 * l + 1] as usize;
            &data[first..first + len]
        };
        assert_eq!(span(0), [0, 1, 2, 3, 4, 5]);
        assert_eq!(span(1), [0, 2, 5]);
        assert_eq!(span(2), [1, 5]);
        let bits = &data[data[1] as usize..];
        assert_eq!(bits, [0b011, 0b101, 0b011, 0b001, 0b001, 0b111, 0]);

        // A second model after the first: its levels follow as further
        // regions, its vertices numbered from its base, its base stored.
        let (data, lengths) = level_data(&[(&chain, 0, 7), (&chain, 7, 6)]);
        assert_eq!(lengths, [6, 3, 2, 6, 3, 2]);
        let span = |l: usize| {
            let at = LEVELS_SPANS as usize + 3 * l;
            let (first, len) = (data[at] as usize, data[at + 1] as usize);
            (&data[first..first + len], data[at + 2])
        };
        assert_eq!(span(1), (&[0, 2, 5][..], 0));
        assert_eq!(span(4), (&[7, 9, 12][..], 7));
        let bits = &data[data[1] as usize..];
        assert_eq!(bits.len(), 13);
        assert_eq!(bits[12], 0b111 << 3);
    }
}
