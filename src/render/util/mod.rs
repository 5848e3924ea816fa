//! Small GPU utilities: pipelines and bind groups, full-screen passes,
//! mapped read-backs, growing buffers, the shader sources and the GPU timer.

pub mod fullscreen;
pub mod grow;
pub mod mapped;
pub mod pipeline;
pub mod shaders;
pub mod timing;
