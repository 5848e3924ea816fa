//! Vertex animation textures: every clip's skinned positions and normals,
//! one texel per vertex per frame.
//!
//! Layout: a 2D texture array `width × height × layers`. A frame takes
//! `rows_per_frame` rows (vertex `v` sits at `x = v % width`,
//! `row = v / width`). A clip's frames are stacked after the previous clip's,
//! and a clip never straddles two layers. A looping clip ends with a copy of
//! its first frame, so the lerp between the last two frames wraps seamlessly.

mod bake;
mod export;
mod layout;
pub mod packed;
mod set;
mod texels;

pub use bake::bake;
pub use export::{ExportError, export, export_with};
pub use layout::{Layout, VatClip};
pub use set::{SetClip, SetModel, VatSet};
pub use texels::{Precision, Texels};

use crate::Aabb;
use glam::Vec3;

/// Default texture width cap, a common device limit for 2D textures.
pub const DEFAULT_MAX_WIDTH: u32 = 8192;

/// How looping is decided per clip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoopMode {
    /// A clip loops when its first and last poses match within the tolerance.
    #[default]
    Auto,
    Always,
    Never,
}

/// What and how to bake.
#[derive(Clone, Debug)]
pub struct BakeOptions {
    /// Frames per second of animation time.
    pub fps: f32,
    pub precision: Precision,
    pub max_width: u32,
    pub max_height: u32,
    pub max_layers: u32,
    pub looping: LoopMode,
    /// `Auto` looping: the largest vertex distance between the first and last
    /// pose, as a fraction of the model's bounding-box diagonal.
    pub loop_tolerance: f32,
    /// Clip names to bake, in this order; empty bakes every clip.
    pub clips: Vec<String>,
    /// When a clip's keys are evenly spaced, put frames on them: the frame
    /// count becomes the multiple of the key intervals nearest the requested
    /// rate. Uneven keys, or `false`, sample at the requested rate.
    pub align_to_keys: bool,
}

impl Default for BakeOptions {
    fn default() -> Self {
        Self {
            fps: 30.0,
            precision: Precision::F16,
            max_width: DEFAULT_MAX_WIDTH,
            max_height: DEFAULT_MAX_WIDTH,
            max_layers: 256,
            looping: LoopMode::Auto,
            loop_tolerance: 0.01,
            clips: Vec::new(),
            align_to_keys: true,
        }
    }
}

/// How far the baked texture is from exact skinning.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ErrorReport {
    /// Worst distance between a stored (rounded) position and the exact one;
    /// for packed, the decoded position.
    pub quantization: f32,
    /// `quantization` over the bounding-box diagonal.
    pub quantization_relative: f32,
    /// Worst angle between a stored normal and the exact one, in degrees.
    pub normal_quantization_degrees: f32,
    /// Mean angle between a stored normal and the exact one over every
    /// stored vertex of every frame, in degrees.
    pub normal_quantization_mean_degrees: f32,
    /// Worst distance, over every clip and every pair of neighbouring frames,
    /// between exact skinning at the midpoint time and the lerp of the two
    /// stored frames.
    pub interpolation: f32,
    /// `interpolation` over the bounding-box diagonal.
    pub interpolation_relative: f32,
    /// The interpolation error of each clip, in clip order.
    pub interpolation_per_clip: Vec<f32>,
    /// The bounding-box diagonal the relative figures use.
    pub diagonal: f32,
}

/// The model-space bounds every pose of every instance fits in
/// ([`Vat::pose_bounds`]): the sphere the cull pass tests, and the box
/// around the sphere's centre occlusion culling tests a mesh by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PoseBounds {
    /// Centre and radius.
    pub sphere: (glam::Vec3, f32),
    /// The box's half size on each axis, around the sphere's centre.
    pub half: glam::Vec3,
}

impl PoseBounds {
    /// A sphere alone: the box is the cube around it.
    pub fn sphere(centre: glam::Vec3, radius: f32) -> Self {
        Self {
            sphere: (centre, radius),
            half: glam::Vec3::splat(radius),
        }
    }
}

/// A baked VAT: the exact texels the renderer uploads, and their table.
#[derive(Clone, Debug)]
pub struct Vat {
    pub layout: Layout,
    pub clips: Vec<VatClip>,
    pub precision: Precision,
    /// The requested bake rate; each clip's own rate is in [`VatClip::fps`].
    pub fps: f32,
    /// Bounds over every frame of every clip, in model space. A packed bake
    /// quantizes its positions inside these bounds.
    pub bounds: Aabb,
    /// RGB = position, A = 1; for [`Precision::Packed`], the packed texels
    /// (position and normal together, see [`packed`]).
    pub positions: Texels,
    /// RGB = unit normal, A = 0; empty for [`Precision::Packed`], whose
    /// normals live in `positions`.
    pub normals: Texels,
    pub report: ErrorReport,
    /// Wall time of the bake (sampling, skinning, packing) in milliseconds.
    pub bake_ms: f64,
    /// Wall time of the error report in milliseconds.
    pub report_ms: f64,
}

