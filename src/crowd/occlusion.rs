//! Occlusion culling as plain data and pure functions: the depth pyramid's
//! shape (mip `m` is `ceil(W / 2^m) × ceil(H / 2^m)`, so texel `x` of mip
//! `m + 1` covers texels `2x` and `2x + 1` of mip `m`, clamped: every texel
//! is covered at any size, odd ones included), the parameters
//! `shaders/cull.wgsl` reads for the two phases ([`OcclusionUniform`],
//! mirrored and checked by tests/gpu_layout.rs), and the CPU twins of the
//! pyramid's reduction (shaders/pyramid.wgsl) and of the phase-2 test
//! (`occluded` in shaders/occlusion.wgsl).
//!
//! The test: a mesh's box (the model's box of every baked frame of every
//! clip, placed) has its eight corners projected to a screen rectangle (an
//! impostor's bounding sphere is boxed in view space first: its atlas view
//! may reach past the box, never past the sphere), by the projection the
//! early pass drew with (TAA's jitter included), and the rectangle looked
//! up at the mip where it is at most [`TEST_TEXELS`] texels wide and high;
//! the instance is occluded when the nearest depth of its bounds is behind
//! the farthest depth of the texels it straddles there. (At most 2×2, as first built, hid a
//! fifth to a half fewer horses at eye level: a coarser mip's texel
//! reaches further past the rectangle, over what shows behind.)

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec2, Vec3, Vec4};

/// The most pyramid mips (a 65,536-texel side needs 17).
pub const MAX_MIPS: usize = 16;

/// `OcclusionUniform::phase`: no occlusion (every survivor is drawn), the
/// first phase (only those visible last frame; every survivor is listed),
/// the second (the listed survivors tested against the pyramid; the
/// visibility of every instance is recorded for the next frame), the
/// second without the test (culling frozen before any history).
pub const PHASE_OFF: u32 = 0;
pub const PHASE_EARLY: u32 = 1;
pub const PHASE_LATE: u32 = 2;
pub const PHASE_LATE_UNTESTED: u32 = 3;

/// Words of the occlusion state after the history (the survivors' count),
/// and per listed survivor (its screen rectangle's two corners, its
/// nearest depth with whether phase 1 drew it, its entry):
/// shaders/occlusion.wgsl.
pub const SURVIVORS_HEADER: u32 = 4;
pub const SURVIVOR_WORDS: u32 = 4;

/// A rectangle is looked up at the mip where its width and height are at
/// most this many texels; where it does not start on a texel's edge it
/// straddles one more (at most 5 × 5 texels read).
pub const TEST_TEXELS: u32 = 4;

/// Words after the regions' arguments: the occluded count (phase 2), the
/// survivors listed and phase 2's dispatch (phase 1), a light view's
/// dropped casters (`DROPPED_WORD` of the cull module), the camera's
/// splats (`SPLAT_WORD`), and the casters the camera's pass listed for the
/// shadow cascades with their dispatch (`crowd::caster_list`; the list's
/// entries follow).
pub const COUNTER_WORDS: usize = crate::crowd::caster_list::CASTER_ENTRIES as usize;

/// The sizes of the pyramid's mips over a `width × height` depth, down to
/// 1 × 1 (at most [`MAX_MIPS`]).
pub fn mip_sizes(width: u32, height: u32) -> Vec<(u32, u32)> {
    let (w, h) = (width.max(1), height.max(1));
    let mut sizes = Vec::new();
    for m in 0..MAX_MIPS as u32 {
        let size = (((w - 1) >> m) + 1, ((h - 1) >> m) + 1);
        sizes.push(size);
        if size == (1, 1) {
            break;
        }
    }
    sizes
}

/// Where each mip starts in the pyramid's buffer (in texels), and the
/// texels of the whole pyramid.
pub fn mip_offsets(sizes: &[(u32, u32)]) -> ([u32; MAX_MIPS], u32) {
    let mut offsets = [0; MAX_MIPS];
    let mut at = 0;
    for (m, (w, h)) in sizes.iter().enumerate().take(MAX_MIPS) {
        offsets[m] = at;
        at += w * h;
    }
    (offsets, at)
}

