//! The scene as a list of models with counts: what `--model` (repeatable,
//! `MODEL[:COUNT]`) and `--count` ask for, checked before anything is
//! loaded.
//!
//! - `--model horse --count 3000` and `--model horse:3000` are one model.
//! - `--model horse:2000 --model bird:1500` is a scene of two; a model
//!   given without a count takes `--count` (2000 by default).
//! - A count is a whole number, with `_` between digits and an optional
//!   `k` (thousands) or `M` (millions): `2000`, `20_000`, `20k`, `1M`.
//! - A path that itself contains `:` (`C:\models\deer.glb`) stays a path:
//!   only a number after the last `:` is a count, and an existing file's
//!   whole name is never split.

use super::MAX_INSTANCES;
use super::setup::{Loaded, ModelChoice, MotionChoice, SetupError};
use crate::vat::Precision;
use std::path::Path;

/// The count a model gets when neither its entry nor `--count` gives one.
pub const DEFAULT_COUNT: u32 = 2000;

/// Why a list of models cannot be a scene.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SceneSpecError {
    #[error("no model given: name one with --model (horse, bird, or a .glb/.gltf file)")]
    Empty,
    #[error("--model {entry}: the count after ':' must be a whole number (like 2000, 20k or 1M)")]
    BadCount { entry: String },
    #[error("--model {entry}: the count must be at least 1")]
    ZeroCount { entry: String },
    #[error("--count 0: the count must be at least 1")]
    ZeroDefault,
    #[error("{model} is listed twice: give it once, with one count")]
    Duplicate { model: String },
    #[error(
        "the scene's models add up to {total} instances, more than the limit of {max}: lower their counts"
    )]
    TooMany { total: u64, max: u32 },
    #[error("--count {count} is not used: every --model has its own count (drop --count)")]
    CountUnused { count: u64 },
    #[error(
        "--counts and a count in --model do not go together: give one model --counts, or each model of a scene its count (MODEL:COUNT)"
    )]
    CountsWithScene,
    #[error(
        "--compare-separate compares a scene of several models with each drawn alone: give --model more than once"
    )]
    SeparateNeedsScene,
    #[error(
        "--clip {flag}: {given} clips for {models} models: give one clip for every model, or one per model in --model order (NAME or mixed, separated by commas)"
    )]
    ClipCount {
        flag: String,
        given: usize,
        models: usize,
    },
}

/// Each model's `--clip` in a scene of `models`: none (each its default
/// clip), one name (or `mixed`) for all, or one per model in `--model`
/// order (`--clip gallop,fly`).
pub fn scene_clips(
    flag: Option<&str>,
    models: usize,
) -> Result<Vec<Option<String>>, SceneSpecError> {
    let Some(flag) = flag else {
        return Ok(vec![None; models]);
    };
    let names: Vec<&str> = flag.split(',').map(str::trim).collect();
    match names.len() {
        1 => Ok(vec![Some(names[0].to_string()); models]),
        n if n == models => Ok(names.into_iter().map(|n| Some(n.to_string())).collect()),
        given => Err(SceneSpecError::ClipCount {
            flag: flag.into(),
            given,
            models,
        }),
    }
}

/// One model of the scene and how many of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneEntry {
    pub choice: ModelChoice,
    pub count: u32,
}

/// The models of a scene, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SceneSpec {
    pub entries: Vec<SceneEntry>,
}

/// `MODEL[:COUNT]` split into the model and its count, if it has one.
pub fn split_entry(entry: &str) -> Result<(String, Option<u64>), SceneSpecError> {
    if Path::new(entry).is_file() {
        return Ok((entry.into(), None));
    }
    let Some((model, tail)) = entry.rsplit_once(':') else {
        return Ok((entry.into(), None));
    };
    match parse_count(tail) {
        Some(count) => Ok((model.into(), Some(count))),
        // `C:\models\deer.glb`, or a name that is not a model either: the
        // loader says which file is missing.
        None if looks_like_path(tail) => Ok((entry.into(), None)),
        None => Err(SceneSpecError::BadCount {
            entry: entry.into(),
        }),
    }
}

/// A tail that belongs to a path rather than a mistyped count.
fn looks_like_path(tail: &str) -> bool {
    let lower = tail.to_ascii_lowercase();
    tail.contains(['/', '\\']) || lower.ends_with(".glb") || lower.ends_with(".gltf")
}

