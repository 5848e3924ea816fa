//! The crowd's GPU data, long-lived and shared by every pass: the models'
//! mesh and levels, the instances and model table, the herd or flock, and
//! the Rust mirrors of the WGSL structs they hold.

pub mod behaviour;
pub mod crowd_buffer;
pub mod crowd_gpu;
pub mod flock_sim;
pub mod gpu_data;
pub mod mixed_behaviour;
pub mod model_gpu;
pub mod models;
pub mod skin_data;
