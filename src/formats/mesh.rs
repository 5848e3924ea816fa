//! `mesh.glb`, the mesh every export carries, and its `mesh` section of
//! `vat.json`: the vertex stream in the bake's order, in the rest pose,
//! with `TEXCOORD_1` addressing each vertex's texel, so the lookup rides
//! with the vertex through any importer that reorders or welds.

use super::glb::{GlbMesh, encode_glb};
use super::{FormatError, rest_pose};
use crate::model::Model;
use crate::vat::Layout;
use glam::Vec2;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The mesh's file name inside the export folder.
pub const MESH_FILE: &str = "mesh.glb";

/// The `mesh` section of `vat.json`.
#[derive(Clone, Debug, Serialize)]
pub struct MeshJson {
    /// The file, relative to `vat.json`.
    pub file: &'static str,
    /// Which pose its positions and normals are in: always `rest`.
    pub pose: &'static str,
    /// Which attribute holds what (glTF attribute names).
    pub attributes: MeshAttributes,
}

/// Where the lookup lives in the mesh.
#[derive(Clone, Debug, Serialize)]
pub struct MeshAttributes {
    pub lookup: &'static str,
    pub vertex_index: &'static str,
    pub base_color_uv: &'static str,
}

impl MeshJson {
    pub fn new() -> Self {
        Self {
            file: MESH_FILE,
            pose: "rest",
            attributes: MeshAttributes {
                lookup: "TEXCOORD_1",
                vertex_index: "_VERTEX_ID",
                base_color_uv: "TEXCOORD_0",
            },
        }
    }
}

impl Default for MeshJson {
    fn default() -> Self {
        Self::new()
    }
}

/// The lookup UV of every vertex: the centre of its texel in the first
/// rows of a frame that starts at row 0, `((v % width + 0.5) / width,
/// (v / width + 0.5) / height)`. Frame `f` of a clip is that plus
/// `(first_row + f * rows_per_frame) / height` in v.
pub fn lookup_uvs(layout: &Layout) -> Vec<Vec2> {
    let (w, h) = (layout.width, layout.height as f32);
    (0..layout.vertex_count)
        .map(|v| {
            Vec2::new(
                ((v % w) as f32 + 0.5) / w as f32,
                ((v / w) as f32 + 0.5) / h,
            )
        })
        .collect()
}

/// Writes `mesh.glb` for `model` baked with `layout` into `dir`; returns
/// its path and the section for `vat.json`.
pub fn write_mesh(
    model: &Model,
    layout: &Layout,
    dir: &Path,
) -> Result<(PathBuf, MeshJson), FormatError> {
    let (positions, normals) = rest_pose(model);
    let lookup = lookup_uvs(layout);
    let path = dir.join(MESH_FILE);
    let bytes = encode_glb(&GlbMesh {
        model,
        positions: &positions,
        normals: &normals,
        lookup: &lookup,
        name: &model.name(),
    })
    .map_err(|source| FormatError::Png {
        path: path.clone(),
        source,
    })?;
    std::fs::write(&path, bytes).map_err(FormatError::io(&path))?;
    Ok((path, MeshJson::new()))
}
