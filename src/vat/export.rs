//! `stampede bake`: the textures as OpenEXR (16-bit PNG for the packed
//! precision) plus a `vat.json` table that another engine can read. The
//! format is documented in docs/formats.md.

use super::{ErrorReport, Layout, Precision, Texels, Vat, VatClip, packed};
use crate::Aabb;
use crate::model::Model;
use half::f16;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Version of the `vat.json` format.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{path}: cannot create the output folder: {source}")]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: cannot write the EXR file: {source}")]
    Exr {
        path: PathBuf,
        #[source]
        source: exr::error::Error,
    },
    #[error("{path}: cannot write the PNG file: {source}")]
    Png {
        path: PathBuf,
        #[source]
        source: png::EncodingError,
    },
    #[error("{path}: cannot write: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[derive(Serialize)]
struct VatJson<'a, E: Serialize> {
    format: &'static str,
    version: u32,
    model: String,
    precision: Precision,
    bake_fps: f32,
    layout: &'a Layout,
    /// Per layer, top row first.
    textures: Textures,
    clips: &'a [VatClip],
    bounds: &'a Aabb,
    /// How to decode the packed texels; only for the packed precision.
    #[serde(skip_serializing_if = "Option::is_none")]
    packing: Option<Packing<'a>>,
    primitives: Vec<PrimitiveJson>,
    error: &'a ErrorReport,
    bake_ms: f64,
    /// How to draw the previous frame's pose (motion vectors).
    motion: Motion,
    /// Sections the layers above add (the LOD chain's `lod`).
    #[serde(flatten)]
    extra: &'a E,
}

/// The previous frame's pose, spelled out for other engines (docs/formats.md,
/// "The previous frame's pose").
#[derive(Serialize)]
struct Motion {
    previous_pose: &'static str,
    crossfade: &'static str,
    velocity: &'static str,
    time_jump: &'static str,
}

impl Motion {
    const TEXT: Self = Self {
        previous_pose: "evaluate the same pose at the previous frame's time T - dt: each clip's clip time at T - dt (clip_time = (T - dt) * rate + offset), sampled and lerped between frames exactly as for T, the instance placed where it was at T - dt, projected by the previous frame's unjittered view-projection",
        crossfade: "keep each crossfade's start time, not a per-frame counter: weight(T) = clamp((T - start) / fade, 0, 1), and a change of clip at T - dt < start < T blends at weight(T - dt) from the clip before it",
        velocity: "uv(clip) = (clip.x / clip.w * 0.5 + 0.5, 0.5 - clip.y / clip.w * 0.5); motion = uv(now) - uv(before), both without the TAA jitter",
        time_jump: "when dt < 0 or dt > 0.25 s (a seek, a reset), or the playback rate or clip changed between the frames, use T for both: no motion, and drop the TAA history",
    };
}

/// No extra sections.
#[derive(Serialize)]
struct Nothing {}

/// The files of each texture; a packed bake has only `packed`.
#[derive(Serialize)]
struct Textures {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    positions: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    normals: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    packed: Vec<String>,
}

/// The decode of a packed texel, spelled out for other engines.
#[derive(Serialize)]
struct Packing<'a> {
    /// The texel: RGBA, 16-bit unsigned integers.
    texel: &'static str,
    position: PositionPacking<'a>,
    normal: NormalPacking,
}

#[derive(Serialize)]
struct PositionPacking<'a> {
    channels: &'static str,
    bits: u32,
    /// The quantization box (the same as the top-level `bounds`).
    min: &'a glam::Vec3,
    max: &'a glam::Vec3,
    decode: &'static str,
}

#[derive(Serialize)]
struct NormalPacking {
    channel: &'static str,
    encoding: &'static str,
    bits: [u32; 2],
    u_byte: &'static str,
    v_byte: &'static str,
    /// How one byte maps to [-1, 1].
    component: &'static str,
    decode: &'static str,
}

impl<'a> Packing<'a> {
    fn new(vat: &'a Vat) -> Self {
        Self {
            texel: "rgba16uint",
            position: PositionPacking {
                channels: "rgb",
                bits: packed::POSITION_BITS,
                min: &vat.bounds.min,
                max: &vat.bounds.max,
                decode: "p = min + float(q) * ((max - min) / 65535.0)",
            },
            normal: NormalPacking {
                channel: "a",
                encoding: "octahedral",
                bits: [packed::NORMAL_BITS, packed::NORMAL_BITS],
                u_byte: "low (a & 0xff)",
                v_byte: "high (a >> 8)",
                component: "max((float(byte) - 128.0) / 127.0, -1.0)",
                decode: "n = (u, v, 1 - |u| - |v|); t = max(-n.z, 0); n.x += n.x >= 0 ? -t : t; n.y += n.y >= 0 ? -t : t; n = normalize(n)",
            },
        }
    }
}

#[derive(Serialize)]
struct PrimitiveJson {
    node: usize,
    mesh: usize,
    primitive: usize,
    first_vertex: u32,
    vertex_count: u32,
    material: String,
    skinned: bool,
}

