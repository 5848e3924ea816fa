//! GPU culling and LOD selection as plain data and pure functions: the
//! parameters `shaders/cull.wgsl` reads ([`CullUniform`], mirrored and
//! checked by tests/gpu_layout.rs), the frustum planes, and the CPU twin of
//! the per-instance rule (`cull_instance` in cull.wgsl; cull_rule.rs): a
//! bounding sphere against the frustum (for a shadow cascade, also the
//! camera's frustum the sphere must reach when swept along the light, and
//! a size under which a caster's shadow is skipped), then the impostor
//! where the sphere projects small enough, else the coarsest mesh level
//! whose animated error projects to at most the pixel budget, then
//! nearest-frame sampling where the bake's interpolation error does too.

use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4};

#[path = "cull_model.rs"]
mod cull_model;
pub use cull_model::{CullModel, CullModelGpu};
#[path = "cull_view.rs"]
mod cull_view;
pub use cull_view::{CameraLod, CullView, Receivers};
#[path = "cull_planes.rs"]
mod cull_planes;
#[path = "cull_rule.rs"]
mod cull_rule;
pub use cull_planes::{frustum_planes, sphere_margin, sweep_length, sweep_reaches};

/// The most mesh LOD levels the GPU handles.
pub const MAX_LEVELS: usize = 6;
/// The visible list's regions: one per mesh level, then the impostors'.
pub const MAX_REGIONS: usize = MAX_LEVELS + 1;

/// Bits of a visible-list entry: the instance index in the low bits, the
/// region (mesh level, or the impostor region after the last level) in
/// [`LEVEL_BITS`] above it, the nearest-frame flag at the top.
pub const INDEX_BITS: u32 = 28;
pub const INDEX_MASK: u32 = (1 << INDEX_BITS) - 1;
pub const LEVEL_BITS: u32 = 3;
pub const LEVEL_MASK: u32 = (1 << LEVEL_BITS) - 1;
pub const NEAREST_BIT: u32 = 1 << 31;
/// The counter (after the regions' arguments) of a light view's casters in
/// its box whose shadow cannot reach what the camera sees (`DROPPED_WORD`
/// in cull.wgsl).
pub const DROPPED_WORD: u32 = 5;
/// The counter (after the regions' arguments) of the camera's instances
/// drawn as splats (`SPLAT_WORD` in splat.wgsl).
pub const SPLAT_WORD: u32 = 6;
/// Invocations in a workgroup of the cull pass, one an instance
/// (`CULL_GROUP` in cull.wgsl).
pub const CULL_GROUP: u32 = 256;
const _: () = assert!(MAX_REGIONS <= LEVEL_MASK as usize + 1);
const _: () = assert!(INDEX_BITS + LEVEL_BITS < 32);

/// The LOD tint of each region (linear RGB): full detail keeps its colour,
/// coarser levels go green, yellow, orange, red, purple, and the impostor
/// region (the last one a chain of six levels gives) blue. Mirrors
/// `lod_tint` in shaders/crowd_vertex.wgsl; the impostor's own shader
/// uses [`IMPOSTOR_TINT`].
pub const LOD_TINTS: [[f32; 3]; MAX_REGIONS] = [
    [1.0, 1.0, 1.0],
    [0.35, 1.0, 0.35],
    [1.0, 0.9, 0.2],
    [1.0, 0.55, 0.15],
    [1.0, 0.25, 0.25],
    [0.8, 0.3, 1.0],
    [0.2, 0.55, 1.0],
];

/// The tint of an impostor in the LOD tint view, whatever the chain's
/// length (shaders/impostor.wgsl).
pub const IMPOSTOR_TINT: [f32; 3] = LOD_TINTS[MAX_REGIONS - 1];

/// The region (mesh level or impostor) of a visible-list entry.
pub fn entry_region(entry: u32) -> u32 {
    entry >> INDEX_BITS & LEVEL_MASK
}

