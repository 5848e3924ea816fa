//! Cascaded sun shadows as plain data and pure functions: what the user
//! chose ([`ShadowSettings`]), where the camera's frustum is split, and the
//! light's orthographic view of each slice ([`fit_cascades`]), fitted to the
//! slice's bounding sphere (so its size does not change as the camera turns)
//! and snapped to whole shadow-map texels (so it does not shimmer as the
//! camera moves). The parameters the receivers read are [`ShadowUniform`]
//! (mirrors `Shadows` in shaders/shadow.wgsl), the casters' view is
//! [`CasterUniform`] (mirrors `Caster`); tests/gpu_layout.rs checks both.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3};

/// The most cascades (the shader's array length).
pub const MAX_CASCADES: usize = 4;
/// Shadow-map sides the user may pick.
pub const RESOLUTIONS: [u32; 4] = [512, 1024, 2048, 4096];

/// The default [`ShadowSettings::min_caster_texels`].
pub const DEFAULT_MIN_CASTER_TEXELS: f32 = 1.0;

/// The default [`ShadowSettings::caster_error_scale`]: at 10,000 horses in
/// the herd's view it takes the shadow passes from 1.07× the scene's
/// triangles to 0.31×, and no pixel of the picture by more than 17 %
/// (docs/benchmarks.md, "Casters' error budget").
pub const DEFAULT_CASTER_ERROR_SCALE: f32 = 2.0;

/// With [`ShadowDistance::Auto`], shadows end where the model's bounding
/// sphere covers this many pixels of the view (docs/benchmarks.md,
/// "The far field", has the measurement behind it).
pub const AUTO_SHADOW_PX: f32 = 6.0;

/// Shadows fade out over this last share of the shadow distance.
pub const SHADOW_FADE: f32 = 0.2;

/// Where the cascades end (`--shadow-distance`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShadowDistance {
    /// Where the model's sphere covers [`AUTO_SHADOW_PX`] pixels: beyond,
    /// a shadow is a smudge of a few pixels under a horse of a few.
    Auto,
    /// As far as the view (and the crowd) reach.
    Off,
    /// This many world units from the camera.
    Units(f32),
}

impl ShadowDistance {
    /// The distance from the camera where shadows end, for a model whose
    /// sphere is `diameter` units across in a view of `pixel_scale`
    /// pixels per unit at distance 1; `None` when they do not end.
    pub fn end(self, diameter: f32, pixel_scale: f32) -> Option<f32> {
        match self {
            Self::Auto => Some((diameter * pixel_scale / AUTO_SHADOW_PX).max(1e-3)),
            Self::Off => None,
            Self::Units(u) => Some(u.max(1e-3)),
        }
    }
}

impl std::str::FromStr for ShadowDistance {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "auto" => Ok(Self::Auto),
            "off" => Ok(Self::Off),
            v => match v.parse::<f32>() {
                Ok(u) if u.is_finite() && u > 0.0 => Ok(Self::Units(u)),
                _ => Err(format!(
                    "--shadow-distance '{s}': expected auto, off or a distance in world units above 0"
                )),
            },
        }
    }
}

impl std::fmt::Display for ShadowDistance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::Off => f.write_str("off"),
            Self::Units(u) => write!(f, "{u}"),
        }
    }
}

/// What the user chose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShadowSettings {
    pub enabled: bool,
    /// Cascades, 1 to [`MAX_CASCADES`].
    pub cascades: u32,
    /// Texels on a side of each cascade's map.
    pub resolution: u32,
    /// Tint receivers by the cascade that shadows them.
    pub debug_tint: bool,
    /// Keep only casters whose shadow can land in the camera's view (off:
    /// every caster inside a cascade's box, for comparison).
    pub cull_to_view: bool,
    /// Skip casters whose bounding sphere covers fewer texels of their
    /// cascade than this (its diameter): their shadow is below the 3×3
    /// filter's footprint. 0 keeps every caster.
    pub min_caster_texels: f32,
    /// The casters' LOD error budget, in multiples of the camera's
    /// (`CullSettings::lod_error_px`), in shadow-map texels and in the
    /// camera's pixels: a shadow is filtered over 3×3 texels and only
    /// darkens what it falls on, so a caster's animated error shows less
    /// in its shadow than in its own picture. 1 is the camera's budget.
    pub caster_error_scale: f32,
    /// Where the cascades end.
    pub distance: ShadowDistance,
    /// Casters take levels no finer than the camera would draw them with,
    /// and coarse levels where it would draw them as impostors
    /// (`crowd::cull::CameraLod`); off: by their error in shadow-map
    /// texels alone.
    pub camera_lod: bool,
}

