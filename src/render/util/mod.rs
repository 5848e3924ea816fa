//! Small GPU utilities: pipelines and bind groups, full-screen passes,
//! mapped read-backs, the shader sources and the GPU timer.

pub mod fullscreen;
pub mod mapped;
pub mod pipeline;
pub mod shaders;
pub mod timing;