/// `CullUniform::flags`: test the frustum, pick mesh levels, pick nearest
/// frames.
pub const FLAG_FRUSTUM: u32 = 1;
pub const FLAG_LOD: u32 = 2;
pub const FLAG_ANIM_LOD: u32 = 4;
/// Also cull by the receivers' volume swept along the light
/// ([`CullView::receivers`]).
pub const FLAG_RECEIVERS: u32 = 8;
/// Draw instances whose sphere projects to at most
/// [`CullUniform::impostor_px`] as impostors.
pub const FLAG_IMPOSTOR: u32 = 16;
/// Skip instances whose sphere projects under
/// [`CullUniform::min_size_px`] (a shadow caster under a texel).
pub const FLAG_MIN_SIZE: u32 = 32;
/// With [`FLAG_RECEIVERS`]: the sweep along the light ends where the
/// sphere is wholly below [`CullUniform::ground`] (no receiver is lower).
pub const FLAG_GROUND: u32 = 64;
/// A light's view: a caster's level is no finer than the camera's rule
/// gives it ([`CullUniform::camera`]); where the camera would draw it as an
/// impostor it casts as one (with [`FLAG_IMPOSTOR`]), else with no finer a
/// level than [`CullUniform::far_level`].
pub const FLAG_CAMERA_LOD: u32 = 128;

/// What the user chose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CullSettings {
    /// Skip instances whose bounding sphere is outside the view.
    pub culling: bool,
    /// Draw far instances with coarser meshes and the nearest baked frame.
    pub lod: bool,
    /// Pixels an animated error may project to.
    pub lod_error_px: f32,
    /// Keep culling against the view this was turned on in (to look at
    /// what was culled from outside).
    pub freeze: bool,
    /// Tint instances by their level.
    pub lod_tint: bool,
    /// Draw far instances as animated impostors (with LOD on and an
    /// atlas built).
    pub impostors: bool,
    /// Use the chain's coarse far-field levels (off: its finer levels
    /// only, as before the far field had them).
    pub coarse_levels: bool,
    /// The impostor switch: the sphere's diameter on screen, in pixels,
    /// at or under which an instance is an impostor.
    pub impostor_px: f32,
    /// Fit each impostor's quad to its atlas cell's covered texels (off:
    /// the sphere's square, every texel a fragment).
    pub tight_impostors: bool,
    /// Two-phase occlusion culling of the camera's view: instances hidden
    /// behind nearer ones (by a depth pyramid) are not drawn.
    pub occlusion: bool,
    /// Draw this mip of occlusion culling's depth pyramid over the picture
    /// (a debug view; `None`: the picture).
    pub pyramid_mip: Option<u32>,
    /// Draw the camera's impostors whose sphere projects under `splat_px`
    /// pixels as splats (`crowd::splat`), written by the cull pass.
    pub splats: bool,
    /// The splat switch: the sphere's diameter on screen, in pixels, at or
    /// under which an impostor is a splat.
    pub splat_px: f32,
    /// Keep each listed instance's animation state at the end of the
    /// visible list (`crowd::resolved`), so the vertex shaders read it
    /// instead of computing it (off: every vertex computes it).
    pub resolved_state: bool,
    /// The camera's cull pass lists the instances inside any shadow
    /// cascade's box, and the cascades' passes go over that list rather
    /// than the whole crowd (`crowd::caster_list`; off: each goes over
    /// every instance). The same casters either way.
    pub caster_list: bool,
}

/// The default impostor switch, in pixels of the bounding sphere's
/// diameter (docs/lod.md gives the measurement behind it).
pub const DEFAULT_IMPOSTOR_PX: f32 = 24.0;

impl Default for CullSettings {
    fn default() -> Self {
        Self {
            culling: true,
            lod: true,
            lod_error_px: 1.0,
            freeze: false,
            lod_tint: false,
            impostors: true,
            impostor_px: DEFAULT_IMPOSTOR_PX,
            tight_impostors: true,
            coarse_levels: true,
            occlusion: false,
            pyramid_mip: None,
            splats: true,
            splat_px: crate::crowd::splat::DEFAULT_SPLAT_PX,
            resolved_state: true,
            caster_list: true,
        }
    }
}

