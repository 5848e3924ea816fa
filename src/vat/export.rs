//! `stampede bake`: the textures as OpenEXR plus a `vat.json` table that
//! another engine can read. The format is documented in README.md.

use super::{ErrorReport, Layout, Precision, Texels, Vat, VatClip};
use crate::Aabb;
use crate::model::Model;
use half::f16;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Version of the `vat.json` format.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{path}: cannot create the output folder: {source}")]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: cannot write the EXR file: {source}")]
    Exr {
        path: PathBuf,
        #[source]
        source: exr::error::Error,
    },
    #[error("{path}: cannot write: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Serialize)]
struct VatJson<'a> {
    format: &'static str,
    version: u32,
    model: String,
    precision: Precision,
    bake_fps: f32,
    layout: &'a Layout,
    /// Per layer, top row first.
    textures: Textures,
    clips: &'a [VatClip],
    bounds: &'a Aabb,
    primitives: Vec<PrimitiveJson>,
    error: &'a ErrorReport,
    bake_ms: f64,
}

#[derive(Serialize)]
struct Textures {
    positions: Vec<String>,
    normals: Vec<String>,
}

#[derive(Serialize)]
struct PrimitiveJson {
    node: usize,
    mesh: usize,
    primitive: usize,
    first_vertex: u32,
    vertex_count: u32,
    material: String,
    skinned: bool,
}

/// Writes `positions*.exr`, `normals*.exr` and `vat.json` into `dir`
/// (created when missing); returns the written paths.
pub fn export(model: &Model, vat: &Vat, dir: &Path) -> Result<Vec<PathBuf>, ExportError> {
    std::fs::create_dir_all(dir).map_err(|source| ExportError::CreateDir {
        path: dir.to_owned(),
        source,
    })?;
    let names = |stem: &str| -> Vec<String> {
        if vat.layout.layers == 1 {
            vec![format!("{stem}.exr")]
        } else {
            (0..vat.layout.layers)
                .map(|l| format!("{stem}_{l}.exr"))
                .collect()
        }
    };
    let textures = Textures {
        positions: names("positions"),
        normals: names("normals"),
    };
    let mut written = Vec::new();
    for (files, texels) in [
        (&textures.positions, &vat.positions),
        (&textures.normals, &vat.normals),
    ] {
        for (layer, file) in files.iter().enumerate() {
            let path = dir.join(file);
            write_layer(&path, &vat.layout, texels, layer)?;
            written.push(path);
        }
    }
    let json = VatJson {
        format: "stampede-vat",
        version: FORMAT_VERSION,
        model: model
            .source
            .file_name()
            .map_or_else(|| model.name(), |f| f.to_string_lossy().into_owned()),
        precision: vat.precision,
        bake_fps: vat.fps,
        layout: &vat.layout,
        textures,
        clips: &vat.clips,
        bounds: &vat.bounds,
        primitives: model
            .primitives
            .iter()
            .map(|p| PrimitiveJson {
                node: p.node,
                mesh: p.mesh,
                primitive: p.primitive,
                first_vertex: p.first_vertex,
                vertex_count: p.vertex_count,
                material: model
                    .materials
                    .get(p.material)
                    .map_or_else(String::new, |m| m.name.clone()),
                skinned: p.skinned,
            })
            .collect(),
        error: &vat.report,
        bake_ms: vat.bake_ms,
    };
    let path = dir.join("vat.json");
    let text = serde_json::to_string_pretty(&json)
        .expect("the VAT table is plain data and always serializes");
    std::fs::write(&path, text + "\n").map_err(|source| ExportError::Write {
        path: path.clone(),
        source,
    })?;
    written.push(path);
    Ok(written)
}

/// One layer as an RGBA EXR in the bake's precision, row 0 at the top.
fn write_layer(
    path: &Path,
    layout: &Layout,
    texels: &Texels,
    layer: usize,
) -> Result<(), ExportError> {
    let (w, h) = (layout.width as usize, layout.height as usize);
    let base = layer * layout.layer_texels();
    let result = match texels {
        Texels::F16(v) => exr::prelude::write_rgba_file(path, w, h, |x, y| {
            let t: [f16; 4] = v[base + y * w + x];
            (t[0], t[1], t[2], t[3])
        }),
        Texels::F32(v) => exr::prelude::write_rgba_file(path, w, h, |x, y| {
            let t: [f32; 4] = v[base + y * w + x];
            (t[0], t[1], t[2], t[3])
        }),
    };
    result.map_err(|source| ExportError::Exr {
        path: path.to_owned(),
        source,
    })
}
