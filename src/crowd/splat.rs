//! The splat level's rules, the CPU twins of shaders/splat_common.wgsl and
//! shaders/splat.wgsl: which pixel a splat falls on, its 32-bit depth key,
//! its coverage and colour, and the planes a set of splats makes. A far
//! instance whose sphere projects under [`DEFAULT_SPLAT_PX`] pixels is
//! neither a quad nor a mesh: the cull pass adds it to the pixel its centre
//! falls on with atomics (32-bit only: WebGPU has no 64-bit ones), and one
//! full-screen pass draws the pixels.

use bytemuck::{Pod, Zeroable};

/// The default largest sphere diameter, in pixels, drawn as a splat: the
/// largest switch whose far crowd stays within a tenth of the impostors'
/// pixel difference from the meshes' picture, in every view measured, and
/// no farther on 4 × 4 blocks (docs/lod.md gives the table). A horse's
/// silhouette fills 7.4 % of its sphere's square, so at 4 px it covers
/// about a pixel.
pub const DEFAULT_SPLAT_PX: f32 = 4.0;
/// Planes after the header and the models' sums.
pub const SPLAT_PLANES: u32 = 5;
/// Models a splat target holds sums for (`MAX_SCENE_MODELS`).
pub const SPLAT_MODELS: usize = 8;
/// Fixed point of the coverage and colour planes.
pub const SPLAT_ONE: f32 = 65536.0;
/// Fixed point of the atlas's sums (shaders/impostor_bounds.wgsl).
pub const STAT_ONE: f32 = 4096.0;
/// The largest 24-bit depth.
pub const DEPTH_MAX: u32 = 0xff_ffff;

/// Mirrors `SplatHeader` in shaders/splat_common.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SplatHeader {
    /// The scene's viewport in the target's pixels: x, y, width, height.
    pub viewport: [f32; 4],
    pub width: u32,
    pub height: u32,
    /// The largest sphere diameter, in pixels, drawn as a splat.
    pub max_px: f32,
    /// Words in a plane.
    pub pixels: u32,
    /// Model m's 1 / (cells × STAT_ONE) at [m / 4][m % 4].
    pub stat_scale: [[f32; 4]; 2],
    /// The camera's near and far planes (x, y).
    pub planes: [f32; 4],
}

/// Bytes of the full-screen pass's indirect draw after the header.
pub const DRAW_BYTES: u64 = 16;
/// Where the models' sums start (after the header and the draw).
pub const SUMS_OFFSET: u64 = std::mem::size_of::<SplatHeader>() as u64 + DRAW_BYTES;
/// Bytes of the header, the draw and the models' sums before the planes.
pub const PLANES_OFFSET: u64 = SUMS_OFFSET + SPLAT_MODELS as u64 * 16;

impl SplatHeader {
    /// A target of `width` × `height` pixels whose scene is drawn in
    /// `viewport`, splatting spheres up to `max_px` pixels across, with
    /// each model's atlas cells (frames × cells of a frame); the camera's
    /// near and far planes are set apart (`planes`).
    pub fn new(width: u32, height: u32, viewport: [f32; 4], max_px: f32, cells: &[u32]) -> Self {
        let mut stat_scale = [[0.0; 4]; 2];
        for (m, &c) in cells.iter().take(SPLAT_MODELS).enumerate() {
            stat_scale[m / 4][m % 4] = 1.0 / (c.max(1) as f32 * STAT_ONE);
        }
        Self {
            viewport,
            width,
            height,
            max_px,
            pixels: width * height,
            stat_scale,
            planes: [0.0; 4],
        }
    }

    /// Where a clip-space point falls in the target: x and y in pixels,
    /// z its NDC depth; `None` behind the camera.
    pub fn screen(&self, clip: glam::Vec4) -> Option<glam::Vec3> {
        if clip.w <= 0.0 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        let v = self.viewport;
        let x = v[0] + (ndc.x * 0.5 + 0.5) * v[2];
        let y = v[1] + (0.5 - ndc.y * 0.5) * v[3];
        Some(glam::Vec3::new(x, y, ndc.z))
    }

    /// The pixel a clip-space point falls on, or `None` outside the
    /// viewport or the depth range (`splat_pixel`).
    pub fn pixel_of(&self, clip: glam::Vec4) -> Option<u32> {
        let glam::Vec3 { x, y, z } = self.screen(clip)?;
        let v = self.viewport;
        let inside = x >= v[0]
            && x < v[0] + v[2]
            && y >= v[1]
            && y < v[1] + v[3]
            && x < self.width as f32
            && y < self.height as f32
            && (0.0..=1.0).contains(&z);
        inside.then(|| y as u32 * self.width + x as u32)
    }

    /// Bytes of a target with this header: the header, the draw, the sums,
    /// the planes.
    pub fn bytes(&self) -> u64 {
        PLANES_OFFSET + SPLAT_PLANES as u64 * self.pixels as u64 * 4
    }
}

/// The key of a splat at NDC `depth` of model `model`: nearer is larger, 0
/// is none (`splat_key`).
pub fn depth_key(depth: f32, model: u32) -> u32 {
    let d = ((depth.clamp(0.0, 1.0) * DEPTH_MAX as f32).ceil() as u32).min(DEPTH_MAX);
    ((DEPTH_MAX - d) << 8) | (model.min(254) + 1)
}

/// The NDC depth a key holds (`splat_key_depth`).
pub fn key_depth(key: u32) -> f32 {
    (DEPTH_MAX - (key >> 8)) as f32 / DEPTH_MAX as f32
}