/// A depth pyramid on the CPU: every mip, finest first (row-major).
#[derive(Clone, Debug, PartialEq)]
pub struct Pyramid {
    pub sizes: Vec<(u32, u32)>,
    pub mips: Vec<Vec<f32>>,
}

impl Pyramid {
    /// The CPU twin of shaders/pyramid.wgsl: mip 0 is the farthest of each
    /// pixel's `samples` depths (`depth[(y * width + x) * samples + s]`),
    /// each next mip the farthest of the (up to) 2×2 texels it covers.
    pub fn reduce(depth: &[f32], width: u32, height: u32, samples: u32) -> Self {
        let sizes = mip_sizes(width, height);
        let s = samples.max(1) as usize;
        let base: Vec<f32> = (0..(width * height) as usize)
            .map(|p| depth[p * s..p * s + s].iter().copied().fold(0.0, f32::max))
            .collect();
        let mut mips = vec![base];
        for m in 1..sizes.len() {
            let (sw, sh) = sizes[m - 1];
            let (w, h) = sizes[m];
            let src = &mips[m - 1];
            let mut dst = vec![0.0; (w * h) as usize];
            for y in 0..h {
                for x in 0..w {
                    let mut far = 0.0f32;
                    for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let (sx, sy) = ((2 * x + dx).min(sw - 1), (2 * y + dy).min(sh - 1));
                        far = far.max(src[(sy * sw + sx) as usize]);
                    }
                    dst[(y * w + x) as usize] = far;
                }
            }
            mips.push(dst);
        }
        Self { sizes, mips }
    }

    /// From the GPU's buffer (the mips one after another).
    pub fn from_words(words: &[f32], width: u32, height: u32) -> Self {
        let sizes = mip_sizes(width, height);
        let (offsets, _) = mip_offsets(&sizes);
        let mips = sizes
            .iter()
            .enumerate()
            .map(|(m, (w, h))| {
                let at = offsets[m] as usize;
                words
                    .get(at..at + (w * h) as usize)
                    .map_or_else(Vec::new, <[f32]>::to_vec)
            })
            .collect();
        Self { sizes, mips }
    }

    fn texel(&self, mip: usize, x: u32, y: u32) -> f32 {
        let (w, h) = self.sizes[mip];
        self.mips[mip][(y.min(h - 1) * w + x.min(w - 1)) as usize]
    }
}

/// The parameters of the cull pass's occlusion (group 3, binding 3 of
/// shaders/cull.wgsl): which phase this dispatch is, the camera the
/// pyramid was drawn from, and the pyramid's shape.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq)]
pub struct OcclusionUniform {
    pub view: [[f32; 4]; 4],
    pub proj: [[f32; 4]; 4],
    /// `proj × view`, once for every box phase 1 projects.
    pub view_proj: [[f32; 4]; 4],
    /// The drawn viewport in the depth's pixels: x, y, width, height.
    pub viewport: [f32; 4],
    /// The pyramid's mip 0 (the depth's size).
    pub size: [u32; 2],
    pub mips: u32,
    pub phase: u32,
    /// The word after the regions' arguments: in phase 2's the occluded
    /// count; in phase 1's the survivors listed, then phase 2's dispatch.
    pub counter_word: u32,
    /// Instances the history holds (where the survivors' list starts).
    pub capacity: u32,
    pub _pad: [u32; 2],
    pub offsets: [[u32; 4]; MAX_MIPS / 4],
}

impl Default for OcclusionUniform {
    fn default() -> Self {
        Self::zeroed()
    }
}

/// The footprint on screen of an instance's bounds (a mesh's box, an
/// impostor's sphere): its pixel rectangle (inclusive) and its nearest
/// depth. Pixel coordinates are below 65,536 (phase 1 packs them in 16
/// bits; no adapter's texture is that large).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenRect {
    pub min: [u32; 2],
    pub max: [u32; 2],
    pub depth: f32,
}

