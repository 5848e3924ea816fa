//! OpenVAT, as OpenVAT's Blender add-on lays it out and bevy_open_vat
//! decodes it: one 16-bit RGBA PNG (`NAME_vat.png`) whose top half holds
//! each vertex's offset from the mesh's rest position, normalised to 0..1
//! inside the `os-remap` bounds, and whose bottom half holds its normal as
//! `n * 0.5 + 0.5` (the add-on's "packed" normals); a mesh (`NAME.glb`)
//! whose `TEXCOORD_1` (the add-on's `VAT_UV`) is the centre of the
//! vertex's texel in frame 0; and `NAME-remap_info.json` with the bounds,
//! the frame count and the `animations` table.
//!
//! Rows: vertex `i` sits in wrap `r = i / width`, column `i % width`; its
//! frame `g` (counted over every clip, from 0) is row `r * frames + g`,
//! its normal that plus `height / 2`. Values are in Blender's axes (Z up):
//! `(x, -z, y)` of the glTF's. The width is the add-on's choice: the power
//! of two from 64 to 8192 giving the smallest texture whose height (a power
//! of two too) is within a factor of two of it.

use super::glb::{GlbMesh, encode_glb};
use super::image::write_png16;
use super::{ClipFrames, FormatError};
use crate::model::Model;
use crate::vat::Vat;
use glam::{Vec2, Vec3};
use serde::Serialize;
use serde::ser::SerializeMap;
use std::path::{Path, PathBuf};

/// The add-on's narrowest and widest textures.
pub const MIN_WIDTH: u32 = 64;
pub const MAX_WIDTH: u32 = 8192;
/// The folder inside the export.
pub const FOLDER: &str = "openvat";

/// The texture's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenVatLayout {
    pub width: u32,
    pub height: u32,
    /// Rows of vertices (`ceil(vertices / width)`).
    pub wraps: u32,
    /// Frames over every clip.
    pub frames: u32,
}

impl OpenVatLayout {
    /// The add-on's packed-normal layout for `vertices` and `frames`, or
    /// `None` when no width up to 8192 gives a near-square texture.
    pub fn choose(vertices: u32, frames: u32) -> Option<Self> {
        let mut best: Option<Self> = None;
        let mut width = MIN_WIDTH;
        while width <= MAX_WIDTH {
            let wraps = vertices.div_ceil(width).max(1);
            let rows = 2u64 * u64::from(wraps) * u64::from(frames.max(1));
            let height = rows.next_power_of_two();
            let near_square = (f64::from(width).log2() - (height as f64).log2()).abs() <= 1.0;
            let area = u64::from(width) * height;
            if near_square && best.is_none_or(|b| area < u64::from(b.width) * u64::from(b.height)) {
                best = Some(Self {
                    width,
                    height: height as u32,
                    wraps,
                    frames: frames.max(1),
                });
            }
            width *= 2;
        }
        best
    }

    /// The texel of vertex `i`'s position in global frame `g` (row-major,
    /// row 0 at the top); its normal is `height / 2` rows further down.
    pub fn texel(&self, i: u32, g: u32) -> usize {
        let row = (i / self.width) * self.frames + g;
        row as usize * self.width as usize + (i % self.width) as usize
    }

    /// `VAT_UV` of vertex `i`: its texel's centre in frame 0.
    pub fn uv(&self, i: u32) -> Vec2 {
        let row = (i / self.width) * self.frames;
        Vec2::new(
            ((i % self.width) as f32 + 0.5) / self.width as f32,
            (row as f32 + 0.5) / self.height as f32,
        )
    }
}

/// The layout for `vat`, or the error naming the model and the limit.
pub fn check(model: &Model, vat: &Vat) -> Result<OpenVatLayout, FormatError> {
    let frames: u32 = vat.clips.iter().map(|c| c.frame_count).sum();
    let vertices = vat.layout.vertex_count;
    OpenVatLayout::choose(vertices, frames).ok_or_else(|| FormatError::TooLarge {
        model: model.source.clone(),
        format: "OpenVAT",
        problem: format!(
            "cannot hold {vertices} vertices × {frames} frames: its texture is a power of two from {MIN_WIDTH} to {MAX_WIDTH} texels wide and at most twice as tall (positions and normals take {} rows even at width {MAX_WIDTH}); bake fewer clips or a lower --fps",
            2 * u64::from(vertices.div_ceil(MAX_WIDTH)) * u64::from(frames)
        ),
    })
}

/// Blender's axes (Z up) from the glTF's (Y up).
pub fn to_blender(v: Vec3) -> Vec3 {
    Vec3::new(v.x, -v.z, v.y)
}

/// The `os-remap` bounds of the offsets, rounded out to a tenth as the
/// add-on rounds them.
fn remap_bounds(rest: &[Vec3], frames: &[ClipFrames]) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for clip in frames {
        for frame in &clip.positions {
            for (p, r) in frame.iter().zip(rest) {
                let b = to_blender(*p - *r);
                lo = lo.min(b);
                hi = hi.max(b);
            }
        }
    }
    let round = |v: Vec3, f: fn(f64) -> f64| {
        Vec3::from_array(v.to_array().map(|c| (f(f64::from(c) * 10.0) / 10.0) as f32))
    };
    (round(lo, f64::floor), round(hi, f64::ceil))
}

