//! GPU culling and LOD selection as plain data and pure functions: the
//! parameters `shaders/cull.wgsl` reads ([`CullUniform`], mirrored and
//! checked by tests/gpu_layout.rs), the frustum planes, and the CPU twin of
//! the per-instance rule (`cull_instance` in cull.wgsl): a bounding sphere
//! against the frustum (for a shadow cascade, also the camera's frustum the
//! sphere must reach when swept along the light, and a size under which a
//! caster's shadow is skipped), then the impostor where the sphere
//! projects small enough, else the coarsest mesh level whose animated
//! error projects to at most the pixel budget, then nearest-frame
//! sampling where the bake's interpolation error does too.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};

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
            coarse_levels: true,
        }
    }
}

impl CullSettings {
    /// These settings without the far field's levels and impostors.
    pub fn without_far_field(self) -> Self {
        Self {
            impostors: false,
            coarse_levels: false,
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
    /// Model-space bounding sphere of every baked frame: xyz centre, w radius.
    pub sphere: [f32; 4],
    /// Each mesh level's animated error in model units (level `l` at
    /// `[l / 4][l % 4]`).
    pub level_error: [[f32; 4]; 2],
    /// Instances to cull.
    pub count: u32,
    /// Mesh levels (the impostor region is region `levels`).
    pub levels: u32,
    pub flags: u32,
    pub budget_px: f32,
    /// Entries per region in the visible list.
    pub region: u32,
    /// Worst nearest-frame error over the clips, model units.
    pub nearest_error: f32,
    /// 1 = orthographic view.
    pub orthographic: u32,
    /// With [`FLAG_IMPOSTOR`]: the largest diameter, in pixels, that is
    /// drawn as an impostor.
    pub impostor_px: f32,
    /// With [`FLAG_RECEIVERS`]: the receivers' planes, as `planes`.
    pub receivers: [[f32; 4]; 6],
    /// xyz = the direction shadows travel (unit), w = the margin added to
    /// the radius for this test.
    pub sweep: [f32; 4],
    /// With [`FLAG_MIN_SIZE`]: the smallest diameter, in pixels, kept.
    pub min_size_px: f32,
    /// The region impostors go to: after every mesh level of the chain
    /// (`levels` may use fewer of them).
    pub impostor_region: u32,
    pub _pad1: u32,
    pub _pad2: u32,
}
const _: () = assert!(std::mem::size_of::<CullUniform>() == 320);

/// The six planes of `view_proj` (clip space with depth 0..1, the renderer's convention), normalized.
pub fn frustum_planes(view_proj: Mat4) -> [Vec4; 6] {
    let r0 = view_proj.row(0);
    let r1 = view_proj.row(1);
    let r2 = view_proj.row(2);
    let r3 = view_proj.row(3);
    [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2].map(|p| {
        let len = p.truncate().length();
        if len > 0.0 { p / len } else { p }
    })
}

/// The sphere's signed margin against the worst plane: `>= 0` inside or
/// straddling, `< 0` wholly outside one plane.
pub fn sphere_margin(planes: &[Vec4; 6], centre: Vec3, radius: f32) -> f32 {
    planes
        .iter()
        .map(|p| p.truncate().dot(centre) + p.w + radius)
        .fold(f32::INFINITY, f32::min)
}

/// Whether the sphere swept from `centre` along `sweep` (to infinity) can
/// reach the inside of `planes`: false when it starts wholly outside one
/// plane and moves no closer to it.
pub fn sweep_reaches(planes: &[Vec4; 6], centre: Vec3, radius: f32, sweep: Vec3) -> bool {
    planes
        .iter()
        .all(|p| p.truncate().dot(centre) + p.w + radius >= 0.0 || p.truncate().dot(sweep) > 0.0)
}

impl CullUniform {
    /// The parameters for `view`; `impostors` says whether an atlas is
    /// there to draw them from.
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
    ) -> Self {
        let planes = frustum_planes(view.view_proj).map(|p| p.to_array());
        let mut errors = [[0.0; 4]; 2];
        let levels = level_error.len().clamp(1, MAX_LEVELS);
        for (l, &e) in level_error.iter().take(levels).enumerate() {
            errors[l / 4][l % 4] = e;
        }
        let (receivers, sweep, receiver_flag) = match view.receivers {
            Some(r) if settings.culling => (
                frustum_planes(r.view_proj).map(|p| p.to_array()),
                r.sweep
                    .normalize_or_zero()
                    .extend(r.margin.max(0.0))
                    .to_array(),
                FLAG_RECEIVERS,
            ),
            _ => ([[0.0; 4]; 6], [0.0; 4], 0),
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
        Self {
            planes,
            eye: view.eye.extend(view.pixel_scale).to_array(),
            sphere: sphere.0.extend(sphere.1).to_array(),
            level_error: errors,
            count,
            levels: levels as u32,
            flags: settings.flags() | receiver_flag | impostor_flag | size_flag,
            budget_px: settings.lod_error_px.max(0.0),
            region,
            nearest_error,
            orthographic: view.orthographic as u32,
            impostor_px: settings.impostor_px.max(0.0),
            receivers,
            sweep,
            min_size_px: view.min_size_px.max(0.0),
            impostor_region: levels as u32,
            _pad1: 0,
            _pad2: 0,
        }
    }

    /// Mesh level `l`'s animated error.
    pub fn level_error(&self, l: u32) -> f32 {
        self.level_error[(l / 4) as usize % 2][(l % 4) as usize]
    }

    /// Pixels the diameter of an instance's sphere at `centre` (radius
    /// already scaled) covers: seen from its centre's distance.
    pub fn diameter_px(&self, centre: Vec3, radius: f32) -> f32 {
        let size = 2.0 * radius * self.eye[3];
        if self.orthographic != 0 {
            return size;
        }
        size / (centre - Vec3::from_slice(&self.eye[..3]))
            .length()
            .max(1e-4)
    }

    /// Pixels `error` model units project to on an instance of `scale`
    /// whose sphere is at `centre` (radius already scaled): as if at the
    /// sphere's nearest point to the eye (`project_error`).
    pub fn project(&self, error: f32, scale: f32, centre: Vec3, radius: f32) -> f32 {
        let size = error * scale * self.eye[3];
        if self.orthographic != 0 {
            return size;
        }
        let dist = (centre - Vec3::from_slice(&self.eye[..3])).length() - radius;
        size / dist.max(1e-4)
    }

    /// The CPU twin of `cull_instance`: `None` when culled, else the entry
    /// bits above the index (region and nearest flag).
    pub fn cull(&self, centre: Vec3, radius: f32, scale: f32) -> Option<u32> {
        let planes = self.planes.map(Vec4::from_array);
        if self.flags & FLAG_FRUSTUM != 0 && sphere_margin(&planes, centre, radius) < 0.0 {
            return None;
        }
        if self.flags & FLAG_RECEIVERS != 0 {
            let receivers = self.receivers.map(Vec4::from_array);
            let sweep = Vec4::from_array(self.sweep);
            if !sweep_reaches(&receivers, centre, radius + sweep.w, sweep.truncate()) {
                return None;
            }
        }
        let size = self.diameter_px(centre, radius);
        if self.flags & FLAG_MIN_SIZE != 0 && size < self.min_size_px {
            return None;
        }
        if self.flags & FLAG_IMPOSTOR != 0 && size <= self.impostor_px {
            return Some(self.impostor_region.min(MAX_LEVELS as u32) << INDEX_BITS);
        }
        let mut level = 0;
        if self.flags & FLAG_LOD != 0 {
            for l in (1..self.levels.min(MAX_LEVELS as u32)).rev() {
                let e = self.level_error(l);
                if self.project(e, scale, centre, radius) <= self.budget_px {
                    level = l;
                    break;
                }
            }
        }
        let nearest = self.flags & FLAG_ANIM_LOD != 0
            && self.project(self.nearest_error, scale, centre, radius) <= self.budget_px;
        Some((level << INDEX_BITS) | if nearest { NEAREST_BIT } else { 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view() -> CullView {
        let proj =
            glam::camera::rh::proj::directx::perspective(60f32.to_radians(), 1.0, 0.1, 100.0);
        let v =
            glam::camera::rh::view::look_at_mat4(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
        CullView {
            view_proj: proj * v,
            eye: Vec3::new(0.0, 0.0, 10.0),
            pixel_scale: 100.0 / (30f32.to_radians()).tan(),
            orthographic: false,
            receivers: None,
            min_size_px: 0.0,
            impostors: true,
        }
    }

    fn uniform(settings: &CullSettings) -> CullUniform {
        CullUniform::new(
            &view(),
            settings,
            (Vec3::ZERO, 1.0),
            &[0.0, 0.01, 0.05, 0.2],
            0.02,
            1,
            64,
            false,
        )
    }

    #[test]
    fn planes_keep_the_inside_and_cut_the_outside() {
        let u = uniform(&CullSettings::default());
        assert!(u.cull(Vec3::ZERO, 1.0, 1.0).is_some());
        // Behind the eye, beyond the far plane, far to the side.
        assert!(u.cull(Vec3::new(0.0, 0.0, 20.0), 1.0, 1.0).is_none());
        assert!(u.cull(Vec3::new(0.0, 0.0, -200.0), 1.0, 1.0).is_none());
        assert!(u.cull(Vec3::new(50.0, 0.0, 0.0), 1.0, 1.0).is_none());
        // Straddling the right plane: its centre is outside, its edge is in.
        let x_edge = 10.0 * 30f32.to_radians().tan();
        assert!(
            u.cull(Vec3::new(x_edge + 0.5, 0.0, 0.0), 1.0, 1.0)
                .is_some()
        );
        assert!(
            u.cull(Vec3::new(x_edge + 1.5, 0.0, 0.0), 1.0, 1.0)
                .is_none()
        );
        // Culling off keeps everyone.
        let off = uniform(&CullSettings {
            culling: false,
            ..Default::default()
        });
        assert!(off.cull(Vec3::new(50.0, 0.0, 0.0), 1.0, 1.0).is_some());
    }

    #[test]
    fn far_instances_take_coarser_levels_and_nearest_frames() {
        let u = uniform(&CullSettings::default());
        let level = |z: f32| {
            u.cull(Vec3::new(0.0, 0.0, z), 1.0, 1.0)
                .map(|e| e >> INDEX_BITS & LEVEL_MASK)
        };
        // Near: full detail; far: coarser, never finer as it recedes.
        assert_eq!(level(8.0), Some(0));
        let mut last = 0;
        for z in [5.0, 0.0, -20.0, -50.0, -85.0] {
            let l = level(z).expect("in view");
            assert!(l >= last, "level {l} after {last} at z {z}");
            last = l;
        }
        assert_eq!(last, 3);
        let nearest = |z: f32| u.cull(Vec3::new(0.0, 0.0, z), 1.0, 1.0).unwrap() & NEAREST_BIT;
        assert_eq!(nearest(8.0), 0);
        assert_ne!(nearest(-85.0), 0);
        // LOD off: always level 0 with both frames.
        let off = uniform(&CullSettings {
            lod: false,
            ..Default::default()
        });
        assert_eq!(off.cull(Vec3::new(0.0, 0.0, -85.0), 1.0, 1.0), Some(0));
    }

    #[test]
    fn a_bigger_budget_never_picks_a_finer_level() {
        for budget in [0.5f32, 1.0, 2.0, 8.0] {
            let a = uniform(&CullSettings {
                lod_error_px: budget,
                ..Default::default()
            });
            let b = uniform(&CullSettings {
                lod_error_px: budget * 2.0,
                ..Default::default()
            });
            for z in [-80.0, -40.0, -10.0, 0.0, 5.0] {
                let c = Vec3::new(0.0, 0.0, z);
                assert!(
                    b.cull(c, 1.0, 1.0).unwrap() >> INDEX_BITS & LEVEL_MASK
                        >= a.cull(c, 1.0, 1.0).unwrap() >> INDEX_BITS & LEVEL_MASK
                );
            }
        }
    }

    #[test]
    fn small_instances_become_impostors_and_tiny_ones_are_skipped() {
        let settings = CullSettings {
            impostor_px: 20.0,
            ..Default::default()
        };
        let u = CullUniform::new(
            &view(),
            &settings,
            (Vec3::ZERO, 1.0),
            &[0.0, 0.01, 0.05, 0.2],
            0.02,
            1,
            64,
            true,
        );
        assert_ne!(u.flags & FLAG_IMPOSTOR, 0);
        // The sphere's diameter (2) covers 2 × 173.2 / distance pixels.
        let region = |z: f32| u.cull(Vec3::new(0.0, 0.0, z), 1.0, 1.0).map(entry_region);
        assert!(region(8.0).unwrap() < 4, "near: a mesh level");
        // 2 × 173.2 / 20 = 17.3 units away is the switch.
        assert!(region(10.0 - 17.0).unwrap() < 4);
        assert_eq!(
            region(10.0 - 18.0),
            Some(4),
            "far: the impostor region after 4 levels"
        );
        assert_eq!(region(-85.0), Some(4));
        // No atlas, LOD off, or a view without impostors (a light's): mesh
        // levels only.
        for u in [
            CullUniform::new(
                &view(),
                &settings,
                (Vec3::ZERO, 1.0),
                &[0.0, 0.01],
                0.02,
                1,
                64,
                false,
            ),
            CullUniform::new(
                &view(),
                &CullSettings {
                    lod: false,
                    ..settings
                },
                (Vec3::ZERO, 1.0),
                &[0.0, 0.01],
                0.02,
                1,
                64,
                true,
            ),
            CullUniform::new(
                &CullView {
                    impostors: false,
                    ..view()
                },
                &settings,
                (Vec3::ZERO, 1.0),
                &[0.0, 0.01],
                0.02,
                1,
                64,
                true,
            ),
        ] {
            assert_eq!(u.flags & FLAG_IMPOSTOR, 0);
            assert!(entry_region(u.cull(Vec3::new(0.0, 0.0, -85.0), 1.0, 1.0).unwrap()) < 2);
        }
        // A minimum size skips what projects under it, with culling on.
        let small = CullView {
            min_size_px: 5.0,
            ..view()
        };
        let u = CullUniform::new(
            &small,
            &CullSettings::default(),
            (Vec3::ZERO, 1.0),
            &[0.0],
            0.0,
            1,
            64,
            false,
        );
        // 2 × 173.2 / 5 = 69.3 units away is the limit.
        assert!(u.cull(Vec3::new(0.0, 0.0, 10.0 - 69.0), 1.0, 1.0).is_some());
        assert!(u.cull(Vec3::new(0.0, 0.0, 10.0 - 70.0), 1.0, 1.0).is_none());
        let off = CullUniform::new(
            &small,
            &CullSettings {
                culling: false,
                ..Default::default()
            },
            (Vec3::ZERO, 1.0),
            &[0.0],
            0.0,
            1,
            64,
            false,
        );
        assert!(
            off.cull(Vec3::new(0.0, 0.0, 10.0 - 70.0), 1.0, 1.0)
                .is_some()
        );
    }

    #[test]
    fn six_levels_are_chosen_like_four() {
        let errors = [0.0, 0.01, 0.05, 0.2, 0.5, 1.0];
        let proj =
            glam::camera::rh::proj::directx::perspective(60f32.to_radians(), 1.0, 0.1, 10_000.0);
        let look =
            glam::camera::rh::view::look_at_mat4(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
        let deep = CullView {
            view_proj: proj * look,
            ..view()
        };
        let u = CullUniform::new(
            &deep,
            &CullSettings {
                impostors: false,
                ..Default::default()
            },
            (Vec3::ZERO, 1.0),
            &errors,
            0.02,
            1,
            64,
            true,
        );
        assert_eq!(u.levels, 6);
        for (l, e) in errors.iter().enumerate() {
            assert_eq!(u.level_error(l as u32), *e);
        }
        let mut last = 0;
        for z in [8.0, 0.0, -20.0, -50.0, -85.0, -300.0, -2000.0] {
            let l = entry_region(u.cull(Vec3::new(0.0, 0.0, z), 1.0, 1.0).expect("in view"));
            assert!(l >= last, "level {l} after {last} at {z}");
            last = l;
        }
        assert_eq!(last, 5, "the coarsest level far away");
    }

    #[test]
    fn receivers_keep_casters_whose_shadow_reaches_the_view() {
        // The camera looks down -Z from z = 10 (60°, near 0.1, far 100);
        // shadows travel down and towards +X.
        let sweep = Vec3::new(1.0, -1.0, 0.0).normalize();
        let light = CullView {
            receivers: Some(Receivers {
                view_proj: view().view_proj,
                sweep,
                margin: 0.0,
            }),
            // A light box that takes in everything, so only the
            // receivers decide.
            view_proj: glam::camera::rh::proj::directx::orthographic(
                -500.0, 500.0, -500.0, 500.0, -500.0, 500.0,
            ),
            ..view()
        };
        let u = CullUniform::new(
            &light,
            &CullSettings::default(),
            (Vec3::ZERO, 1.0),
            &[0.0],
            0.0,
            1,
            64,
            false,
        );
        assert_ne!(u.flags & FLAG_RECEIVERS, 0);
        // In view: kept.
        assert!(u.cull(Vec3::ZERO, 1.0, 1.0).is_some());
        // Left of the view and above it: its shadow moves right and down
        // into the view.
        assert!(u.cull(Vec3::new(-30.0, 30.0, 0.0), 1.0, 1.0).is_some());
        // Right of the view: its shadow moves further right.
        assert!(u.cull(Vec3::new(30.0, 0.0, 0.0), 1.0, 1.0).is_none());
        // Behind the camera: shadows never travel along -Z... nor +Z.
        assert!(u.cull(Vec3::new(0.0, 0.0, 30.0), 1.0, 1.0).is_none());
        // Below the view: moves further down.
        assert!(u.cull(Vec3::new(0.0, -30.0, 0.0), 1.0, 1.0).is_none());
        // Culling off keeps them all; no receivers keeps them too.
        let off = CullUniform::new(
            &light,
            &CullSettings {
                culling: false,
                ..Default::default()
            },
            (Vec3::ZERO, 1.0),
            &[0.0],
            0.0,
            1,
            64,
            false,
        );
        assert!(off.cull(Vec3::new(30.0, 0.0, 0.0), 1.0, 1.0).is_some());
        let plain = CullUniform::new(
            &CullView {
                receivers: None,
                ..light
            },
            &CullSettings::default(),
            (Vec3::ZERO, 1.0),
            &[0.0],
            0.0,
            1,
            64,
            false,
        );
        assert!(plain.cull(Vec3::new(30.0, 0.0, 0.0), 1.0, 1.0).is_some());
    }
}
