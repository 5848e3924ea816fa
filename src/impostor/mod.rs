//! The far field's animated impostors as plain data: how the atlas is laid
//! out (a ring of view directions around the model at a few elevations ×
//! the frames of each clip, subsampled), where each cell's camera looks
//! from, and the two choices an impostor makes when it is drawn: the cell
//! nearest to its view direction and the atlas frame nearest to its clip
//! time (the CPU twins of `atlas_cell` and `atlas_frame` in
//! shaders/impostor_common.wgsl). The GPU draws the atlas and measures an
//! impostor's picture against the mesh's (`render::impostor`).

mod bounds;
mod scene;
pub use bounds::{CellBounds, atlas_sums, cell_bounds, empty_bounds, full_bounds, quad_span};
pub use scene::{ModelPlace, SceneAtlasPlan};

use crate::vat::{Vat, VatClip};
use glam::{Mat4, Vec3};

/// The most bytes an atlas may take on the GPU (mip levels included): a
/// model with many clips gets fewer frames per clip, then smaller cells.
pub const MAX_ATLAS_BYTES: u64 = 48 << 20;

/// Bytes of one atlas texel: RGBA8 colour and RGBA8 normal and depth.
pub const TEXEL_BYTES: u64 = 8;

/// The most elevations (rows of cells) an atlas has: the impostor shader's
/// `AtlasParams` holds that many.
pub const MAX_ELEVATIONS: usize = 8;

/// An atlas's elevations, radians, from `degrees`: each clamped to ±90°,
/// the first [`MAX_ELEVATIONS`] only (a layer's rows, and where the shader
/// looks its cells up, must be the same rows).
pub fn view_elevations(degrees: &[f32]) -> Vec<f32> {
    degrees
        .iter()
        .take(MAX_ELEVATIONS)
        .map(|d| d.clamp(-90.0, 90.0).to_radians())
        .collect()
}

/// How an atlas is laid out.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpostorOptions {
    /// Texels on a side of a cell (a power of two): at the default switch
    /// size a texel covers about a pixel.
    pub cell: u32,
    /// View directions around the model.
    pub yaws: u32,
    /// Elevations of the views, degrees, for a model on the ground.
    pub ground_elevations: Vec<f32>,
    /// Elevations for a flyer (seen from below too).
    pub air_elevations: Vec<f32>,
    /// Atlas frames per second of clip time, at most `max_frames` a clip.
    pub fps: f32,
    pub max_frames: u32,
    /// The GPU memory cap.
    pub max_bytes: u64,
}

impl Default for ImpostorOptions {
    fn default() -> Self {
        Self {
            cell: 32,
            yaws: 12,
            ground_elevations: vec![0.0, 20.0, 40.0, 65.0, 90.0],
            air_elevations: vec![-90.0, -60.0, -30.0, 0.0, 30.0, 60.0, 90.0],
            fps: 20.0,
            max_frames: 16,
            max_bytes: MAX_ATLAS_BYTES,
        }
    }
}

/// One clip's frames in the atlas: layers `first_layer ..
/// first_layer + frames`, frame `k` showing clip time [`AtlasClip::time`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct AtlasClip {
    pub first_layer: u32,
    pub frames: u32,
    pub duration: f32,
    pub looping: bool,
}

impl AtlasClip {
    /// Clip time of atlas frame `k`: a looping clip's frames spread over
    /// one period (the last comes back to the first), a clamped clip's
    /// from its start to its end.
    pub fn time(&self, k: u32) -> f32 {
        let steps = if self.looping {
            self.frames
        } else {
            self.frames.saturating_sub(1)
        };
        if steps == 0 {
            return 0.0;
        }
        self.duration * k as f32 / steps as f32
    }

    /// The atlas frame nearest to clip time `t` (wrapped like a looping
    /// clip, clamped otherwise, as `vat_frame` does).
    pub fn frame_at(&self, t: f32) -> u32 {
        if self.frames <= 1 || self.duration <= 0.0 {
            return 0;
        }
        let ct = if self.looping {
            t - self.duration * (t / self.duration).floor()
        } else {
            t.clamp(0.0, self.duration)
        };
        if self.looping {
            ((ct / self.duration * self.frames as f32 + 0.5).floor() as u32) % self.frames
        } else {
            ((ct / self.duration * (self.frames - 1) as f32 + 0.5).floor() as u32)
                .min(self.frames - 1)
        }
    }
}