impl OcclusionUniform {
    /// The parameters of `phase` for a camera (`view`, `proj`) drawn into
    /// `viewport` of a `size` depth.
    pub fn new(view: Mat4, proj: Mat4, viewport: [f32; 4], size: (u32, u32), phase: u32) -> Self {
        let sizes = mip_sizes(size.0, size.1);
        let (offsets, _) = mip_offsets(&sizes);
        let mut u = Self {
            view: view.to_cols_array_2d(),
            proj: proj.to_cols_array_2d(),
            view_proj: (proj * view).to_cols_array_2d(),
            viewport,
            size: [size.0.max(1), size.1.max(1)],
            mips: sizes.len() as u32,
            phase,
            ..Self::zeroed()
        };
        for (m, o) in offsets.iter().enumerate() {
            u.offsets[m / 4][m % 4] = *o;
        }
        u
    }

    pub fn offset(&self, mip: usize) -> u32 {
        self.offsets[mip / 4][mip % 4]
    }

    /// The twin of `sphere_rect` in shaders/occlusion.wgsl: the cube
    /// around the sphere in view space, projected; `None` when it reaches
    /// the near plane or leaves the viewport (never occluded then).
    pub fn sphere_rect(&self, centre: Vec3, radius: f32) -> Option<ScreenRect> {
        let view = Mat4::from_cols_array_2d(&self.view);
        let proj = Mat4::from_cols_array_2d(&self.proj);
        let c = view * centre.extend(1.0);
        let near = proj * Vec4::new(c.x, c.y, c.z + radius, 1.0);
        if near.w <= 1e-5 {
            return None;
        }
        let mut lo = Vec2::splat(f32::MAX);
        let mut hi = Vec2::splat(f32::MIN);
        for k in 0..8 {
            let corner = Vec4::new(
                c.x + if k & 1 == 0 { -radius } else { radius },
                c.y + if k & 2 == 0 { -radius } else { radius },
                c.z + if k & 4 == 0 { -radius } else { radius },
                1.0,
            );
            let clip = proj * corner;
            if clip.w <= 1e-5 {
                return None;
            }
            let ndc = Vec2::new(clip.x, clip.y) / clip.w;
            lo = lo.min(ndc);
            hi = hi.max(ndc);
        }
        self.screen_rect(lo, hi, near.z / near.w)
    }

    /// The twin of `box_rect` in shaders/occlusion.wgsl: the box of world
    /// `centre` and half-axes `axes`, its corners projected, with the
    /// nearest corner's depth (the box's nearest point is a corner).
    pub fn box_rect(&self, centre: Vec3, axes: [Vec3; 3]) -> Option<ScreenRect> {
        let vp = Mat4::from_cols_array_2d(&self.view_proj);
        let c = vp * centre.extend(1.0);
        let a = axes.map(|v| vp * v.extend(0.0));
        let mut lo = Vec2::splat(f32::MAX);
        let mut hi = Vec2::splat(f32::MIN);
        let mut depth = f32::MAX;
        for k in 0..8 {
            let pick = |bit: usize, v: Vec4| if k & bit == 0 { -v } else { v };
            let clip = c + pick(1, a[0]) + pick(2, a[1]) + pick(4, a[2]);
            if clip.w <= 1e-5 {
                return None;
            }
            let ndc = clip.truncate() / clip.w;
            lo = lo.min(ndc.truncate());
            hi = hi.max(ndc.truncate());
            depth = depth.min(ndc.z);
        }
        self.screen_rect(lo, hi, depth)
    }

