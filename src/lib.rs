//! Stampede: a real-time crowd renderer built on vertex animation textures.
//!
//! The data path: `glTF → Model → Vat / palettes → GPU resources → one draw`.
//! Everything up to the GPU resources is plain Rust with no wgpu in it.

pub mod anim;
mod bounds;
pub mod model;
pub mod skin;

pub use bounds::Aabb;
pub use model::{ImportError, Model};
