//! Houdini VAT 3, soft-body deformation, as SideFX Labs' VAT 3 shader
//! graph for Unity (URP, `VAT_SoftBodyDeformation`) decodes it. Houdini's
//! VAT holds one looping timeline, so each clip becomes its own set:
//! `NAME_CLIP_mesh.glb` (`TEXCOORD_1` = the centre of the vertex's texel
//! in frame 1), `NAME_CLIP_pos.exr` (half-float RGB = the offset from the
//! mesh's rest position), `NAME_CLIP_rot.exr` (half-float RGBA = the
//! quaternion that turns +Y into the normal) and `NAME_CLIP_data.json`
//! (bounds, frame count, frame rate).
//!
//! Frames are stacked top to bottom, `rows = ceil(vertices / width)` rows
//! each: vertex `v` of frame `f` (from 1) is column `v % width`, row
//! `(f - 1) * rows + v / width`. Values are in Unity's axes (`-x, y, z` of
//! the glTF's), which is what a glTF importer for Unity (glTFast,
//! UnityGLTF) turns the mesh into. The shader reads flags from the bounds'
//! decimals: the bounds are rounded out to halves, and Bound Max Z gets
//! 0.075 more, so `frac(10 × Bound Max Z)` is 0.75: "HDR" (the textures
//! hold raw offsets and quaternions, not values normalised to the bounds).

use super::glb::{GlbMesh, encode_glb};
use super::image::write_exr_f16;
use super::{ClipFrames, FormatError};
use crate::model::Model;
use crate::vat::{Vat, VatClip};
use glam::{Quat, Vec2, Vec3, Vec4};
use std::path::{Path, PathBuf};

/// The largest texture side SideFX Labs' Unity import settings allow.
pub const MAX_SIDE: u32 = 8192;
/// The folder inside the export.
pub const FOLDER: &str = "houdini";
/// The axis preset SideFX Labs' exporter writes for Unity (its other one,
/// "Left-Handed Z-Up", is Unreal's); tools reading the file match it.
pub const AXIS_SYSTEM: &str = "Left-Handed Y-Up";
/// The HDR flag added to Bound Max Z.
pub const HDR_FLAG: f32 = 0.075;

/// One clip's texture shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HoudiniLayout {
    pub width: u32,
    /// Rows per frame.
    pub rows: u32,
    /// Frames stored: a looping clip without its closing copy of frame 1,
    /// and never fewer than 2 (the shader hides vertices whose V is within
    /// the bottom tenth, which a one-frame texture would reach).
    pub frames: u32,
}

impl HoudiniLayout {
    pub fn new(vertices: u32, clip: &VatClip) -> Self {
        let width = vertices.clamp(1, MAX_SIDE);
        let frames = if clip.looping {
            clip.segments()
        } else {
            clip.frame_count
        };
        Self {
            width,
            rows: vertices.div_ceil(width).max(1),
            frames: frames.max(2),
        }
    }

    pub fn height(&self) -> u64 {
        u64::from(self.rows) * u64::from(self.frames)
    }

    /// The texel of vertex `v` in frame `f` (from 0 here), row-major.
    pub fn texel(&self, v: u32, f: u32) -> usize {
        let row = f * self.rows + v / self.width;
        row as usize * self.width as usize + (v % self.width) as usize
    }

    /// The mesh's `TEXCOORD_1` for vertex `v` (glTF's V, down from the top).
    pub fn uv(&self, v: u32) -> Vec2 {
        Vec2::new(
            ((v % self.width) as f32 + 0.5) / self.width as f32,
            ((v / self.width) as f32 + 0.5) / self.height() as f32,
        )
    }
}

/// Every clip's layout, or the error naming the model, the clip and the
/// limit.
pub fn check(model: &Model, vat: &Vat) -> Result<Vec<HoudiniLayout>, FormatError> {
    vat.clips
        .iter()
        .map(|clip| {
            let layout = HoudiniLayout::new(vat.layout.vertex_count, clip);
            if layout.height() > u64::from(MAX_SIDE) {
                return Err(FormatError::TooLarge {
                    model: model.source.clone(),
                    format: "Houdini VAT",
                    problem: format!(
                        "clip '{}' needs a texture {} × {} ({} frames of {} rows), taller than the {MAX_SIDE} texels SideFX Labs' import settings allow; bake at a lower --fps",
                        clip.name,
                        layout.width,
                        layout.height(),
                        layout.frames,
                        layout.rows
                    ),
                });
            }
            Ok(layout)
        })
        .collect()
}

/// Unity's axes (left-handed, Y up) from the glTF's.
pub fn to_unity(v: Vec3) -> Vec3 {
    Vec3::new(-v.x, v.y, v.z)
}

/// A file-name-safe form of a clip name.
fn safe(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "clip".into() } else { s }
}

