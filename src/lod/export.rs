//! The chain on disk: `lod_indices.bin` (every level's indices,
//! little-endian u32, level after level) and the `lod` section of
//! `vat.json` that says where each level starts. The format is documented
//! in docs/formats.md.

use super::LodChain;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The index file's name inside the export folder.
pub const INDEX_FILE: &str = "lod_indices.bin";

/// Why the chain cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum LodError {
    #[error("{path}: cannot write the LOD indices: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The `lod` section of `vat.json`.
#[derive(Clone, Debug, Serialize)]
pub struct LodJson {
    /// The index file, relative to `vat.json`.
    pub indices: String,
    /// Always `"u32le"`.
    pub index_format: &'static str,
    /// What the simplifier saw: `poses` or `rest`.
    pub strategy: &'static str,
    pub levels: Vec<LevelJson>,
    /// Per clip, in `clips` order, model units.
    pub nearest_frame_error: Vec<f32>,
    pub build_ms: f64,
}

/// One level of the `lod` section.
#[derive(Clone, Debug, Serialize)]
pub struct LevelJson {
    pub first_index: u32,
    pub index_count: u32,
    pub triangles: u32,
    pub error: f32,
    pub rest_error: f32,
    pub simplifier_error: f32,
    /// A far-field level from the permissive or sloppy simplifier.
    pub coarse: bool,
}

impl LodJson {
    pub fn new(chain: &LodChain) -> Self {
        Self {
            indices: INDEX_FILE.to_string(),
            index_format: "u32le",
            strategy: chain.strategy.name(),
            levels: chain
                .levels
                .iter()
                .map(|l| LevelJson {
                    first_index: l.first_index,
                    index_count: l.index_count,
                    triangles: l.triangles(),
                    error: l.error,
                    rest_error: l.rest_error,
                    simplifier_error: l.simplifier_error,
                    coarse: l.coarse,
                })
                .collect(),
            nearest_frame_error: chain.nearest_frame_error.clone(),
            build_ms: chain.build_ms,
        }
    }
}

/// Writes `lod_indices.bin` into `dir` (which must exist); returns its path
/// and the section to put in `vat.json`.
pub fn write(chain: &LodChain, dir: &Path) -> Result<(PathBuf, LodJson), LodError> {
    let path = dir.join(INDEX_FILE);
    let bytes: Vec<u8> = chain.indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|source| LodError::Write {
        path: path.clone(),
        source,
    })?;
    Ok((path, LodJson::new(chain)))
}