/// Why a bake cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum VatError {
    #[error(
        "{model}: {vertices} vertices need {rows} rows of {width} texels per frame, more than the texture height {max_height}; raise --max-width or use a smaller model"
    )]
    TooManyVertices {
        model: String,
        vertices: usize,
        width: u32,
        rows: u32,
        max_height: u32,
    },
    #[error(
        "{model}: clip '{clip}' needs {rows} rows ({frames} frames × {rows_per_frame} rows), more than the texture height {max_height}; lower --fps or raise --max-width"
    )]
    ClipTooLong {
        model: String,
        clip: String,
        frames: u32,
        rows_per_frame: u32,
        rows: u32,
        max_height: u32,
    },
    #[error(
        "{model}: the bake needs {layers} texture layers, more than the limit {max_layers}; lower --fps or bake fewer clips"
    )]
    TooManyLayers {
        model: String,
        layers: u32,
        max_layers: u32,
    },
    #[error("{model}: no clip named '{clip}' (the model has: {available})")]
    NoSuchClip {
        model: String,
        clip: String,
        available: String,
    },
    #[error("invalid bake option: {0}")]
    Option(String),
}

impl Vat {
    /// The model-space sphere every pose of every instance fits in: the
    /// bounds over every frame of every clip, widened by the bake's
    /// interpolation error so that exact skinning between two baked frames
    /// (live skinning, CPU skinning) stays inside too.
    pub fn pose_sphere(&self) -> (glam::Vec3, f32) {
        let (centre, radius) = self.bounds.sphere();
        (centre, radius + self.report.interpolation.max(0.0))
    }

    /// [`Self::pose_sphere`] with the box it is made from: the bounds over
    /// every frame of every clip, widened on every side by the bake's
    /// interpolation and quantization errors (exact skinning between two
    /// baked frames, and the exact poses the stored ones round, stay
    /// inside too).
    pub fn pose_bounds(&self) -> PoseBounds {
        let margin = self.report.interpolation.max(0.0) + self.report.quantization.max(0.0);
        PoseBounds {
            sphere: self.pose_sphere(),
            half: self.bounds.size() * 0.5 + glam::Vec3::splat(margin),
        }
    }

    /// Index of the clip with this name.
    /// The clip named `name`: that exact name, else the one name equal to
    /// it but for case (`gallop` finds `Gallop`).
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.clips.iter().position(|c| c.name == name).or_else(|| {
            let mut same =
                (self.clips.iter().enumerate()).filter(|(_, c)| c.name.eq_ignore_ascii_case(name));
            match (same.next(), same.next()) {
                (Some((i, _)), None) => Some(i),
                _ => None,
            }
        })
    }

    /// Bytes of one texture (positions or normals; the packed texture for
    /// a packed bake), all layers.
    pub fn texture_bytes(&self) -> usize {
        self.positions.bytes().len()
    }

    /// Bytes of every texture together.
    pub fn total_bytes(&self) -> usize {
        self.positions.bytes().len() + self.normals.bytes().len()
    }

    /// The position stored at texel `i`, decoded for a packed bake.
    pub fn position(&self, i: usize) -> Vec3 {
        self.positions.position(i, &self.bounds)
    }

    /// The box around every stored position of the clips `clips` (indices
    /// into [`Self::clips`]; others are skipped), or `None` when they
    /// store none. `bounds` covers every clip; a crowd that plays only some
    /// (a herd's walk, gallop and idle) needs only theirs: a deer lying
    /// down in its death clip is wider than it ever runs.
    pub fn clips_bounds(&self, clips: &[u32]) -> Option<Aabb> {
        let points = clips
            .iter()
            .filter_map(|&c| self.clips.get(c as usize))
            .flat_map(|clip| {
                (0..clip.frame_count).flat_map(move |f| {
                    (0..self.layout.vertex_count)
                        .map(move |v| self.position(self.layout.texel_index(clip, f, v)))
                })
            });
        Some(Aabb::from_points(points)).filter(|b| !b.is_empty())
    }

    /// The normal stored at texel `i`, decoded for a packed bake.
    pub fn normal(&self, i: usize) -> Vec3 {
        match self.precision {
            Precision::Packed => self.positions.normal(i),
            _ => self.normals.normal(i),
        }
    }
}