fn unorm16(x: f32) -> u16 {
    (x.clamp(0.0, 1.0) * 65535.0).round() as u16
}

/// Writes `openvat/NAME.glb`, `NAME_vat.png` and `NAME-remap_info.json`
/// into `dir`; `rest` is the rest pose the offsets start from.
pub fn write(
    model: &Model,
    vat: &Vat,
    rest: &(Vec<Vec3>, Vec<Vec3>),
    frames: &[ClipFrames],
    dir: &Path,
) -> Result<Vec<PathBuf>, FormatError> {
    let layout = check(model, vat)?;
    let folder = dir.join(FOLDER);
    std::fs::create_dir_all(&folder).map_err(FormatError::io(&folder))?;
    let name = model.name();
    let (lo, hi) = remap_bounds(&rest.0, frames);
    let range = hi - lo;
    let normalise = |b: Vec3| {
        let r = Vec3::select(range.cmpgt(Vec3::ZERO), (b - lo) / range, Vec3::ZERO);
        r.to_array().map(unorm16)
    };
    let (w, h) = (layout.width, layout.height);
    let mut texels = vec![[0u16, 0, 0, u16::MAX]; w as usize * h as usize];
    let half = (h / 2) as usize * w as usize;
    let mut g = 0;
    for clip in frames {
        for (p, n) in clip.positions.iter().zip(&clip.normals) {
            for i in 0..p.len() {
                let t = layout.texel(i as u32, g);
                let [x, y, z] = normalise(to_blender(p[i] - rest.0[i]));
                texels[t] = [x, y, z, u16::MAX];
                let [x, y, z] = to_blender(n[i]).to_array().map(|c| unorm16(c * 0.5 + 0.5));
                texels[half + t] = [x, y, z, u16::MAX];
            }
            g += 1;
        }
    }
    let texture = folder.join(format!("{name}_vat.png"));
    write_png16(&texture, w, h, &texels)?;

    let uvs: Vec<Vec2> = (0..vat.layout.vertex_count).map(|i| layout.uv(i)).collect();
    let mesh = folder.join(format!("{name}.glb"));
    let bytes = encode_glb(&GlbMesh {
        model,
        positions: &rest.0,
        normals: &rest.1,
        lookup: &uvs,
        name: &name,
    })
    .map_err(|source| FormatError::Png {
        path: mesh.clone(),
        source,
    })?;
    std::fs::write(&mesh, bytes).map_err(FormatError::io(&mesh))?;

    let json = folder.join(format!("{name}-remap_info.json"));
    let info = RemapInfo::new(vat, layout, lo, hi, &texture, &mesh);
    let text = serde_json::to_string_pretty(&info).expect("the remap table is plain data");
    std::fs::write(&json, text + "\n").map_err(FormatError::io(&json))?;
    Ok(vec![mesh, texture, json])
}

/// `NAME-remap_info.json`.
#[derive(Serialize)]
struct RemapInfo {
    #[serde(rename = "os-remap")]
    os_remap: OsRemap,
    animations: Animations,
    /// What the readers do not need but a person might: which conventions
    /// this file follows.
    stampede: Notes,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct OsRemap {
    min: [f32; 3],
    max: [f32; 3],
    frames: u32,
}

#[derive(Serialize)]
struct Animation {
    #[serde(rename = "startFrame")]
    start_frame: u32,
    #[serde(rename = "endFrame")]
    end_frame: u32,
    framerate: f32,
    looping: bool,
}

/// The clips in bake order (a JSON object keeps the order it is written in).
struct Animations(Vec<(String, Animation)>);

impl Serialize for Animations {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, anim) in &self.0 {
            map.serialize_entry(name, anim)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct Notes {
    texture: String,
    mesh: String,
    uv: &'static str,
    axes: &'static str,
    frames: &'static str,
    normals: &'static str,
}

impl RemapInfo {
    fn new(
        vat: &Vat,
        layout: OpenVatLayout,
        lo: Vec3,
        hi: Vec3,
        texture: &Path,
        mesh: &Path,
    ) -> Self {
        let file = |p: &Path| {
            p.file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let mut animations: Vec<(String, Animation)> = Vec::new();
        let mut start = 0;
        for clip in &vat.clips {
            let mut name = clip.name.clone();
            let mut k = 2;
            while animations.iter().any(|(n, _)| *n == name) {
                name = format!("{} ({k})", clip.name);
                k += 1;
            }
            animations.push((
                name,
                Animation {
                    start_frame: start,
                    end_frame: start + clip.segments(),
                    framerate: clip.fps,
                    looping: clip.looping,
                },
            ));
            start += clip.frame_count;
        }
        Self {
            os_remap: OsRemap {
                min: lo.to_array(),
                max: hi.to_array(),
                frames: layout.frames,
            },
            animations: Animations(animations),
            stampede: Notes {
                texture: file(texture),
                mesh: file(mesh),
                uv: "TEXCOORD_1 (VAT_UV): the centre of the vertex's texel in frame 0",
                axes: "Blender's (Z up): (x, -z, y) of the mesh's glTF axes; offsets from the mesh's positions",
                frames: "0-based over every clip; a clip plays startFrame..endFrame, endFrame reached only by the interpolation (bevy_open_vat's numbering)",
                normals: "packed: the bottom half of the texture, n * 0.5 + 0.5",
            },
        }
    }
}