impl Default for ShadowSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            cascades: 3,
            resolution: 2048,
            debug_tint: false,
            cull_to_view: true,
            min_caster_texels: DEFAULT_MIN_CASTER_TEXELS,
            caster_error_scale: DEFAULT_CASTER_ERROR_SCALE,
            distance: ShadowDistance::Auto,
            camera_lod: true,
        }
    }
}

impl ShadowSettings {
    /// These settings without the far field's caster skipping, shadow
    /// distance, camera-bounded caster levels and casters' larger error.
    pub fn without_far_field(self) -> Self {
        Self {
            min_caster_texels: 0.0,
            caster_error_scale: 1.0,
            distance: ShadowDistance::Off,
            camera_lod: false,
            ..self
        }
    }

    /// The cascade count within 1..=MAX_CASCADES.
    pub fn cascade_count(&self) -> usize {
        (self.cascades as usize).clamp(1, MAX_CASCADES)
    }

    /// The map side within 16..=`max_side`.
    pub fn side(&self, max_side: u32) -> u32 {
        self.resolution.clamp(16, max_side.max(16))
    }
}

/// Mirrors `Shadows` in shaders/shadow.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct ShadowUniform {
    /// World to the light's clip space (depth 0..1), per cascade.
    pub cascades: [[[f32; 4]; 4]; MAX_CASCADES],
    /// World size of one texel, per cascade (the receivers' normal offset).
    pub texel: [f32; 4],
    pub count: u32,
    /// 0 = every receiver fully lit.
    pub enabled: u32,
    /// 1 = tint receivers by cascade.
    pub tint: u32,
    /// Texels on a side of each map.
    pub resolution: f32,
    /// Camera distances where shadows start fading out and end (both 0:
    /// no fade).
    pub fade: [f32; 2],
    pub _pad: [u32; 2],
    /// The view depth (along the camera's forward) where each cascade's
    /// slice ends: a receiver uses the cascade whose slice holds it.
    pub splits: [f32; 4],
    /// xyz = the camera's forward (unit), w = 0.
    pub forward: [f32; 4],
}
const _: () = assert!(std::mem::size_of::<ShadowUniform>() == 336);

/// Mirrors `Caster` in shaders/shadow.wgsl: the light's view-projection of
/// the cascade being drawn (one 256-byte slot per cascade).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct CasterUniform {
    pub view_proj: [[f32; 4]; 4],
}
const _: () = assert!(std::mem::size_of::<CasterUniform>() == 64);

/// The camera's frustum, as the cascades need it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraFrustum {
    /// World to view (right-handed, looking down -Z).
    pub view: Mat4,
    /// Vertical field of view, radians.
    pub fov_y: f32,
    pub aspect: f32,
    pub near: f32,
    /// The farthest distance that gets shadows.
    pub far: f32,
    /// Where shadows end by the shadow distance (they fade out before it),
    /// if they do.
    pub end: Option<f32>,
    /// The camera's whole view-projection: where shadows can be seen.
    pub view_proj: Mat4,
}

/// Where the casters may be: between the ground and `top` (world y).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CasterBand {
    pub ground: f32,
    pub top: f32,
}

/// One cascade: the light's view-projection and what culling needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cascade {
    pub view_proj: Mat4,
    /// Camera distances the slice spans.
    pub near: f32,
    pub far: f32,
    /// Radius of the slice's bounding sphere (half the map's side, world).
    pub radius: f32,
    /// World size of one texel.
    pub texel: f32,
}

impl Cascade {
    /// The part of the camera's view whose receivers use this cascade: the
    /// camera's frustum between the slice's depths (a caster whose shadow
    /// can only land elsewhere is drawn by another cascade, or by none).
    pub fn receivers(&self, frustum: &CameraFrustum) -> Mat4 {
        let near = self.near.max(frustum.near).max(1e-4);
        let far = self.far.max(near * 1.001);
        glam::camera::rh::proj::directx::perspective(
            frustum.fov_y,
            frustum.aspect.max(1e-3),
            near,
            far,
        ) * frustum.view
    }

    /// Shadow-map texels per world unit (the cull pass's orthographic
    /// pixel scale).
    pub fn texels_per_unit(&self) -> f32 {
        1.0 / self.texel.max(1e-12)
    }
}

/// The split distances of `count` cascades between `near` and `far`: the
/// "practical" split, `lambda` of the way from even to logarithmic.
pub fn split_distances(near: f32, far: f32, count: usize, lambda: f32) -> [f32; MAX_CASCADES + 1] {
    let count = count.clamp(1, MAX_CASCADES);
    let near = near.max(1e-4);
    let far = far.max(near * 1.001);
    let mut d = [far; MAX_CASCADES + 1];
    for (i, v) in d.iter_mut().enumerate().take(count + 1) {
        let f = i as f32 / count as f32;
        let log = near * (far / near).powf(f);
        let even = near + (far - near) * f;
        *v = lambda * log + (1.0 - lambda) * even;
    }
    d[0] = near;
    d[count] = far;
    d
}

