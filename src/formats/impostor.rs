//! The far field's impostor atlas in an export: its two textures as PNGs
//! (every layer stacked top to bottom in one image) and the `impostor`
//! section of `vat.json`, which spells out how another engine picks a
//! cell and a frame and turns the texels back into a lit, depth-correct
//! impostor. The texels come from the GPU (`render::impostor`); this is
//! plain data and files.

use super::FormatError;
use super::image::write_png8;
use crate::impostor::{AtlasLayout, CellBounds};
use serde::Serialize;
use std::path::Path;

/// The colour texture's file name inside the export folder.
pub const ALBEDO_FILE: &str = "impostor_albedo.png";
/// The normal and depth texture's file name.
pub const NORMAL_DEPTH_FILE: &str = "impostor_normal_depth.png";

/// One atlas layer read back: (albedo, normal and depth), RGBA8, rows top
/// to bottom.
pub type AtlasLayer = (Vec<[u8; 4]>, Vec<[u8; 4]>);

/// The `impostor` section of `vat.json`.
#[derive(Clone, Debug, Serialize)]
pub struct ImpostorJson {
    pub albedo: &'static str,
    pub normal_depth: &'static str,
    /// One layer's texels; the files are `layer_width` wide and
    /// `layer_height × layers` tall.
    pub layer_width: u32,
    pub layer_height: u32,
    pub layers: u32,
    pub stacking: &'static str,
    /// Texels on a side of a cell.
    pub cell: u32,
    pub yaws: u32,
    /// The rows' elevations, degrees, top row first.
    pub elevations_degrees: Vec<f32>,
    pub cells: &'static str,
    /// The model-space sphere every baked pose fits in.
    pub centre: [f32; 3],
    pub radius: f32,
    /// Half a cell's side in model units (the sphere plus a texel each
    /// side).
    pub extent: f32,
    pub direction: &'static str,
    pub right_up: &'static str,
    pub cell_projection: &'static str,
    pub albedo_encoding: &'static str,
    /// The samples per texel the coverage counts (the atlas's MSAA).
    pub samples: u32,
    pub normal_depth_encoding: &'static str,
    pub depth: &'static str,
    pub drawing: &'static str,
    pub cell_choice: &'static str,
    pub frame_choice: &'static str,
    /// Each cell's covered texels over every frame, in cell order (row
    /// by row, top first; column by column within a row).
    pub cell_bounds: Vec<CellBounds>,
    pub bounds: &'static str,
    /// The atlas frames of each baked clip, in the `clips` order.
    pub clips: Vec<ImpostorClipJson>,
    /// The mesh level the atlas was drawn with (see `lod`).
    pub mesh_level: u32,
    /// Mip levels the atlas has in Stampede (the files hold level 0; a
    /// plain 2×2 box filter of the premultiplied texels makes the rest).
    pub mips: u32,
    /// Stampede's default switch: a horse becomes an impostor when its
    /// bounding sphere is this many pixels across.
    pub switch_px: f32,
}

/// One clip's frames in the atlas.
#[derive(Clone, Debug, Serialize)]
pub struct ImpostorClipJson {
    pub name: String,
    pub first_layer: u32,
    pub frames: u32,
    pub duration: f32,
    pub looping: bool,
    /// Clip time of each frame, seconds.
    pub times: Vec<f32>,
}