/// `2000`, `20_000`, `20k`, `1M` (case-insensitive suffix).
pub fn parse_count(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, scale) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1_000),
        'm' | 'M' => (&s[..s.len() - 1], 1_000_000),
        _ => (s, 1),
    };
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    digits
        .replace('_', "")
        .parse::<u64>()
        .ok()?
        .checked_mul(scale)
}

impl SceneSpec {
    /// The scene `--model` (each `MODEL[:COUNT]`) and `--count` ask for.
    /// One model keeps the viewer's old rule for its count (an absurd one
    /// is clamped by the caller); a scene of several must fit the limit.
    pub fn from_args(models: &[String], count: Option<u64>) -> Result<Self, SceneSpecError> {
        if models.is_empty() {
            return Err(SceneSpecError::Empty);
        }
        let split: Vec<(String, Option<u64>)> = models
            .iter()
            .map(|m| split_entry(m))
            .collect::<Result<_, _>>()?;
        if let Some(count) = count {
            if count == 0 {
                return Err(SceneSpecError::ZeroDefault);
            }
            if split.iter().all(|(_, c)| c.is_some()) {
                return Err(SceneSpecError::CountUnused { count });
            }
        }
        let single = split.len() == 1;
        let mut entries: Vec<SceneEntry> = Vec::with_capacity(split.len());
        let mut total = 0u64;
        for ((model, own), given) in split.into_iter().zip(models) {
            let choice = ModelChoice::parse(&model);
            if entries.iter().any(|e| same_model(&e.choice, &choice)) {
                return Err(SceneSpecError::Duplicate {
                    model: choice.label(),
                });
            }
            let n = own.or(count).unwrap_or(DEFAULT_COUNT as u64);
            if n == 0 {
                return Err(SceneSpecError::ZeroCount {
                    entry: given.clone(),
                });
            }
            total += n;
            entries.push(SceneEntry {
                choice,
                count: n.min(u32::MAX as u64) as u32,
            });
        }
        if !single && total > MAX_INSTANCES as u64 {
            return Err(SceneSpecError::TooMany {
                total,
                max: MAX_INSTANCES,
            });
        }
        Ok(Self { entries })
    }

    /// One model and its count.
    pub fn single(choice: ModelChoice, count: u32) -> Self {
        Self {
            entries: vec![SceneEntry { choice, count }],
        }
    }

    /// Every model's instances together.
    pub fn total(&self) -> u64 {
        self.entries.iter().map(|e| e.count as u64).sum()
    }

