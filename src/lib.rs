//! Stampede: a real-time crowd renderer built on vertex animation textures.
//!
//! The data path: `glTF → Model → Vat / palettes → GPU resources → one draw`.
//! Everything up to the GPU resources is plain Rust with no wgpu in it.

pub mod anim;
pub mod app;
pub mod assets;
pub mod bench;
pub mod bones;
mod bounds;
pub mod cli;
pub mod crowd;
pub mod formats;
pub mod gait;
pub mod gpu;
pub mod impostor;
pub mod inspect;
pub mod lod;
pub mod model;
pub mod pose_batch;
pub mod procgen;
pub mod render;
pub mod skin;
pub mod vat;

pub use bounds::Aabb;
pub use model::{ImportError, Model};

/// Logging for the binary and tools: `info` for Stampede, errors only for the
/// chatty GPU layers; `RUST_LOG` overrides.
pub fn init_logging() {
    env_logger::Builder::from_env(
        env_logger::Env::default()
            .default_filter_or("info,wgpu_hal=error,wgpu_core=warn,naga=error"),
    )
    .format_timestamp(None)
    .init();
}