/// A layout of `rows` elevations of `layers` frames of `cell²` cells with
/// the default yaws, drawing nothing (the unit tests' grids).
#[cfg(test)]
pub(crate) fn test_layout(cell: u32, rows: usize, layers: u32) -> AtlasLayout {
    AtlasLayout {
        cell,
        yaws: ImpostorOptions::default().yaws,
        elevations: vec![0.0; rows],
        clips: Vec::new(),
        layers,
        centre: Vec3::ZERO,
        radius: 1.0,
        mesh_level: 0,
        first_index: 0,
        index_count: 0,
    }
}

/// An atlas: `layers` layers, each a grid of `yaws × elevations` cells of
/// `cell²` texels (column = yaw, row = elevation, lowest first), one layer
/// per (clip, atlas frame).
#[derive(Clone, Debug, PartialEq)]
pub struct AtlasLayout {
    pub cell: u32,
    pub yaws: u32,
    /// Radians, ascending.
    pub elevations: Vec<f32>,
    pub clips: Vec<AtlasClip>,
    pub layers: u32,
    /// Model-space sphere every baked pose fits in.
    pub centre: Vec3,
    pub radius: f32,
    /// The mesh level the atlas is drawn with: the coarsest whose animated
    /// error is at most a texel of a cell (0 before [`Self::with_mesh`]).
    pub mesh_level: u32,
    /// That level's range of the LOD chain's indices.
    pub first_index: u32,
    pub index_count: u32,
}

impl AtlasLayout {
    /// The layout for `vat` (its clips, its sphere `centre`, `radius`), for
    /// a flyer or a model on the ground, within the options' memory cap.
    pub fn plan(vat: &Vat, centre: Vec3, radius: f32, flies: bool, o: &ImpostorOptions) -> Self {
        let elevations = view_elevations(if flies {
            &o.air_elevations
        } else {
            &o.ground_elevations
        });
        let mut cell = o.cell.clamp(4, 256).next_power_of_two();
        let mut max_frames = o.max_frames.max(1);
        loop {
            let layout = Self {
                cell,
                yaws: o.yaws.max(1),
                elevations: elevations.clone(),
                clips: clips(&vat.clips, o.fps, max_frames),
                layers: 0,
                centre,
                radius: radius.max(1e-6),
                mesh_level: 0,
                first_index: 0,
                index_count: 0,
            }
            .with_layers();
            if layout.bytes() <= o.max_bytes || (max_frames == 1 && cell <= 8) {
                return layout;
            }
            if max_frames > 2 {
                max_frames = (max_frames * 3 / 4).max(2);
            } else if cell > 8 {
                cell /= 2;
            } else {
                max_frames = 1;
            }
        }
    }

    fn with_layers(mut self) -> Self {
        let mut next = 0;
        for c in &mut self.clips {
            c.first_layer = next;
            next += c.frames;
        }
        self.layers = next.max(1);
        self
    }

    /// World size of a texel of a cell at scale 1, model units.
    pub fn texel(&self) -> f32 {
        2.0 * self.extent() / self.cell as f32
    }

    /// The layout drawn with the coarsest level of `chain` whose animated
    /// error is at most a texel: the budget the scene's own levels get (a
    /// pixel), at the switch, where a texel covers about a pixel.
    pub fn with_mesh(mut self, chain: &crate::lod::LodChain) -> Self {
        let limit = self.texel();
        let (level, l) = chain
            .levels
            .iter()
            .enumerate()
            .rev()
            .find(|(_, l)| l.error <= limit)
            .or_else(|| chain.levels.first().map(|l| (0, l)))
            .map_or((0, crate::lod::LodLevel::default()), |(i, l)| (i, *l));
        self.mesh_level = level as u32;
        self.first_index = l.first_index;
        self.index_count = l.index_count;
        self
    }

    /// Cells in a layer.
    pub fn cells(&self) -> u32 {
        self.yaws * self.elevations.len() as u32
    }

    /// Texels of a layer: (width, height).
    pub fn layer_size(&self) -> (u32, u32) {
        (
            self.yaws * self.cell,
            self.elevations.len() as u32 * self.cell,
        )
    }

    /// Mip levels, down to a texel per cell.
    pub fn mips(&self) -> u32 {
        self.cell.max(1).ilog2() + 1
    }

    /// Bytes on the GPU, every mip level included.
    pub fn bytes(&self) -> u64 {
        let (w, h) = self.layer_size();
        let mut texels = 0u64;
        for m in 0..self.mips() {
            texels += ((w >> m).max(1) as u64) * ((h >> m).max(1) as u64);
        }
        texels * self.layers as u64 * TEXEL_BYTES
    }

