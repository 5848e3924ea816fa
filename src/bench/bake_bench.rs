//! `stampede bench --bake`: how long the import (as `inspect` does it) and
//! the VAT bake take for the horse, the bird, the Fox and a synthetic
//! 50,000-vertex mesh with 10 clips. Medians over `--reps` repetitions.
//! CPU only: no GPU is needed.

use super::BenchArgs;
use super::report::{ReportError, write};
use super::synthetic::{SyntheticError, TubeSpec, tube_glb};
use crate::Model;
use crate::vat::{self, BakeOptions};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Why a bake benchmark failed.
#[derive(Debug, thiserror::Error)]
pub enum BakeBenchError {
    #[error("{model}: could not import: {source}")]
    Import {
        model: String,
        #[source]
        source: crate::ImportError,
    },
    #[error("{model}: could not bake: {source}")]
    Bake {
        model: String,
        #[source]
        source: vat::VatError,
    },
    #[error(transparent)]
    Synthetic(#[from] SyntheticError),
}

/// One model's timings (medians).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BakeRow {
    pub model: String,
    pub vertices: u64,
    pub joints: u64,
    pub clips: u64,
    /// Baked frames over all clips.
    pub frames: u64,
    /// Both textures (positions + normals), all layers.
    pub texture_bytes: u64,
    /// Import from bytes in memory or from the file, as `inspect` does it.
    pub import_ms: f64,
    /// `vat::bake` end to end (sampling, skinning, packing, error report).
    pub bake_ms: f64,
    /// Of which the bake proper, as the bake reports it (no error report).
    pub bake_core_ms: f64,
    /// Texture megabytes (10^6 bytes) per second of `bake_ms`.
    pub mb_per_s: f64,
}

/// Everything `bench --bake --json` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BakeReport {
    pub reps: u32,
    pub threads: usize,
    pub rows: Vec<BakeRow>,
    pub skipped: Vec<String>,
}

/// Where a model's bytes come from.
enum Source {
    /// `horse`, `bird` or a path, through `assets::load_model` like `inspect`.
    Spec(String),
    /// Bytes made here.
    Bytes(Vec<u8>),
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn fox_path(args: &BenchArgs) -> Option<PathBuf> {
    let candidates = [
        args.fox.clone(),
        Some(PathBuf::from("../shared/models/Fox.glb")),
        Some(PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/models/Fox.glb"
        ))),
    ];
    candidates.into_iter().flatten().find(|p| p.exists())
}

fn time_one(name: &str, source: &Source, reps: u32) -> Result<BakeRow, BakeBenchError> {
    let (mut import, mut bake, mut core) = (Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..reps {
        let start = Instant::now();
        let model = match source {
            Source::Spec(spec) => crate::assets::load_model(spec),
            Source::Bytes(bytes) => Model::from_slice(bytes, format!("{name}.glb")),
        }
        .map_err(|source| BakeBenchError::Import {
            model: name.into(),
            source,
        })?;
        import.push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        let vat =
            vat::bake(&model, &BakeOptions::default()).map_err(|source| BakeBenchError::Bake {
                model: name.into(),
                source,
            })?;
        bake.push(start.elapsed().as_secs_f64() * 1e3);
        core.push(vat.bake_ms);
        last = Some((model, vat));
    }
    let (model, vat) = last.ok_or_else(|| BakeBenchError::Bake {
        model: name.into(),
        source: vat::VatError::Option("no repetitions".into()),
    })?;
    let texture_bytes = (vat.positions.bytes().len() + vat.normals.bytes().len()) as u64;
    let bake_ms = median(bake);
    Ok(BakeRow {
        model: name.into(),
        vertices: model.vertex_count() as u64,
        joints: model.stats.joints as u64,
        clips: vat.clips.len() as u64,
        frames: vat.clips.iter().map(|c| c.frame_count as u64).sum(),
        texture_bytes,
        import_ms: median(import),
        bake_ms,
        bake_core_ms: median(core),
        mb_per_s: texture_bytes as f64 / 1e6 / (bake_ms / 1e3).max(1e-9),
    })
}

/// Times every model; a missing Fox is skipped with a note.
pub fn run(args: &BenchArgs) -> Result<BakeReport, BakeBenchError> {
    let mut models: Vec<(String, Source)> = vec![
        ("horse".into(), Source::Spec("horse".into())),
        ("bird".into(), Source::Spec("bird".into())),
    ];
    let mut skipped = Vec::new();
    match fox_path(args) {
        Some(p) => models.push(("Fox".into(), Source::Spec(p.display().to_string()))),
        None => skipped.push(
            "Fox: not found (give --fox PATH; looked for ../shared/models/Fox.glb)".to_owned(),
        ),
    }
    let spec = TubeSpec::BENCH;
    models.push((
        format!("synthetic-{}k", spec.vertex_count() / 1000),
        Source::Bytes(tube_glb(&spec)?),
    ));
    let mut rows = Vec::new();
    for (name, source) in &models {
        eprintln!("timing {name} ({} repetitions)..", args.reps);
        rows.push(time_one(name, source, args.reps)?);
    }
    Ok(BakeReport {
        reps: args.reps,
        threads: rayon::current_num_threads(),
        rows,
        skipped,
    })
}

impl BakeReport {
    pub fn text(&self) -> String {
        let mut s = format!(
            "bake benchmark: median of {} repetitions, {} threads, default options (30 fps, f16)\n",
            self.reps, self.threads
        );
        let _ = writeln!(
            s,
            "{:<16} {:>8} {:>6} {:>5} {:>7} {:>10} {:>10} {:>10} {:>10} {:>9}",
            "model",
            "vertices",
            "joints",
            "clips",
            "frames",
            "texture",
            "import ms",
            "bake ms",
            "(core) ms",
            "MB/s"
        );
        for r in &self.rows {
            let _ = writeln!(
                s,
                "{:<16} {:>8} {:>6} {:>5} {:>7} {:>8.2}MB {:>10.2} {:>10.2} {:>10.2} {:>9.1}",
                r.model,
                r.vertices,
                r.joints,
                r.clips,
                r.frames,
                r.texture_bytes as f64 / 1e6,
                r.import_ms,
                r.bake_ms,
                r.bake_core_ms,
                r.mb_per_s
            );
        }
        for k in &self.skipped {
            let _ = writeln!(s, "skipped {k}");
        }
        s
    }

    pub fn write_json(&self, path: &std::path::Path) -> Result<(), ReportError> {
        write(path, &serde_json::to_string_pretty(self)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }

    #[test]
    fn times_a_builtin_model() {
        let row = time_one("bird", &Source::Spec("bird".into()), 1).expect("bird bakes");
        assert!(row.vertices > 0 && row.frames > 0 && row.texture_bytes > 0);
        assert!(row.bake_ms > 0.0 && row.mb_per_s > 0.0 && row.import_ms > 0.0);
    }
}