/// The smallest sphere around the slice `d0..d1` of a symmetric frustum,
/// centred on its axis: (distance of the centre from the eye, radius).
/// It depends only on the slice, never on where the camera looks.
pub fn slice_sphere(tan_x: f32, tan_y: f32, d0: f32, d1: f32) -> (f32, f32) {
    let k2 = tan_x * tan_x + tan_y * tan_y;
    let centre = ((d0 + d1) * 0.5 * (1.0 + k2)).min(d1);
    let near = (centre - d0).powi(2) + d0 * d0 * k2;
    let far = (d1 - centre).powi(2) + d1 * d1 * k2;
    (centre, near.max(far).sqrt())
}

/// The light's rotation: world to a frame whose -Z points along the light
/// (away from the sun), whatever the sun's elevation.
pub fn light_rotation(sun: Vec3) -> Mat4 {
    let up = if sun.normalize_or(Vec3::Y).y.abs() > 0.99 {
        Vec3::Z
    } else {
        Vec3::Y
    };
    glam::camera::rh::view::look_at_mat4(Vec3::ZERO, -sun.normalize_or(Vec3::Y), up)
}

/// The light's view of a sphere (`centre`, `radius`) on a `side`-texel map:
/// centred on the sphere snapped to whole texels in the light's plane, its
/// near plane pulled towards the sun far enough to take in every caster of
/// `band` whose shadow can fall in the sphere.
pub fn fit_sphere(centre: Vec3, radius: f32, sun: Vec3, side: u32, band: CasterBand) -> Cascade {
    let sun = sun.normalize_or(Vec3::Y);
    let rotation = light_rotation(sun);
    let texel = 2.0 * radius / side.max(1) as f32;
    let mut c = rotation.transform_point3(centre);
    c.x = (c.x / texel).floor() * texel;
    c.y = (c.y / texel).floor() * texel;
    // Casters above the sphere's lowest point, up to the band's top, along
    // the sun.
    let rise = (band.top - (centre.y - radius)).max(0.0);
    let back = radius + rise / sun.y.abs().max(0.1);
    let view = Mat4::from_translation(-Vec3::new(c.x, c.y, c.z + back)) * rotation;
    let proj = glam::camera::rh::proj::directx::orthographic(
        -radius,
        radius,
        -radius,
        radius,
        0.0,
        back + radius,
    );
    Cascade {
        view_proj: proj * view,
        near: 0.0,
        far: 0.0,
        radius,
        texel,
    }
}

