//! The bake, ready for other engines: the mesh every export carries
//! (`mesh.glb`, the vertex stream with its texel lookup), the engine
//! formats made from the same frames (OpenVAT, Houdini VAT 3 soft body),
//! the far field's impostor atlas,
//! and the staging folder that makes an export appear whole or not at all.
//! Plain data and files; no GPU code. The formats are documented in
//! docs/formats.md.

mod frames;
mod glb;
pub mod houdini;
mod image;
pub mod impostor;
mod mesh;
pub mod openvat;
mod staging;

pub use frames::{ClipFrames, exact_frames, rest_pose};
pub use glb::{GlbMesh, encode_glb};
pub use mesh::{MESH_FILE, MeshJson, lookup_uvs, write_mesh};
pub use staging::Staging;

use std::path::PathBuf;

/// The formats `stampede bake --format` writes. Stampede's own (textures,
/// `vat.json`, `mesh.glb`) is always written; the others go in their own
/// folders beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Format {
    Stampede,
    Openvat,
    Houdini,
    /// Every format.
    All,
}

impl Format {
    /// The engine formats a list of `--format` values asks for, without
    /// repeats (Stampede's own is written regardless).
    pub fn engines(list: &[Format]) -> Vec<Format> {
        let mut out: Vec<Format> = list
            .iter()
            .flat_map(|f| match f {
                Format::All => vec![Format::Openvat, Format::Houdini],
                Format::Stampede => vec![],
                other => vec![*other],
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// Why an export cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("{path}: cannot write: {source}")]
    Io {
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
    #[error("{path}: cannot write the PNG file: {source}")]
    Png {
        path: PathBuf,
        #[source]
        source: png::EncodingError,
    },
    /// The model does not fit what a format can hold.
    #[error("{model}: {format} {problem}")]
    TooLarge {
        model: PathBuf,
        format: &'static str,
        problem: String,
    },
}

impl FormatError {
    pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Self + '_ {
        move |source| FormatError::Io {
            path: path.to_owned(),
            source,
        }
    }
}

/// The `formats` section of `vat.json`: where each engine format's files
/// went, relative to `vat.json`.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct FormatsJson {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub openvat: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub houdini: Vec<String>,
}

/// Checks that `vat` fits every format in `formats`, before anything is
/// written: the first that cannot hold it gives the error.
pub fn check_engines(
    model: &crate::Model,
    vat: &crate::vat::Vat,
    formats: &[Format],
) -> Result<(), FormatError> {
    for f in formats {
        match f {
            Format::Openvat => openvat::check(model, vat).map(|_| ())?,
            Format::Houdini => houdini::check(model, vat).map(|_| ())?,
            Format::Stampede | Format::All => {}
        }
    }
    Ok(())
}

/// Writes the engine formats in `formats` (see [`Format::engines`]) into
/// their folders under `dir`, from the model's exact frames; returns the
/// section for `vat.json`.
pub fn write_engines(
    model: &crate::Model,
    vat: &crate::vat::Vat,
    formats: &[Format],
    dir: &std::path::Path,
) -> Result<FormatsJson, FormatError> {
    let mut out = FormatsJson::default();
    if formats.is_empty() {
        return Ok(out);
    }
    check_engines(model, vat, formats)?;
    let rest = rest_pose(model);
    let frames = exact_frames(model, vat);
    let relative = |paths: Vec<PathBuf>| -> Vec<String> {
        paths
            .iter()
            .filter_map(|p| p.strip_prefix(dir).ok())
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect()
    };
    for f in formats {
        match f {
            Format::Openvat => {
                out.openvat = relative(openvat::write(model, vat, &rest, &frames, dir)?)
            }
            Format::Houdini => {
                out.houdini = relative(houdini::write(model, vat, &rest, &frames, dir)?)
            }
            Format::Stampede | Format::All => {}
        }
    }
    Ok(out)
}