    /// The pixels (inclusive) an NDC rectangle touches, with its nearest
    /// depth.
    fn screen_rect(&self, lo: Vec2, hi: Vec2, depth: f32) -> Option<ScreenRect> {
        let [vx, vy, vw, vh] = self.viewport;
        // NDC y up, pixels down.
        let x0 = vx + (lo.x * 0.5 + 0.5) * vw;
        let x1 = vx + (hi.x * 0.5 + 0.5) * vw;
        let y0 = vy + (0.5 - hi.y * 0.5) * vh;
        let y1 = vy + (0.5 - lo.y * 0.5) * vh;
        let (w, h) = (self.size[0] as f32, self.size[1] as f32);
        if x1 < 0.0 || y1 < 0.0 || x0 >= w || y0 >= h {
            return None;
        }
        let px = |v: f32, n: f32| v.clamp(0.0, n - 1.0).floor() as u32;
        Some(ScreenRect {
            min: [px(x0, w), px(y0, h)],
            max: [px(x1, w), px(y1, h)],
            depth,
        })
    }

    /// The mip where `rect` is at most [`TEST_TEXELS`] texels wide and high.
    pub fn mip_for(&self, rect: &ScreenRect) -> usize {
        let span = (rect.max[0] - rect.min[0]).max(rect.max[1] - rect.min[1]) + 1;
        let mut m = 0;
        while (TEST_TEXELS << m) < span && m + 1 < self.mips as usize {
            m += 1;
        }
        m
    }