/// Writes the atlas's layers (`layers[k]` is layer `k`, as
/// [`AtlasLayout::layer_size`] big) into `dir` as the two PNGs and returns
/// the `impostor` section. `clip_names` are the baked clips' names;
/// `cell_bounds` each cell's covered texels (`impostor::cell_bounds`); the
/// atlas was drawn with `samples` MSAA samples and is drawn from
/// `switch_px` on.
pub fn write_atlas(
    layout: &AtlasLayout,
    clip_names: &[String],
    layers: &[AtlasLayer],
    cell_bounds: &[CellBounds],
    (samples, switch_px): (u32, f32),
    dir: &Path,
) -> Result<ImpostorJson, FormatError> {
    let (width, height) = layout.layer_size();
    let texels = (width * height) as usize;
    let stacked = |pick: fn(&AtlasLayer) -> &Vec<[u8; 4]>| -> Vec<[u8; 4]> {
        let mut out = Vec::with_capacity(texels * layers.len());
        for layer in layers {
            let t = pick(layer);
            out.extend_from_slice(&t[..texels.min(t.len())]);
            out.resize(out.len() + texels.saturating_sub(t.len()), [0; 4]);
        }
        out
    };
    let tall = height * layers.len() as u32;
    write_png8(
        &dir.join(ALBEDO_FILE),
        width,
        tall,
        &stacked(|l| &l.0),
        true,
    )?;
    write_png8(
        &dir.join(NORMAL_DEPTH_FILE),
        width,
        tall,
        &stacked(|l| &l.1),
        false,
    )?;
    Ok(ImpostorJson {
        albedo: ALBEDO_FILE,
        normal_depth: NORMAL_DEPTH_FILE,
        layer_width: width,
        layer_height: height,
        layers: layers.len() as u32,
        stacking: "layer k is rows k*layer_height .. (k+1)*layer_height of each file (row 0 at the top)",
        cell: layout.cell,
        yaws: layout.yaws,
        elevations_degrees: layout.elevations.iter().map(|e| e.to_degrees()).collect(),
        cells: "a layer is a grid of yaws columns × elevations rows of cell² texels: column c (left to right) looks from yaw a = 2π·c/yaws, row r (top to bottom) from elevations_degrees[r]",
        centre: layout.centre.to_array(),
        radius: layout.radius,
        extent: layout.extent(),
        direction: "model space, from the model towards the viewer: d = (sin a·cos e, sin e, cos a·cos e); yaw 0 looks at the model's front (+Z), y is up",
        right_up: "right = (cos a, 0, -sin a), up = cross(d, right)",
        cell_projection: "orthographic: a model-space point p lands at x = dot(p - centre, right) / extent, y = dot(p - centre, up) / extent, both -1..1 across the cell (x to the right, y up, so texel row = cell·(0.5 - y/2))",
        albedo_encoding: "RGB: the unlit colour (base colour × texture × vertex colour) premultiplied by coverage in linear light, then sRGB-encoded: decode sRGB, then divide by A. A: coverage (the share of `samples` samples covered, linear)",
        normal_depth_encoding: "linear. RGB: (model-space normal · 0.5 + 0.5) premultiplied by coverage; A: depth premultiplied by coverage. Divide by the albedo's A first",
        depth: "depth = (radius - dot(p - centre, d)) / (2·radius): 0 at the sphere's side towards the viewer, 1 at the far side",
        drawing: "one camera-facing quad per instance, 2·extent·scale across, centred on the instance's transform of centre; the cell's right and up are projected onto the plane facing the camera. The normal turns with the instance; the surface point is the quad point moved towards the viewer by radius·scale·(1 - 2·depth) (for lighting, shadows and the depth test)",
        cell_choice: "v = the direction from the instance to the camera in model space: column = round(atan2(v.x, v.z) / 2π · yaws) mod yaws; row = the elevation nearest asin(v.y)",
        frame_choice: "clip time t: a looping clip's frame = round((t mod duration) / duration · frames) mod frames; a clamped clip's = round(clamp(t, 0, duration) / duration · (frames - 1)); layer = first_layer + frame. A crossfade blends the two clips' texels, premultiplied, by its weight",
        cell_bounds: cell_bounds.to_vec(),
        bounds: "cell_bounds[row · yaws + column] = [x0, y0, x1, y1]: the texels x0 ≤ x < x1, y0 ≤ y < y1 of the cell (x to the right, y down) hold every texel any frame covers (A > 0); [cell, cell, 0, 0] when no frame covers any. A quad may be cut to them, widened by two texels of the mip level it reads (2^level atlas texels each) and clamped to the cell: no frame shows outside, and fragments there cost nothing; an empty cell needs no quad",
        clips: layout
            .clips
            .iter()
            .enumerate()
            .map(|(i, c)| ImpostorClipJson {
                name: clip_names.get(i).cloned().unwrap_or_default(),
                first_layer: c.first_layer,
                frames: c.frames,
                duration: c.duration,
                looping: c.looping,
                times: (0..c.frames).map(|k| c.time(k)).collect(),
            })
            .collect(),
        mesh_level: layout.mesh_level,
        mips: layout.mips(),
        samples,
        switch_px,
    })
}