    /// `horse ×2000, bird ×1500`.
    pub fn describe(&self) -> String {
        self.entries
            .iter()
            .map(|e| format!("{} ×{}", e.choice.label(), e.count))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One loaded model of a scene and how many of it (what a renderer of the
/// scene is built from).
#[derive(Clone, Copy)]
pub struct SceneModel<'a> {
    pub loaded: &'a Loaded,
    pub count: u32,
}

/// A scene's models loaded and baked, each on its own thread: those that
/// loaded (with their counts, in the order given) and those that did not,
/// with why (the others are still there).
pub struct SceneLoad {
    pub loaded: Vec<(Loaded, u32)>,
    pub failed: Vec<(String, SetupError)>,
}

/// Loads every model of `scene` in parallel (see [`load_with`]; `clip`
/// applies to each model).
pub fn load_scene(
    scene: &SceneSpec,
    fps: f32,
    precision: Precision,
    clips: &[Option<String>],
    motion: MotionChoice,
) -> SceneLoad {
    use rayon::prelude::*;
    let results: Vec<_> = scene
        .entries
        .par_iter()
        .enumerate()
        .map(|(i, e)| {
            let clip = clips.get(i).and_then(|c| c.as_deref());
            (
                e,
                super::setup::load_with(&e.choice, fps, precision, clip, motion),
            )
        })
        .collect();
    let mut load = SceneLoad {
        loaded: Vec::new(),
        failed: Vec::new(),
    };
    for (entry, result) in results {
        match result {
            Ok(l) => load.loaded.push((l, entry.count)),
            Err(e) => load.failed.push((entry.choice.label(), e)),
        }
    }
    load
}

/// The same model under two spellings (`./deer.glb` and `deer.glb`).
fn same_model(a: &ModelChoice, b: &ModelChoice) -> bool {
    match (a, b) {
        (ModelChoice::File(a), ModelChoice::File(b)) => {
            a == b
                || matches!(
                    (a.canonicalize(), b.canonicalize()),
                    (Ok(x), Ok(y)) if x == y
                )
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(models: &[&str], count: Option<u64>) -> Result<SceneSpec, SceneSpecError> {
        SceneSpec::from_args(
            &models.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            count,
        )
    }

    fn counts(s: &SceneSpec) -> Vec<(String, u32)> {
        s.entries
            .iter()
            .map(|e| (e.choice.label(), e.count))
            .collect()
    }

    #[test]
    fn one_model_takes_count_or_suffix() {
        let s = spec(&["horse"], Some(3000)).unwrap();
        assert_eq!(counts(&s), [("horse".into(), 3000)]);
        let s = spec(&["horse:3000"], None).unwrap();
        assert_eq!(counts(&s), [("horse".into(), 3000)]);
        let s = spec(&["bird"], None).unwrap();
        assert_eq!(counts(&s), [("bird".into(), DEFAULT_COUNT)]);
        // One model keeps the viewer's clamp (done by the caller).
        assert_eq!(spec(&["horse:5M"], None).unwrap().total(), 5_000_000);
    }

    #[test]
    fn several_models_keep_their_order_and_counts() {
        let s = spec(&["horse:2000", "deer.glb:300", "bird:1.5k"], None);
        assert_eq!(
            s,
            Err(SceneSpecError::BadCount {
                entry: "bird:1.5k".into()
            })
        );
        let s = spec(&["horse:2k", "deer.glb:300", "bird"], Some(1500)).unwrap();
        assert_eq!(
            counts(&s),
            [
                ("horse".into(), 2000),
                ("deer.glb".into(), 300),
                ("bird".into(), 1500)
            ]
        );
        assert_eq!(s.total(), 3800);
        assert_eq!(s.describe(), "horse ×2000, deer.glb ×300, bird ×1500");
    }

    #[test]
    fn counts_parse_with_separators_and_suffixes() {
        assert_eq!(parse_count("20_000"), Some(20_000));
        assert_eq!(parse_count("20k"), Some(20_000));
        assert_eq!(parse_count("1M"), Some(1_000_000));
        for bad in [
            "",
            "k",
            "_1",
            "1_",
            "-3",
            "1.5k",
            "abc",
            "99999999999999999999",
        ] {
            assert_eq!(parse_count(bad), None, "{bad}");
        }
    }

    #[test]
    fn paths_with_colons_stay_paths() {
        assert_eq!(
            split_entry(r"C:\models\deer.glb").unwrap(),
            (r"C:\models\deer.glb".into(), None)
        );
        assert_eq!(
            split_entry(r"C:\models\deer.glb:40").unwrap(),
            (r"C:\models\deer.glb".into(), Some(40))
        );
        assert_eq!(
            split_entry("../shared/models/Fox.glb:12").unwrap(),
            ("../shared/models/Fox.glb".into(), Some(12))
        );
    }

    #[test]
    fn bad_lists_say_what_is_wrong() {
        assert_eq!(spec(&[], None), Err(SceneSpecError::Empty));
        assert_eq!(
            spec(&["horse:lots"], None),
            Err(SceneSpecError::BadCount {
                entry: "horse:lots".into()
            })
        );
        assert_eq!(
            spec(&["horse:0"], None),
            Err(SceneSpecError::ZeroCount {
                entry: "horse:0".into()
            })
        );
        assert_eq!(spec(&["horse"], Some(0)), Err(SceneSpecError::ZeroDefault));
        assert_eq!(
            spec(&["horse:10", "bird:10", "horse:5"], None),
            Err(SceneSpecError::Duplicate {
                model: "horse".into()
            })
        );
        assert_eq!(
            spec(&["horse:6M", "bird:5M"], None),
            Err(SceneSpecError::TooMany {
                total: 11_000_000,
                max: MAX_INSTANCES
            })
        );
        assert_eq!(
            spec(&["horse:10", "bird:10"], Some(5)),
            Err(SceneSpecError::CountUnused { count: 5 })
        );
        let message = spec(&["horse:lots"], None).unwrap_err().to_string();
        assert!(message.contains("horse:lots") && message.contains("whole number"));
    }
}
