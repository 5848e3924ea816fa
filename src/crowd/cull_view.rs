//! The view the cull pass decides for: the camera's, or a light's with
//! the camera its shadows are seen through and the volume they land in.

use glam::{Mat4, Vec3};

/// The view culling and LOD are decided for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CullView {
    pub view_proj: Mat4,
    pub eye: Vec3,
    /// Pixels per model unit at distance 1: `viewport height / 2 /
    /// tan(fov_y / 2)` (for a light's orthographic view, texels per unit
    /// with `orthographic`).
    pub pixel_scale: f32,
    /// Errors project without dividing by distance.
    pub orthographic: bool,
    /// For a light's view: where shadows are seen, so that only casters
    /// whose shadow can land there are kept.
    pub receivers: Option<Receivers>,
    /// Skip instances whose bounding sphere's diameter projects under this
    /// many pixels (a light's view: texels); 0 keeps every size.
    pub min_size_px: f32,
    /// Impostors may be chosen in this view (the camera's; a light's view
    /// draws its far casters with the coarse mesh levels instead).
    pub impostors: bool,
    /// A light's view: the camera its shadows are seen through (see
    /// [`CameraLod`]).
    pub camera: Option<CameraLod>,
    /// The LOD error budget in this view, in multiples of
    /// `CullSettings::lod_error_px` (1 for the camera; a light's view:
    /// `ShadowSettings::caster_error_scale`, in its texels and in the
    /// camera's pixels of [`CameraLod`]).
    pub error_scale: f32,
}

/// The camera a light view's casters are seen through. A shadow lies next
/// to its caster and is seen at about the caster's own distance, so it
/// shows no more detail than the camera would draw the caster with: a
/// caster's level is the coarser of its error in shadow-map texels and in
/// the camera's pixels, and a caster the camera would draw as an impostor
/// casts as an impostor (the atlas seen from the sun), or with a coarse
/// level when there is no atlas.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraLod {
    pub eye: Vec3,
    /// Pixels per world unit at distance 1 (perspective).
    pub pixel_scale: f32,
}

/// The volume shadows can be seen in (the camera's frustum) and the
/// direction shadows travel (away from the sun). A caster is needed only
/// if its bounding sphere, grown by `margin` and swept along that
/// direction, reaches the volume.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Receivers {
    pub view_proj: Mat4,
    pub sweep: Vec3,
    /// World units a receiver's shadow lookup reaches beyond its own ray
    /// towards the sun (filter taps and offsets).
    pub margin: f32,
    /// No receiver lies below this height (the ground): a shadow travels
    /// no further than where its caster's sphere has gone under it.
    pub ground: Option<f32>,
}