/// Writes every clip's set into `dir/houdini/`.
pub fn write(
    model: &Model,
    vat: &Vat,
    rest: &(Vec<Vec3>, Vec<Vec3>),
    frames: &[ClipFrames],
    dir: &Path,
) -> Result<Vec<PathBuf>, FormatError> {
    let layouts = check(model, vat)?;
    let folder = dir.join(FOLDER);
    std::fs::create_dir_all(&folder).map_err(FormatError::io(&folder))?;
    let mut written = Vec::new();
    let mut stems: Vec<String> = Vec::new();
    for ((clip, layout), exact) in vat.clips.iter().zip(&layouts).zip(frames) {
        let mut stem = format!("{}_{}", safe(&model.name()), safe(&clip.name));
        while stems.contains(&stem) {
            stem.push('_');
        }
        stems.push(stem.clone());
        written.extend(write_clip(
            model, clip, *layout, rest, exact, &folder, &stem,
        )?);
    }
    Ok(written)
}

fn write_clip(
    model: &Model,
    clip: &VatClip,
    layout: HoudiniLayout,
    rest: &(Vec<Vec3>, Vec<Vec3>),
    exact: &ClipFrames,
    folder: &Path,
    stem: &str,
) -> Result<Vec<PathBuf>, FormatError> {
    let n = rest.0.len();
    let texels = layout.width as usize * layout.height() as usize;
    let mut pos = vec![[0f32, 0.0, 0.0, 1.0]; texels];
    let mut rot = vec![[0f32, 0.0, 0.0, 1.0]; texels];
    let mut previous = vec![Quat::IDENTITY; n];
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for f in 0..layout.frames {
        let k = f.min(clip.frame_count - 1) as usize;
        let (p, nrm) = (&exact.positions[k], &exact.normals[k]);
        for v in 0..n {
            let t = layout.texel(v as u32, f);
            let d = to_unity(p[v] - rest.0[v]);
            (lo, hi) = (lo.min(d), hi.max(d));
            pos[t] = d.extend(1.0).to_array();
            let mut q = Quat::from_rotation_arc(Vec3::Y, to_unity(nrm[v]).normalize_or(Vec3::Y));
            // Neighbouring frames on the same side, so the lerp between
            // them stays near both.
            if f > 0 && Vec4::from(q).dot(Vec4::from(previous[v])) < 0.0 {
                q = -q;
            }
            previous[v] = q;
            rot[t] = q.to_array();
        }
    }
    let height = layout.height() as u32;
    let pos_path = folder.join(format!("{stem}_pos.exr"));
    write_exr_f16(&pos_path, layout.width, height, &pos)?;
    let rot_path = folder.join(format!("{stem}_rot.exr"));
    write_exr_f16(&rot_path, layout.width, height, &rot)?;

    let uvs: Vec<Vec2> = (0..n as u32).map(|v| layout.uv(v)).collect();
    let mesh_path = folder.join(format!("{stem}_mesh.glb"));
    let bytes = encode_glb(&GlbMesh {
        model,
        positions: &rest.0,
        normals: &rest.1,
        lookup: &uvs,
        name: stem,
    })
    .map_err(|source| FormatError::Png {
        path: mesh_path.clone(),
        source,
    })?;
    std::fs::write(&mesh_path, bytes).map_err(FormatError::io(&mesh_path))?;

    let json_path = folder.join(format!("{stem}_data.json"));
    let text = serde_json::to_string_pretty(&data_json(clip, layout, lo, hi, stem))
        .expect("the data table is plain data");
    std::fs::write(&json_path, text + "\n").map_err(FormatError::io(&json_path))?;
    Ok(vec![mesh_path, pos_path, rot_path, json_path])
}

/// The bounds as the shader wants them: rounded out to halves (so ten
/// times each is a whole number: no padding, no scaled alpha), with the
/// HDR flag on Bound Max Z.
pub fn flagged_bounds(lo: Vec3, hi: Vec3) -> (Vec3, Vec3) {
    let lo = (lo * 2.0).floor() / 2.0;
    let hi = (hi * 2.0).ceil() / 2.0;
    (lo, hi + Vec3::new(0.0, 0.0, HDR_FLAG))
}

/// `NAME_CLIP_data.json`: the ROP's legacy real-time data (a list of one
/// object, keys sorted) plus the frame count and what the files hold.
fn data_json(
    clip: &VatClip,
    layout: HoudiniLayout,
    lo: Vec3,
    hi: Vec3,
    stem: &str,
) -> serde_json::Value {
    let (lo, hi) = flagged_bounds(lo, hi);
    // The shortest decimal that reads back as the same f32.
    let num = |x: f32| -> f64 { format!("{x}").parse().unwrap_or(f64::from(x)) };
    let (lo, hi) = (lo.to_array().map(num), hi.to_array().map(num));
    serde_json::json!([{
        "Name": stem,
        "Axis System": AXIS_SYSTEM,
        "Axes": "the glTF's -x, y, z in model units (a glTF importer for Unity's axes)",
        "Bound Max X": hi[0], "Bound Max Y": hi[1], "Bound Max Z": hi[2],
        "Bound Min X": lo[0], "Bound Min Y": lo[1], "Bound Min Z": lo[2],
        "Houdini FPS": num(clip.fps),
        "Frame Count": layout.frames,
        "Two Position Textures": 0,
        "Mode": "Soft-Body Deformation",
        "Texture Format": "HDR",
        "Clip": clip.name,
        "Clip Duration": num(clip.duration),
        "Looping": clip.looping,
        "Mesh UV": "TEXCOORD_1: the centre of the vertex's texel in frame 1",
    }])
}