/// Writes `positions*.exr`, `normals*.exr` (or, packed, `packed*.png`) and
/// `vat.json` into `dir` (created when missing); returns the written paths.
pub fn export(model: &Model, vat: &Vat, dir: &Path) -> Result<Vec<PathBuf>, ExportError> {
    export_with(model, vat, dir, &Nothing {})
}

/// [`export`], with `extra`'s fields added at the top level of `vat.json`
/// (how the layers above, such as the LOD chain, add their sections).
pub fn export_with(
    model: &Model,
    vat: &Vat,
    dir: &Path,
    extra: &impl Serialize,
) -> Result<Vec<PathBuf>, ExportError> {
    std::fs::create_dir_all(dir).map_err(|source| ExportError::CreateDir {
        path: dir.to_owned(),
        source,
    })?;
    let names = |stem: &str, ext: &str| -> Vec<String> {
        if vat.layout.layers == 1 {
            vec![format!("{stem}.{ext}")]
        } else {
            (0..vat.layout.layers)
                .map(|l| format!("{stem}_{l}.{ext}"))
                .collect()
        }
    };
    let textures = if vat.precision == Precision::Packed {
        Textures {
            positions: Vec::new(),
            normals: Vec::new(),
            packed: names("packed", "png"),
        }
    } else {
        Textures {
            positions: names("positions", "exr"),
            normals: names("normals", "exr"),
            packed: Vec::new(),
        }
    };
    let mut written = Vec::new();
    for (files, texels) in [
        (&textures.packed, &vat.positions),
        (&textures.positions, &vat.positions),
        (&textures.normals, &vat.normals),
    ] {
        for (layer, file) in files.iter().enumerate() {
            let path = dir.join(file);
            write_layer(&path, &vat.layout, texels, layer)?;
            written.push(path);
        }
    }
    let json = VatJson {
        format: "stampede-vat",
        version: FORMAT_VERSION,
        model: model
            .source
            .file_name()
            .map_or_else(|| model.name(), |f| f.to_string_lossy().into_owned()),
        precision: vat.precision,
        bake_fps: vat.fps,
        layout: &vat.layout,
        textures,
        clips: &vat.clips,
        bounds: &vat.bounds,
        packing: (vat.precision == Precision::Packed).then(|| Packing::new(vat)),
        primitives: model
            .primitives
            .iter()
            .map(|p| PrimitiveJson {
                node: p.node,
                mesh: p.mesh,
                primitive: p.primitive,
                first_vertex: p.first_vertex,
                vertex_count: p.vertex_count,
                material: model
                    .materials
                    .get(p.material)
                    .map_or_else(String::new, |m| m.name.clone()),
                skinned: p.skinned,
            })
            .collect(),
        error: &vat.report,
        bake_ms: vat.bake_ms,
        motion: Motion::TEXT,
        extra,
    };
    let path = dir.join("vat.json");
    let text = serde_json::to_string_pretty(&json)
        .expect("the VAT table is plain data and always serializes");
    std::fs::write(&path, text + "\n").map_err(|source| ExportError::Write {
        path: path.clone(),
        source,
    })?;
    written.push(path);
    Ok(written)
}

/// One layer as an RGBA EXR in the bake's precision (a 16-bit RGBA PNG of
/// the raw codes for packed), row 0 at the top.
fn write_layer(
    path: &Path,
    layout: &Layout,
    texels: &Texels,
    layer: usize,
) -> Result<(), ExportError> {
    let (w, h) = (layout.width as usize, layout.height as usize);
    let base = layer * layout.layer_texels();
    let result = match texels {
        Texels::F16(v) => exr::prelude::write_rgba_file(path, w, h, |x, y| {
            let t: [f16; 4] = v[base + y * w + x];
            (t[0], t[1], t[2], t[3])
        }),
        Texels::F32(v) => exr::prelude::write_rgba_file(path, w, h, |x, y| {
            let t: [f32; 4] = v[base + y * w + x];
            (t[0], t[1], t[2], t[3])
        }),
        Texels::Packed(v) => return write_png16(path, layout, &v[base..base + w * h]),
    };
    result.map_err(|source| ExportError::Exr {
        path: path.to_owned(),
        source,
    })
}

/// A 16-bit RGBA PNG holding `texels` bit for bit (PNG samples are
/// big-endian).
fn write_png16(path: &Path, layout: &Layout, texels: &[[u16; 4]]) -> Result<(), ExportError> {
    let png_error = |source| ExportError::Png {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::create(path).map_err(|source| ExportError::Write {
        path: path.to_owned(),
        source,
    })?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), layout.width, layout.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Sixteen);
    let data: Vec<u8> = texels
        .iter()
        .flatten()
        .flat_map(|c| c.to_be_bytes())
        .collect();
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(&data).map_err(png_error)?;
    writer.finish().map_err(png_error)
}