impl CullSettings {
    /// These settings without the far field's levels and impostors.
    pub fn without_far_field(self) -> Self {
        Self {
            impostors: false,
            coarse_levels: false,
            splats: false,
            ..self
        }
    }

    /// True when the crowd goes through the cull pass and indirect draws
    /// (either switch on); both off is the one direct instanced draw.
    pub fn indirect(&self) -> bool {
        self.culling || self.lod
    }

    pub fn flags(&self) -> u32 {
        (if self.culling { FLAG_FRUSTUM } else { 0 })
            | (if self.lod {
                FLAG_LOD | FLAG_ANIM_LOD
            } else {
                0
            })
    }
}

/// Mirrors `CullParams` in shaders/cull.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct CullUniform {
    /// Left, right, bottom, top, near, far: xyz = unit inward normal, w =
    /// offset (inside when `dot(n, p) + w >= -radius`).
    pub planes: [[f32; 4]; 6],
    /// xyz = eye, w = pixel scale.
    pub eye: [f32; 4],
    /// Instances to cull.
    pub count: u32,
    pub flags: u32,
    pub budget_px: f32,
    /// Entries per region in the visible list.
    pub region: u32,
    /// Entries of `models` in use.
    pub model_count: u32,
    /// 1 = orthographic view.
    pub orthographic: u32,
    /// With [`FLAG_IMPOSTOR`]: the largest diameter, in pixels, that is
    /// drawn as an impostor.
    pub impostor_px: f32,
    /// The first word after the regions' arguments (the counters).
    pub counter_word: u32,
    /// With [`FLAG_RECEIVERS`]: the receivers' planes, as `planes`.
    pub receivers: [[f32; 4]; 6],
    /// xyz = the direction shadows travel (unit), w = the margin added to
    /// the radius for this test.
    pub sweep: [f32; 4],
    /// With [`FLAG_MIN_SIZE`]: the smallest diameter, in pixels, kept.
    pub min_size_px: f32,
    /// With [`FLAG_GROUND`]: the lowest height a receiver has.
    pub ground: f32,
    pub _pad: [u32; 2],
    /// With [`FLAG_CAMERA_LOD`]: xyz = the camera's eye, w = its pixels
    /// per world unit at distance 1.
    pub camera: [f32; 4],
    /// The camera's view: the shadow cascades' boxes (six planes each, as
    /// `planes`) whose casters it lists (`crowd::caster_list`).
    pub caster_planes: [[f32; 4]; 6 * crate::crowd::shadow::MAX_CASCADES],
    /// Boxes in `caster_planes` (0: the pass lists no casters).
    pub caster_views: u32,
    pub _caster_pad: [u32; 3],
    /// Each box's bounding sphere (`caster_list::box_bound`).
    pub caster_bounds: [[f32; 4]; crate::crowd::shadow::MAX_CASCADES],
    /// The scene's models (in the order of the crowd's model table).
    pub models: [CullModelGpu; crate::crowd::scene::MAX_SCENE_MODELS],
}
const _: () = assert!(std::mem::size_of::<CullUniform>() == 288 + 464 + 96 * 8);

