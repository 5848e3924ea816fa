//! The passes of a frame, each a struct owning its GPU objects and taking
//! the frame's data (`data::crowd_gpu::CrowdGpu::frame`): the techniques,
//! the cull, the shadows, the impostors, the backdrop, the post passes,
//! group 0 and the targets they draw into.

pub mod backdrop;
pub mod cull;
pub mod frame_group;
pub mod impostor;
pub mod post;
pub mod shadow;
pub mod splat;
pub mod targets;
pub mod techniques;