    /// Half the side of a cell's view in model units: the sphere with a
    /// texel to spare on each side, so filtering never reads a neighbour.
    pub fn extent(&self) -> f32 {
        self.radius * self.cell as f32 / (self.cell as f32 - 2.0).max(1.0)
    }

    /// The direction (model space, unit, from the model towards the
    /// viewer) of the cell in column `yaw`, row `elevation`.
    pub fn direction(&self, yaw: u32, elevation: u32) -> Vec3 {
        let a = self.yaw_angle(yaw);
        let e = self.elevations[elevation as usize];
        Vec3::new(a.sin() * e.cos(), e.sin(), a.cos() * e.cos())
    }

    /// The yaw of column `yaw`, radians (0 looks at the model's front,
    /// +Z).
    pub fn yaw_angle(&self, yaw: u32) -> f32 {
        std::f32::consts::TAU * yaw as f32 / self.yaws as f32
    }

    /// The cell camera's right and up (model space): right is level
    /// (perpendicular to the yaw), so the basis stays defined looking
    /// straight down.
    pub fn basis(&self, yaw: u32, elevation: u32) -> (Vec3, Vec3) {
        let a = self.yaw_angle(yaw);
        let right = Vec3::new(a.cos(), 0.0, -a.sin());
        (right, self.direction(yaw, elevation).cross(right))
    }

    /// Model space to the cell's clip space: orthographic, centred on the
    /// sphere, depth 0 at the near side of the sphere and 1 at the far.
    pub fn view_proj(&self, yaw: u32, elevation: u32) -> Mat4 {
        let d = self.direction(yaw, elevation);
        let (_, up) = self.basis(yaw, elevation);
        let eye = self.centre + d * self.radius * 2.0;
        let view = glam::camera::rh::view::look_at_mat4(eye, self.centre, up);
        let e = self.extent();
        glam::camera::rh::proj::directx::orthographic(-e, e, -e, e, self.radius, self.radius * 3.0)
            * view
    }

    /// The cell whose direction is nearest to `view` (model space, from the
    /// model towards the viewer): (yaw column, elevation row). The twin of
    /// `impostor_cell` in shaders/impostor.wgsl.
    pub fn cell_for(&self, view: Vec3) -> (u32, u32) {
        let v = view.normalize_or(Vec3::Z);
        let yaw = v.x.atan2(v.z);
        let column = ((yaw / std::f32::consts::TAU * self.yaws as f32 + 0.5).floor() as i64)
            .rem_euclid(self.yaws as i64) as u32;
        let elevation = v.y.clamp(-1.0, 1.0).asin();
        let mut row = 0;
        for (i, e) in self.elevations.iter().enumerate() {
            if (elevation - e).abs() < (elevation - self.elevations[row]).abs() {
                row = i;
            }
        }
        (column, row as u32)
    }

    /// The layer showing clip `clip` nearest to clip time `t`.
    pub fn layer_at(&self, clip: usize, t: f32) -> u32 {
        self.clips
            .get(clip)
            .map_or(0, |c| c.first_layer + c.frame_at(t))
    }
}

/// A printable summary of an atlas layout (`stampede inspect`).
pub struct AtlasSummary<'a>(pub &'a AtlasLayout);

impl std::fmt::Display for AtlasSummary<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = self.0;
        let (w, h) = l.layer_size();
        writeln!(
            f,
            "  impostor atlas: {} layers of {w}×{h} ({} views: {} yaws × elevations {:?}°, cells of {}², {} mip levels), {:.1} MiB, drawn with LOD level {} ({} triangles)",
            l.layers,
            l.cells(),
            l.yaws,
            l.elevations
                .iter()
                .map(|e| e.to_degrees().round() as i32)
                .collect::<Vec<_>>(),
            l.cell,
            l.mips(),
            l.bytes() as f64 / (1024.0 * 1024.0),
            l.mesh_level,
            l.index_count / 3
        )?;
        let frames: Vec<String> = l.clips.iter().map(|c| c.frames.to_string()).collect();
        writeln!(f, "    frames per clip: {}", frames.join(", "))
    }
}

