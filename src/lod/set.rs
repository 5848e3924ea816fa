//! Several models' mesh levels in one vertex stream and one index buffer,
//! so that one multi-draw covers every (model, level) of a scene.
//!
//! Model `m`'s vertices follow the previous models' (its base vertex is
//! their total) and its chain's indices follow theirs, unchanged: each
//! level's indices stay model-local and the draw adds the base vertex. The
//! cull pass's regions are every model's levels, model by model, then one
//! impostor region per model (`render::cull::RegionLayout` lays them out).

use super::LodChain;

/// One draw region: a level of one model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub model: u32,
    pub level: u32,
    /// Into the set's index buffer.
    pub first_index: u32,
    pub index_count: u32,
    /// Added to each index (the model's first vertex in the stream).
    pub base_vertex: u32,
}

/// One model's place in the shared buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetMesh {
    pub base_vertex: u32,
    /// Where its chain's indices start in the set's index buffer.
    pub first_index: u32,
    pub vertex_count: u32,
    /// Its first region in [`GeometrySet::regions`]; it has `levels`.
    pub first_region: u32,
    pub levels: u32,
}

/// Why the models cannot share the buffers.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeometrySetError {
    #[error("a scene needs at least one model")]
    Empty,
    #[error(
        "the scene's models have {vertices} vertices and {indices} indices together, more than one buffer addresses (2^32)"
    )]
    TooLarge { vertices: u64, indices: u64 },
}

/// A scene's vertex stream and index buffer, and the regions drawn from them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeometrySet {
    pub meshes: Vec<SetMesh>,
    /// Every model's levels, model by model.
    pub regions: Vec<Region>,
    pub vertex_count: u32,
    /// Every model's chain indices, one after the other.
    pub indices: Vec<u32>,
}

impl GeometrySet {
    /// The set of `models`: each model's vertex count and its chain.
    pub fn plan(models: &[(u32, &LodChain)]) -> Result<Self, GeometrySetError> {
        if models.is_empty() {
            return Err(GeometrySetError::Empty);
        }
        let vertices: u64 = models.iter().map(|(v, _)| *v as u64).sum();
        let index_total: u64 = models.iter().map(|(_, c)| c.indices.len() as u64).sum();
        if vertices > u32::MAX as u64 || index_total > u32::MAX as u64 {
            return Err(GeometrySetError::TooLarge {
                vertices,
                indices: index_total,
            });
        }
        let mut set = Self {
            meshes: Vec::with_capacity(models.len()),
            regions: Vec::new(),
            vertex_count: vertices as u32,
            indices: Vec::with_capacity(index_total as usize),
        };
        let mut base_vertex = 0u32;
        for (m, (vertex_count, chain)) in models.iter().enumerate() {
            let offset = set.indices.len() as u32;
            set.meshes.push(SetMesh {
                base_vertex,
                first_index: offset,
                vertex_count: *vertex_count,
                first_region: set.regions.len() as u32,
                levels: chain.levels.len() as u32,
            });
            for (l, level) in chain.levels.iter().enumerate() {
                set.regions.push(Region {
                    model: m as u32,
                    level: l as u32,
                    first_index: offset + level.first_index,
                    index_count: level.index_count,
                    base_vertex,
                });
            }
            set.indices.extend_from_slice(&chain.indices);
            base_vertex += vertex_count;
        }
        Ok(set)
    }

    /// The vertices region `r` draws, as the GPU reads them: each index of
    /// its range plus its base vertex.
    pub fn region_vertices(&self, r: usize) -> impl Iterator<Item = u32> + '_ {
        let region = self.regions[r];
        let range = region.first_index as usize..(region.first_index + region.index_count) as usize;
        self.indices[range]
            .iter()
            .map(move |i| i + region.base_vertex)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lod::LodLevel;

    fn chain(levels: &[&[u32]]) -> LodChain {
        let mut c = LodChain::default();
        for l in levels {
            c.levels.push(LodLevel {
                first_index: c.indices.len() as u32,
                index_count: l.len() as u32,
                ..LodLevel::default()
            });
            c.indices.extend_from_slice(l);
        }
        c
    }

    #[test]
    fn every_region_draws_its_own_models_triangles() {
        let a = chain(&[&[0, 1, 2, 2, 1, 3], &[0, 1, 3]]);
        let b = chain(&[&[0, 2, 1], &[4, 3, 2, 1, 0, 4], &[1, 2, 4]]);
        let set = GeometrySet::plan(&[(4, &a), (5, &b)]).unwrap();
        assert_eq!(set.vertex_count, 9);
        assert_eq!(set.regions.len(), 5);
        for (r, region) in set.regions.iter().enumerate() {
            let (mesh, own) = match region.model {
                0 => (&set.meshes[0], &a),
                _ => (&set.meshes[1], &b),
            };
            let drawn: Vec<u32> = set.region_vertices(r).collect();
            let expected: Vec<u32> = own
                .level_indices(region.level as usize)
                .iter()
                .map(|i| i + mesh.base_vertex)
                .collect();
            assert_eq!(drawn, expected);
            // Only the model's own vertices.
            assert!(
                drawn
                    .iter()
                    .all(|&v| v >= mesh.base_vertex && v < mesh.base_vertex + mesh.vertex_count)
            );
        }
        assert_eq!(set.meshes[1].first_region, 2);
        assert_eq!(set.meshes[1].base_vertex, 4);
        assert_eq!(GeometrySet::plan(&[]), Err(GeometrySetError::Empty));
    }
}
