//! Read-backs and probes of a whole renderer: the picture, each
//! instance's exact visibility, the unseen casters, the impostors'
//! likeness to the meshes. They drive the renderer; nothing below it uses
//! them.

pub mod exact_visibility;
pub mod impostor_measure;
pub mod picture;
pub mod unseen_casters;
