//! The far field's animated impostors on the GPU: the atlas, drawn once
//! per device from the model's VAT (`atlas`), and the scene pass's draw of
//! the cull pass's impostor region (`pass`) in quads fitted to each cell's
//! covered texels (`bounds`), and the atlas read back for
//! `bake` (`export`). The layout is plain data in
//! `crate::impostor`.

mod atlas;
mod baker;
pub mod bounds;
pub mod export;
mod pass;
mod scene_atlas;

pub use atlas::{AtlasError, ImpostorAtlas, LayerTexels, MipLayerGpu};
pub use baker::{ALBEDO_FORMAT, BakeLayerGpu, NORMAL_FORMAT};
pub use pass::{ImpostorDraw, ImpostorPass};
pub use scene_atlas::AtlasSource;