/// The view depth (along the camera's axis) a key holds with the camera's
/// `near` and `far` planes (`splat_key_view_depth`): from 1 - depth, which
/// the key holds exactly, not by inverting the projection near depth 1.
pub fn key_view_depth(key: u32, near: f32, far: f32) -> f32 {
    let rest = (key >> 8) as f32 / DEPTH_MAX as f32;
    far * near / (near + (far - near) * rest)
}

/// The coverage a pixel's summed splats show (`splat_alpha`): overlapping
/// splats cover as independent ones.
pub fn pixel_alpha(sum: f32) -> f32 {
    1.0 - (-sum).exp()
}

/// One splat: where, how near, how much of its pixel it covers and its
/// albedo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Splat {
    pub pixel: u32,
    pub key: u32,
    pub coverage: f32,
    pub albedo: glam::Vec3,
}

/// A model's atlas sums (red, green, blue, coverage; `impostor_bounds.wgsl`).
pub type AtlasSums = [u32; 4];

impl Splat {
    /// The splat of an instance of model `model` whose sphere's centre is
    /// at `clip` and covers `size` pixels across, tinted `tint` (RGBA8), or
    /// `None` off the viewport (`splat_instance`).
    pub fn of(
        header: &SplatHeader,
        sums: &AtlasSums,
        model: u32,
        clip: glam::Vec4,
        size: f32,
        tint: u32,
    ) -> Option<Self> {
        let pixel = header.pixel_of(clip)?;
        let m = model as usize;
        let scale = header.stat_scale[m / 4][m % 4];
        let s = sums.map(|v| v as f32);
        let coverage = s[3] * scale * size * size;
        let t = tint.to_le_bytes().map(|b| b as f32 / 255.0);
        let albedo = glam::Vec3::new(s[0] * t[0], s[1] * t[1], s[2] * t[2]) / s[3].max(1.0);
        Some(Self {
            pixel,
            key: depth_key(clip.z / clip.w, model),
            coverage,
            albedo,
        })
    }
}

/// The planes `splats` make in a target of `pixels` pixels, as the cull pass
/// writes them (key, coverage, red, green, blue; `pixels` words each).
pub fn planes(pixels: u32, splats: &[Splat]) -> Vec<u32> {
    let n = pixels as usize;
    let mut planes = vec![0u32; SPLAT_PLANES as usize * n];
    for s in splats {
        let at = s.pixel as usize;
        planes[at] = planes[at].max(s.key);
        planes[n + at] = planes[n + at].wrapping_add((s.coverage * SPLAT_ONE).round() as u32);
        for c in 0..3 {
            let v = (s.albedo[c] * s.coverage * SPLAT_ONE).round() as u32;
            planes[(2 + c) * n + at] = planes[(2 + c) * n + at].wrapping_add(v);
        }
    }
    planes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearer_is_a_larger_key_and_depth_never_comes_nearer() {
        let near = depth_key(0.99, 0);
        let far = depth_key(0.995, 0);
        assert!(near > far);
        for d in [0.0f32, 0.3, 0.9, 0.999_9, 0.999_999_9, 1.0] {
            let back = key_depth(depth_key(d, 3));
            assert!(back >= d - 1e-7, "{d} came back as {back}");
            assert!(
                back - d <= 2.0 / DEPTH_MAX as f32,
                "{d} came back as {back}"
            );
        }
        assert_ne!(
            depth_key(1.0, 0),
            0,
            "a splat at the far plane is still one"
        );
    }

    #[test]
    fn the_view_depth_comes_back_from_the_key() {
        let (near, far) = (0.5f32, 6000.0f32);
        let proj = glam::camera::rh::proj::directx::perspective(0.8, 1.5, near, far);
        for d in [1.0f32, 40.0, 900.0, 5000.0] {
            let clip = proj * glam::Vec4::new(0.0, 0.0, -d, 1.0);
            let back = key_view_depth(depth_key(clip.z / clip.w, 0), near, far);
            assert!((back - d).abs() <= d * 2e-3, "{d} came back as {back}");
        }
    }

    #[test]
    fn pixels_follow_the_rasterizers_rule() {
        let h = SplatHeader::new(8, 4, [2.0, 0.0, 4.0, 4.0], 1.0, &[1]);
        // NDC (-1, 1) is the viewport's top left corner.
        assert_eq!(h.pixel_of(glam::Vec4::new(-1.0, 1.0, 0.5, 1.0)), Some(2));
        assert_eq!(
            h.pixel_of(glam::Vec4::new(-0.99, -0.99, 0.5, 1.0)),
            Some(3 * 8 + 2)
        );
        assert_eq!(h.pixel_of(glam::Vec4::new(1.0, 0.0, 0.5, 1.0)), None);
        assert_eq!(h.pixel_of(glam::Vec4::new(0.0, 0.0, 1.5, 1.0)), None);
        assert_eq!(h.pixel_of(glam::Vec4::new(0.0, 0.0, 0.5, -1.0)), None);
    }

    #[test]
    fn planes_keep_the_nearest_and_sum_the_rest() {
        let a = Splat {
            pixel: 1,
            key: depth_key(0.9, 0),
            coverage: 0.25,
            albedo: glam::Vec3::ONE,
        };
        let b = Splat {
            key: depth_key(0.8, 1),
            albedo: glam::Vec3::ZERO,
            ..a
        };
        let p = planes(2, &[a, b]);
        assert_eq!(p[1], b.key);
        assert_eq!(p[0], 0);
        assert_eq!(p[2 + 1], (0.5 * SPLAT_ONE) as u32);
        assert_eq!(p[4 + 1], (0.25 * SPLAT_ONE) as u32);
        assert!((pixel_alpha(0.5) - 0.393_469_34).abs() < 1e-6);
    }
}
