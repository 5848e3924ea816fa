//! The crowd as plain data and pure functions, with no GPU code: who is in
//! it ([`Instance`], grown from a seed), where each member is and which clip
//! it plays at which time (the CPU twins of the crowd shaders), the herd and
//! the flock, the frame's parameters, the VAT-vs-skinning parity, and the
//! preparation of a model for the viewer and the tools. `render` uploads and
//! draws what is described here.

pub mod anim;
pub mod caster_list;
pub mod clip_time;
pub mod cull;
pub mod flock;
pub mod frame;
pub mod herd;
pub mod instance;
pub mod motion;
pub mod occlusion;
pub mod parity;
pub mod placement;
pub mod resolved;
pub mod rng;
pub mod scene;
pub mod scene_spec;
pub mod scene_time;
pub mod setup;
pub mod shadow;
pub mod spec;
pub mod splat;
pub mod tracks;

pub use anim::BehaviourSettings;
pub use clip_time::{instance_clip_time, instance_pose, pose_time};
pub use flock::{FlockPreset, FlockTuning};
pub use frame::{CLIP_MIXED, FrameSettings, FrameUniform, frame_uniform, sun_direction};
pub use instance::{
    CountError, CrowdMirror, Instance, MAX_FLOCK, MAX_INSTANCES, Motion, generate, grow_capacity,
    validate_count, validate_flock,
};
pub use spec::CrowdSpec;
