//! The built-in models and how a `--model` argument becomes a [`Model`].

use crate::model::{ImportError, Model};

/// The built-in models: name, the path they are known by, and the bytes of
/// the committed `assets/` file (made by `stampede make-assets`), embedded so
/// the binary runs from anywhere.
pub const BUILTIN: &[(&str, &str, &[u8])] = &[
    (
        "horse",
        "assets/horse.glb",
        include_bytes!("../assets/horse.glb"),
    ),
    (
        "bird",
        "assets/bird.glb",
        include_bytes!("../assets/bird.glb"),
    ),
];

/// Loads `horse`, `bird`, or a glTF file path.
pub fn load_model(spec: &str) -> Result<Model, ImportError> {
    match BUILTIN.iter().find(|(name, _, _)| *name == spec) {
        Some((_, path, bytes)) => Model::from_slice(bytes, path),
        None => Model::load(spec),
    }
}
