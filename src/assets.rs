//! The built-in models and how a `--model` argument becomes a [`Model`].

use crate::model::{ImportError, Model};
use std::path::Path;

/// The built-in models: name, bytes (the committed `assets/` files, made by
/// `stampede make-assets`).
pub const BUILTIN: &[(&str, &str)] = &[("horse", "assets/horse.glb"), ("bird", "assets/bird.glb")];

/// Loads `horse`, `bird`, or a glTF file path.
pub fn load_model(spec: &str) -> Result<Model, ImportError> {
    if let Some((_, rel)) = BUILTIN.iter().find(|(name, _)| *name == spec) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
        return Model::load(path);
    }
    Model::load(spec)
}