/// Each baked clip's atlas frames: `fps` per second of clip time, at least
/// two for a clip that moves, at most `max_frames`.
fn clips(baked: &[VatClip], fps: f32, max_frames: u32) -> Vec<AtlasClip> {
    baked
        .iter()
        .map(|c| {
            let wanted = (c.duration * fps).round() as u32;
            let frames = if c.frame_count <= 1 || c.duration <= 0.0 {
                1
            } else {
                wanted.clamp(2.min(max_frames), max_frames)
            };
            AtlasClip {
                first_layer: 0,
                frames,
                duration: c.duration,
                looping: c.looping,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> AtlasLayout {
        AtlasLayout {
            cell: 32,
            yaws: 12,
            elevations: [0.0f32, 20.0, 40.0, 65.0, 90.0]
                .map(f32::to_radians)
                .to_vec(),
            clips: vec![
                AtlasClip {
                    first_layer: 0,
                    frames: 6,
                    duration: 0.6,
                    looping: true,
                },
                AtlasClip {
                    first_layer: 6,
                    frames: 5,
                    duration: 2.0,
                    looping: false,
                },
            ],
            layers: 11,
            centre: Vec3::new(0.0, 1.0, 0.2),
            radius: 1.7,
            mesh_level: 0,
            first_index: 0,
            index_count: 0,
        }
    }

    #[test]
    fn every_cell_is_its_own_nearest() {
        let l = layout();
        for row in 0..l.elevations.len() as u32 {
            for column in 0..l.yaws {
                let d = l.direction(column, row);
                assert!((d.length() - 1.0).abs() < 1e-5);
                let (c, r) = l.cell_for(d);
                assert_eq!(r, row);
                // Straight up, every column shows the same direction.
                if row < 4 {
                    assert_eq!(c, column);
                }
                let (right, up) = l.basis(column, row);
                assert!(right.dot(d).abs() < 1e-5 && up.dot(d).abs() < 1e-5);
                assert!((right.cross(up) - d).length() < 1e-4, "right-handed");
            }
        }
        // Between two columns and rows: the nearer one.
        let a = l.yaw_angle(3) + 0.4 * l.yaw_angle(1);
        let e = 30.0f32.to_radians() - 0.05;
        let v = Vec3::new(a.sin() * e.cos(), e.sin(), a.cos() * e.cos());
        assert_eq!(l.cell_for(v), (3, 1));
        // Below the ground's lowest row: the lowest.
        assert_eq!(l.cell_for(Vec3::new(0.0, -1.0, 1.0)).1, 0);
    }

    #[test]
    fn the_cell_camera_frames_the_sphere() {
        let l = layout();
        for (column, row) in [(0, 0), (5, 2), (11, 4)] {
            let m = l.view_proj(column, row);
            let d = l.direction(column, row);
            let (right, up) = l.basis(column, row);
            let near = m.project_point3(l.centre + d * l.radius);
            let far = m.project_point3(l.centre - d * l.radius);
            assert!(
                near.z.abs() < 1e-4 && (far.z - 1.0).abs() < 1e-4,
                "{near} {far}"
            );
            // The sphere's rim, a texel inside the cell's edge.
            let edge = m.project_point3(l.centre + right * l.radius);
            assert!((edge.x - 1.0 + 2.0 / 32.0).abs() < 1e-4, "{edge}");
            let top = m.project_point3(l.centre + up * l.radius);
            assert!((top.y - 1.0 + 2.0 / 32.0).abs() < 1e-4, "{top}");
        }
    }

    #[test]
    fn frames_are_picked_nearest_in_time() {
        let l = layout();
        let g = l.clips[0];
        assert_eq!(g.time(3), 0.3);
        assert_eq!(g.frame_at(0.0), 0);
        assert_eq!(g.frame_at(0.29), 3);
        assert_eq!(g.frame_at(0.58), 0, "wraps to the first");
        assert_eq!(g.frame_at(-0.1), 5);
        assert_eq!(g.frame_at(0.6 * 7.0 + 0.1), 1);
        let c = l.clips[1];
        assert_eq!(c.time(4), 2.0);
        assert_eq!(c.frame_at(5.0), 4, "clamps at the end");
        assert_eq!(c.frame_at(-1.0), 0);
        assert_eq!(l.layer_at(1, 1.0), 8);
        assert_eq!(l.layer_at(9, 1.0), 0);
    }

    #[test]
    fn at_most_eight_elevations_clamped_to_the_poles() {
        let many: Vec<f32> = (0..11).map(|k| -100.0 + 20.0 * k as f32).collect();
        let e = view_elevations(&many);
        assert_eq!(e.len(), MAX_ELEVATIONS);
        assert_eq!(e[0], (-90.0f32).to_radians());
        assert_eq!(e[7], 40.0f32.to_radians());
    }

    #[test]
    fn a_big_model_is_held_under_the_cap() {
        let l = layout();
        assert_eq!(l.mips(), 6);
        let (w, h) = l.layer_size();
        assert_eq!((w, h), (384, 160));
        let base = (w * h) as u64 * 11 * TEXEL_BYTES;
        assert!(l.bytes() > base && l.bytes() < base * 4 / 3 + 11 * 64);
    }
}