impl CullUniform {
    /// The parameters for `view` of one model (its impostors' region
    /// right after the levels it may use); `impostors` says whether an
    /// atlas is there to draw them from; `far_level` is the chain's first
    /// coarse level (its length when it has none).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        view: &CullView,
        settings: &CullSettings,
        sphere: (Vec3, f32),
        level_error: &[f32],
        nearest_error: f32,
        count: u32,
        region: u32,
        impostors: bool,
        far_level: u32,
    ) -> Self {
        let levels = level_error.len().clamp(1, MAX_LEVELS) as u32;
        let model = CullModel {
            sphere,
            half: crate::vat::PoseBounds::sphere(sphere.0, sphere.1).half,
            level_error,
            nearest_error,
            far_level,
            chain_levels: levels,
            first_region: 0,
            impostor_region: levels,
            hidden: false,
        };
        Self::new_scene(view, settings, &[model], count, region, impostors)
    }

    /// The parameters for `view` of a scene's `models` (at most
    /// [`crate::crowd::scene::MAX_SCENE_MODELS`], in the crowd's order).
    pub fn new_scene(
        view: &CullView,
        settings: &CullSettings,
        models: &[CullModel<'_>],
        count: u32,
        region: u32,
        impostors: bool,
    ) -> Self {
        let planes = frustum_planes(view.view_proj).map(|p| p.to_array());
        let (receivers, sweep, receiver_flag) = match view.receivers {
            Some(r) if settings.culling => (
                frustum_planes(r.view_proj).map(|p| p.to_array()),
                r.sweep
                    .normalize_or_zero()
                    .extend(r.margin.max(0.0))
                    .to_array(),
                FLAG_RECEIVERS | if r.ground.is_some() { FLAG_GROUND } else { 0 },
            ),
            _ => ([[0.0; 4]; 6], [0.0; 4], 0),
        };
        let ground = view.receivers.and_then(|r| r.ground).unwrap_or(0.0);
        let (camera, camera_flag) = match view.camera {
            Some(c) if settings.lod => (c.eye.extend(c.pixel_scale).to_array(), FLAG_CAMERA_LOD),
            _ => ([0.0; 4], 0),
        };
        let impostor_flag = if impostors && settings.impostors && settings.lod && view.impostors {
            FLAG_IMPOSTOR
        } else {
            0
        };
        let size_flag = if settings.culling && view.min_size_px > 0.0 {
            FLAG_MIN_SIZE
        } else {
            0
        };
        let mut table = [CullModelGpu::default(); crate::crowd::scene::MAX_SCENE_MODELS];
        for (entry, m) in table.iter_mut().zip(models) {
            let mut errors = [[0.0; 4]; 2];
            let levels = m.level_error.len().clamp(1, MAX_LEVELS);
            for (l, &e) in m.level_error.iter().take(levels).enumerate() {
                errors[l / 4][l % 4] = e;
            }
            // The camera's impostor band casts with the coarse levels only
            // when the camera draws impostors.
            let far_level = if settings.impostors {
                m.far_level.min(levels as u32)
            } else {
                levels as u32
            };
            *entry = CullModelGpu {
                sphere: m.sphere.0.extend(m.sphere.1).to_array(),
                level_error: errors,
                levels: levels as u32,
                nearest_error: m.nearest_error,
                far_level,
                impostor_bits: m.chain_levels.min(MAX_LEVELS as u32),
                first_region: m.first_region,
                impostor_region: m.impostor_region,
                hidden: m.hidden as u32,
                _pad: [0; 1],
                half: m.half.extend(0.0).to_array(),
            };
        }
        Self {
            planes,
            eye: view.eye.extend(view.pixel_scale).to_array(),
            count,
            flags: settings.flags() | receiver_flag | impostor_flag | size_flag | camera_flag,
            budget_px: settings.lod_error_px.max(0.0) * view.error_scale.max(0.0),
            region,
            model_count: models.len().min(table.len()) as u32,
            orthographic: view.orthographic as u32,
            impostor_px: settings.impostor_px.max(0.0),
            counter_word: 0,
            receivers,
            sweep,
            min_size_px: view.min_size_px.max(0.0),
            ground,
            _pad: [0; 2],
            camera,
            caster_planes: [[0.0; 4]; 6 * crate::crowd::shadow::MAX_CASCADES],
            caster_views: 0,
            _caster_pad: [0; 3],
            caster_bounds: [[0.0; 4]; crate::crowd::shadow::MAX_CASCADES],
            models: table,
        }
    }
}

#[cfg(test)]
#[path = "cull_tests.rs"]
mod tests;