/// The cascades of `frustum` for a sun towards `sun`, and the uniform the
/// receivers read.
pub fn fit_cascades(
    frustum: &CameraFrustum,
    sun: Vec3,
    settings: &ShadowSettings,
    side: u32,
    band: CasterBand,
) -> ([Cascade; MAX_CASCADES], ShadowUniform) {
    let count = settings.cascade_count();
    let splits = split_distances(frustum.near, frustum.far, count, 0.75);
    let tan_y = (frustum.fov_y * 0.5).tan();
    let tan_x = tan_y * frustum.aspect.max(1e-3);
    let inv_view = frustum.view.inverse();
    let eye = inv_view.transform_point3(Vec3::ZERO);
    let forward = inv_view.transform_vector3(-Vec3::Z).normalize_or(-Vec3::Z);
    let mut cascades = [Cascade {
        view_proj: Mat4::IDENTITY,
        near: 0.0,
        far: 0.0,
        radius: 0.0,
        texel: 0.0,
    }; MAX_CASCADES];
    let mut uniform = ShadowUniform {
        count: count as u32,
        enabled: settings.enabled as u32,
        tint: settings.debug_tint as u32,
        resolution: side as f32,
        fade: frustum
            .end
            .map_or([0.0; 2], |end| [end * (1.0 - SHADOW_FADE), end]),
        splits: std::array::from_fn(|i| splits[i + 1]),
        forward: forward.extend(0.0).to_array(),
        ..Default::default()
    };
    for i in 0..count {
        let (d0, d1) = (splits[i], splits[i + 1]);
        let (along, radius) = slice_sphere(tan_x, tan_y, d0, d1);
        let mut c = fit_sphere(eye + forward * along, radius, sun, side, band);
        c.near = d0;
        c.far = d1;
        uniform.cascades[i] = c.view_proj.to_cols_array_2d();
        uniform.texel[i] = c.texel;
        cascades[i] = c;
    }
    (cascades, uniform)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SUN: Vec3 = Vec3::new(-0.45, 0.62, 0.38);
    const BAND: CasterBand = CasterBand {
        ground: 0.0,
        top: 2.0,
    };

    fn frustum(eye: Vec3, target: Vec3) -> CameraFrustum {
        CameraFrustum {
            view: glam::camera::rh::view::look_at_mat4(eye, target, Vec3::Y),
            fov_y: 45f32.to_radians(),
            aspect: 1.6,
            near: 0.1,
            far: 60.0,
            end: None,
            view_proj: Mat4::IDENTITY,
        }
    }

    fn corners(f: &CameraFrustum, d0: f32, d1: f32) -> Vec<Vec3> {
        let inv = f.view.inverse();
        let ty = (f.fov_y * 0.5).tan();
        let tx = ty * f.aspect;
        let mut out = Vec::new();
        for d in [d0, d1] {
            for (sx, sy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
                out.push(inv.transform_point3(Vec3::new(sx * tx * d, sy * ty * d, -d)));
            }
        }
        out
    }

    #[test]
    fn splits_grow_from_near_to_far() {
        let d = split_distances(0.1, 60.0, 3, 0.75);
        assert_eq!(d[0], 0.1);
        assert_eq!(d[3], 60.0);
        assert!(d[0] < d[1] && d[1] < d[2] && d[2] < d[3], "{d:?}");
        // Nearer cascades are smaller than an even split would make them.
        assert!(d[1] < 20.0);
    }

    #[test]
    fn every_slice_lies_inside_its_cascade() {
        let f = frustum(Vec3::new(3.0, 4.0, 10.0), Vec3::new(0.0, 0.0, 0.0));
        let settings = ShadowSettings::default();
        let (cascades, uniform) = fit_cascades(&f, SUN, &settings, 1024, BAND);
        assert_eq!(uniform.count, 3);
        for c in &cascades[..3] {
            for p in corners(&f, c.near, c.far) {
                let q = c.view_proj.project_point3(p);
                assert!(
                    q.x.abs() <= 1.0 && q.y.abs() <= 1.0 && (0.0..=1.0).contains(&q.z),
                    "corner {p} of slice {}..{} lands at {q}",
                    c.near,
                    c.far
                );
            }
        }
    }

    #[test]
    fn a_caster_above_the_slice_towards_the_sun_is_inside() {
        // A horse-high point whose shadow falls on the slice's centre.
        let f = frustum(Vec3::new(0.0, 3.0, 8.0), Vec3::ZERO);
        let (cascades, _) = fit_cascades(&f, SUN, &ShadowSettings::default(), 1024, BAND);
        let c = &cascades[0];
        let inv = f.view.inverse();
        let mid = inv.transform_point3(Vec3::new(0.0, 0.0, -(c.near + c.far) * 0.5));
        let ground = Vec3::new(mid.x, 0.0, mid.z);
        let caster = ground + SUN.normalize() * (BAND.top / SUN.normalize().y);
        let q = c.view_proj.project_point3(caster);
        assert!((0.0..=1.0).contains(&q.z), "caster depth {}", q.z);
        assert!(q.z < c.view_proj.project_point3(ground).z);
    }

    #[test]
    fn cascades_move_by_whole_texels_and_keep_their_size() {
        let side = 1024;
        let settings = ShadowSettings::default();
        let a = frustum(Vec3::new(0.0, 4.0, 10.0), Vec3::ZERO);
        let (ca, _) = fit_cascades(&a, SUN, &settings, side, BAND);
        // Moved sideways by a small, odd amount, and turned.
        let shift = Vec3::new(0.0137, 0.0021, -0.0093);
        let b = frustum(
            Vec3::new(0.0, 4.0, 10.0) + shift,
            Vec3::new(0.7, 0.0, 0.2) + shift,
        );
        let (cb, _) = fit_cascades(&b, SUN, &settings, side, BAND);
        for (x, y) in ca.iter().zip(&cb).take(3) {
            assert!(
                (x.radius - y.radius).abs() < 1e-4 * x.radius,
                "size changed"
            );
            // A fixed world point moves across the map by whole texels.
            let p = Vec3::new(1.3, 0.0, -2.1);
            let (qa, qb) = (x.view_proj.project_point3(p), y.view_proj.project_point3(p));
            for d in [qa.x - qb.x, qa.y - qb.y] {
                let texels = d * side as f32 * 0.5;
                assert!(
                    (texels - texels.round()).abs() < 0.02,
                    "moved by {texels} texels"
                );
            }
        }
    }
}