    /// The twin of `occluded` in shaders/occlusion.wgsl: the rectangle's
    /// nearest depth is behind the pyramid's farthest over it (`None`, no
    /// rectangle: never occluded).
    pub fn occluded(&self, pyramid: &Pyramid, rect: Option<ScreenRect>) -> bool {
        let Some(rect) = rect else {
            return false;
        };
        let m = self.mip_for(&rect);
        let (x0, y0, x1, y1) = (
            rect.min[0] >> m,
            rect.min[1] >> m,
            rect.max[0] >> m,
            rect.max[1] >> m,
        );
        let far = (y0..=y1)
            .flat_map(|y| (x0..=x1).map(move |x| (x, y)))
            .map(|(x, y)| pyramid.texel(m, x, y))
            .fold(0.0, f32::max);
        rect.depth > far
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mips_halve_rounding_up() {
        let s = mip_sizes(1279, 719);
        assert_eq!(s[0], (1279, 719));
        assert_eq!(s[1], (640, 360));
        assert_eq!(s[2], (320, 180));
        assert_eq!(*s.last().unwrap(), (1, 1));
        assert_eq!(mip_sizes(1, 1), vec![(1, 1)]);
        let (offsets, total) = mip_offsets(&s);
        assert_eq!(offsets[1], 1279 * 719);
        assert_eq!(total, s.iter().map(|(w, h)| w * h).sum::<u32>());
    }

    #[test]
    fn every_texel_is_covered_at_odd_sizes() {
        // A single far texel in the last column and row survives to 1x1.
        let (w, h) = (7, 5);
        let mut depth = vec![0.1; (w * h) as usize];
        depth[(h * w - 1) as usize] = 0.9;
        let p = Pyramid::reduce(&depth, w, h, 1);
        for mip in &p.mips[1..] {
            assert!(mip.contains(&0.9));
        }
        assert_eq!(p.mips.last().unwrap(), &vec![0.9]);
    }

    fn camera() -> (OcclusionUniform, Mat4) {
        let view = glam::camera::rh::view::look_at_mat4(Vec3::ZERO, -Vec3::Z, Vec3::Y);
        let proj = glam::camera::rh::proj::directx::perspective(1.0, 1.0, 0.1, 100.0);
        let u = OcclusionUniform::new(view, proj, [0.0, 0.0, 64.0, 64.0], (64, 64), PHASE_LATE);
        (u, proj)
    }

    /// A wall at distance 10 over the whole 64 × 64 view, but for the
    /// pixels `holes` (x, y), where nothing was drawn.
    fn wall(proj: Mat4, holes: &[(usize, usize)]) -> Pyramid {
        let wall = proj.project_point3(Vec3::new(0.0, 0.0, -10.0)).z;
        let mut depth = vec![wall; 64 * 64];
        for &(x, y) in holes {
            depth[y * 64 + x] = 1.0;
        }
        Pyramid::reduce(&depth, 64, 64, 1)
    }

    #[test]
    fn a_sphere_behind_a_wall_is_occluded_and_one_in_front_is_not() {
        let (u, proj) = camera();
        let p = wall(proj, &[]);
        let sphere = |z: f32| u.sphere_rect(Vec3::new(0.0, 0.0, z), 1.0);
        assert!(u.occluded(&p, sphere(-20.0)));
        assert!(!u.occluded(&p, sphere(-5.0)));
        // Straddling the wall: not occluded.
        assert!(!u.occluded(&p, sphere(-10.5)));
        // Reaching the near plane: never occluded.
        assert!(sphere(-0.5).is_none());
        // A hole in the wall where the sphere is: not occluded.
        assert!(!u.occluded(&wall(proj, &[(32, 32)]), sphere(-20.0)));
        // A hole at the rectangle's last column counts; one past the
        // texels looked up does not.
        let r = sphere(-20.0).unwrap();
        assert!(!u.occluded(&wall(proj, &[(r.max[0] as usize, 32)]), sphere(-20.0)));
        let m = u.mip_for(&r);
        let past = (((r.max[0] >> m) + 1) << m) as usize;
        assert!(u.occluded(&wall(proj, &[(past, 32)]), sphere(-20.0)));
    }

    #[test]
    fn a_box_is_tighter_than_its_sphere_and_its_nearest_corner_decides() {
        let (u, proj) = camera();
        // Tall and thin, 20 away: a fraction of its sphere's rectangle, so
        // it is looked up at a finer mip, whose texels miss a hole in the
        // sphere's last column.
        let upright = [
            Vec3::new(0.3, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
            Vec3::new(0.0, 0.0, 3.0),
        ];
        let centre = Vec3::new(0.0, 0.0, -20.0);
        let radius = upright
            .iter()
            .map(|a| a.length_squared())
            .sum::<f32>()
            .sqrt();
        let boxed = u.box_rect(centre, upright).unwrap();
        let sphere = u.sphere_rect(centre, radius).unwrap();
        let width = |r: &ScreenRect| r.max[0] - r.min[0] + 1;
        let height = |r: &ScreenRect| r.max[1] - r.min[1] + 1;
        assert!(
            width(&boxed) <= 6 && width(&sphere) >= 25,
            "{boxed:?} {sphere:?}"
        );
        assert!(height(&boxed) < height(&sphere));
        assert!(u.mip_for(&boxed) < u.mip_for(&sphere));
        let holed = wall(proj, &[(sphere.max[0] as usize, 32)]);
        assert!(u.occluded(&holed, Some(boxed)));
        assert!(!u.occluded(&holed, Some(sphere)));
        // Its nearest corner decides, not its centre: 11 away, reaching 3
        // towards the camera, it is in front of the wall at 10.
        let p = wall(proj, &[]);
        assert!(!u.occluded(&p, u.box_rect(Vec3::new(0.0, 0.0, -11.0), upright)));
        assert!(u.occluded(&p, u.box_rect(Vec3::new(0.0, 0.0, -13.5), upright)));
        // Turned an eighth round the vertical: the long axis reaches
        // across the view.
        let (c, s) = (
            std::f32::consts::FRAC_1_SQRT_2,
            std::f32::consts::FRAC_1_SQRT_2,
        );
        let turned = [
            Vec3::new(0.3 * c, 0.0, -0.3 * s),
            Vec3::new(0.0, 2.0, 0.0),
            Vec3::new(3.0 * s, 0.0, 3.0 * c),
        ];
        let wide = u.box_rect(centre, turned).unwrap();
        assert!(width(&wide) > 2 * width(&boxed), "{wide:?} {boxed:?}");
        // Reaching behind the camera: never occluded.
        assert!(u.box_rect(Vec3::new(0.0, 0.0, -2.0), upright).is_none());
    }
}
