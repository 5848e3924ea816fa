//! Several models' VATs in one texture array, so that one bind group (and
//! one draw) serves a scene of several models.
//!
//! Each model keeps its own row layout (its width and rows per frame) and
//! its own clips; the clips of every model are stacked into shared layers
//! in the order given (a clip never straddles two layers, as in one
//! model's VAT). The array is as wide as the widest model: a narrower
//! model's rows leave the rest of theirs unused, which
//! [`VatSet::efficiency`] reports. Vertex `v` of frame `f` of a placed
//! clip sits at `x = v % width`, `row = first_row + f × rows_per_frame +
//! v / width` of its layer, with the model's own `width` and
//! `rows_per_frame`: the shader's fetch is unchanged, only the clip table
//! grows.

use super::{Layout, Precision, Texels, Vat, VatClip, VatError};
use std::ops::Range;

/// One model's place in the set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetModel {
    pub name: String,
    /// Its first clip in the set's clip table.
    pub first_clip: u32,
    pub clip_count: u32,
    pub vertex_count: u32,
    /// Its first vertex in the scene's vertex stream (the models' vertices
    /// one after the other, in the set's order).
    pub vertex_base: u32,
    /// Its own row layout.
    pub width: u32,
    pub rows_per_frame: u32,
}

/// Where one clip of one model went: rows `source_row..+rows` of layer
/// `source_layer` of the model's own VAT, copied to `first_row` of `layer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SetClip {
    pub model: u32,
    /// The clip's index in its model's VAT.
    pub clip: u32,
    pub layer: u32,
    pub first_row: u32,
    pub rows: u32,
    pub source_layer: u32,
    pub source_row: u32,
}

/// The shared texture array of a scene's VATs and where everything is.
#[derive(Clone, Debug, PartialEq)]
pub struct VatSet {
    pub precision: Precision,
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    pub models: Vec<SetModel>,
    /// Every model's clips, model by model (model `m`'s clip `c` is entry
    /// `models[m].first_clip + c`).
    pub clips: Vec<SetClip>,
}

impl VatSet {
    /// Places `vats` (each with its model's name) in one array whose side
    /// and layers stay within `max_side` and `max_layers` (the device's).
    pub fn plan(vats: &[(&str, &Vat)], max_side: u32, max_layers: u32) -> Result<Self, VatError> {
        let Some((first_name, first)) = vats.first() else {
            return Err(VatError::Option(
                "a VAT set needs at least one model".into(),
            ));
        };
        if let Some((name, v)) = vats.iter().find(|(_, v)| v.precision != first.precision) {
            return Err(VatError::Option(format!(
                "{name} is baked as {} and {first_name} as {}: the models of a scene share one texture format",
                v.precision.name(),
                first.precision.name()
            )));
        }
        let width = vats.iter().map(|(_, v)| v.layout.width).max().unwrap_or(1);
        let mut models = Vec::with_capacity(vats.len());
        let mut clips = Vec::new();
        let (mut layer, mut row, mut tallest) = (0u32, 0u32, 0u32);
        let mut vertex_base = 0u32;
        for (m, (name, vat)) in vats.iter().enumerate() {
            let l = &vat.layout;
            if l.width > max_side {
                return Err(VatError::TooManyVertices {
                    model: name.to_string(),
                    vertices: l.vertex_count as usize,
                    width: l.width,
                    rows: l.rows_per_frame,
                    max_height: max_side,
                });
            }
            models.push(SetModel {
                name: name.to_string(),
                first_clip: clips.len() as u32,
                clip_count: vat.clips.len() as u32,
                vertex_count: l.vertex_count,
                vertex_base,
                width: l.width,
                rows_per_frame: l.rows_per_frame,
            });
            vertex_base = vertex_base.saturating_add(l.vertex_count);
            for (c, clip) in vat.clips.iter().enumerate() {
                let rows = clip.frame_count.max(1) * l.rows_per_frame;
                if rows > max_side {
                    return Err(VatError::ClipTooLong {
                        model: name.to_string(),
                        clip: clip.name.clone(),
                        frames: clip.frame_count,
                        rows_per_frame: l.rows_per_frame,
                        rows,
                        max_height: max_side,
                    });
                }
                if row + rows > max_side {
                    (layer, row) = (layer + 1, 0);
                }
                clips.push(SetClip {
                    model: m as u32,
                    clip: c as u32,
                    layer,
                    first_row: row,
                    rows,
                    source_layer: clip.layer,
                    source_row: clip.first_row,
                });
                row += rows;
                tallest = tallest.max(row);
            }
        }
        let layers = layer + 1;
        if layers > max_layers {
            return Err(VatError::TooManyLayers {
                model: format!("the scene of {} models", vats.len()),
                layers,
                max_layers,
            });
        }
        Ok(Self {
            precision: first.precision,
            width,
            height: tallest.max(1),
            layers,
            models,
            clips,
        })
    }

    /// Model `model`'s clips as placed in the set (its layers and rows).
    pub fn placed_clips(&self, model: usize, vat: &Vat) -> Vec<VatClip> {
        let m = &self.models[model];
        let placed = &self.clips[m.first_clip as usize..(m.first_clip + m.clip_count) as usize];
        vat.clips
            .iter()
            .zip(placed)
            .map(|(clip, p)| VatClip {
                layer: p.layer,
                first_row: p.first_row,
                ..clip.clone()
            })
            .collect()
    }

    /// Texels of one layer.
    pub fn layer_texels(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Texels of the whole array.
    pub fn texel_count(&self) -> usize {
        self.layer_texels() * self.layers as usize
    }

    /// Bytes of one texture of the array (positions, or the packed one).
    pub fn texture_bytes(&self) -> u64 {
        (self.texel_count() * self.precision.bytes_per_texel()) as u64
    }

    /// The share of the array's texels that hold a vertex.
    pub fn efficiency(&self) -> f64 {
        let used: u64 = self
            .clips
            .iter()
            .map(|c| {
                let m = &self.models[c.model as usize];
                c.rows as u64 / m.rows_per_frame.max(1) as u64 * m.vertex_count as u64
            })
            .sum();
        used as f64 / self.texel_count().max(1) as f64
    }

    /// Where vertex `v` of frame `frame` of model `model`'s clip `clip` is
    /// in the array (layer-major, rows `width` texels long).
    pub fn texel_index(&self, model: usize, clip: usize, frame: u32, v: u32) -> usize {
        let m = &self.models[model];
        let p = &self.clips[m.first_clip as usize + clip];
        let row = p.first_row + frame * m.rows_per_frame + v / m.width;
        p.layer as usize * self.layer_texels()
            + row as usize * self.width as usize
            + (v % m.width) as usize
    }

    /// The texels of `clip`'s rows in its model's own VAT (one contiguous
    /// run: `rows × width` texels), what one copy uploads.
    pub fn source_range(&self, clip: &SetClip, layout: &Layout) -> Range<usize> {
        let start = clip.source_layer as usize * layout.layer_texels()
            + clip.source_row as usize * layout.width as usize;
        start..start + clip.rows as usize * layout.width as usize
    }

    /// Hands each clip's rows of `texels` (positions or normals) from its
    /// model's own bake to `write` with the bake's width: what one copy
    /// puts at the clip's place (`vats` in the order the set was planned).
    pub fn upload<V: std::ops::Deref<Target = Vat>>(
        &self,
        vats: &[V],
        texels: fn(&Vat) -> &Texels,
        mut write: impl FnMut(&SetClip, &[u8], u32),
    ) {
        let size = self.precision.bytes_per_texel();
        for c in &self.clips {
            let vat: &Vat = &vats[c.model as usize];
            let range = self.source_range(c, &vat.layout);
            let bytes = &texels(vat).bytes()[range.start * size..range.end * size];
            write(c, bytes, vat.layout.width);
        }
    }

    /// The array's positions and normals built on the CPU from each
    /// model's VAT, copy by copy as the upload does (`vats` in the order
    /// the set was planned with). Unused texels stay zero.
    pub fn combine(&self, vats: &[&Vat]) -> (Texels, Texels) {
        let has_normals = self.precision != Precision::Packed;
        let mut positions = Texels::zeroed(self.precision, self.texel_count());
        let mut normals = Texels::zeroed(
            self.precision,
            if has_normals { self.texel_count() } else { 0 },
        );
        for c in &self.clips {
            let vat = vats[c.model as usize];
            let w = vat.layout.width as usize;
            let source = self.source_range(c, &vat.layout);
            for (k, i) in source.enumerate() {
                let (row, x) = (k / w, k % w);
                let dst = c.layer as usize * self.layer_texels()
                    + (c.first_row as usize + row) * self.width as usize
                    + x;
                copy_texel(&vat.positions, i, &mut positions, dst);
                if has_normals {
                    copy_texel(&vat.normals, i, &mut normals, dst);
                }
            }
        }
        (positions, normals)
    }
}

impl VatSet {
    /// The array as one [`Vat`] the renderer uploads like a single model's
    /// (its clips are every model's, placed; its layout is the array's,
    /// with the widest model's row layout: each clip's own is in the set's
    /// clip table). A packed bake decodes inside its model's bounds, which
    /// one texture cannot say for several models: refused.
    pub fn combined(&self, vats: &[&Vat]) -> Result<Vat, VatError> {
        let (positions, normals) = self.combine(vats);
        Ok(Vat {
            positions,
            normals,
            ..self.header(vats)?
        })
    }

    /// [`Self::combined`] without its texels: the array's layout, clips,
    /// precision and bounds, what the renderer keeps of a scene's VAT while
    /// each model's own bake is uploaded to its place in the array
    /// (`render::techniques::vat::TexelSource::Set`). No second copy of the
    /// texels is made.
    pub fn header(&self, vats: &[&Vat]) -> Result<Vat, VatError> {
        if self.precision == Precision::Packed && vats.len() > 1 {
            return Err(VatError::Option(
                "packed VATs decode inside each model's own bounds: a scene of several models is baked as f16 or f32".into(),
            ));
        }
        let mut clips = Vec::with_capacity(self.clips.len());
        for (m, vat) in vats.iter().enumerate() {
            clips.extend(self.placed_clips(m, vat));
        }
        let rows_per_frame = self
            .models
            .iter()
            .max_by_key(|m| m.width)
            .map_or(1, |m| m.rows_per_frame);
        let bounds = vats
            .iter()
            .fold(crate::Aabb::EMPTY, |b, v| b.union(&v.bounds));
        Ok(Vat {
            layout: Layout {
                vertex_count: self.models.iter().map(|m| m.vertex_count).sum(),
                width: self.width,
                rows_per_frame,
                height: self.height,
                layers: self.layers,
            },
            clips,
            precision: self.precision,
            fps: vats[0].fps,
            bounds,
            positions: Texels::zeroed(self.precision, 0),
            normals: Texels::zeroed(self.precision, 0),
            report: Default::default(),
            bake_ms: vats.iter().map(|v| v.bake_ms).sum(),
            report_ms: vats.iter().map(|v| v.report_ms).sum(),
        })
    }
}

/// One texel from `from[i]` to `to[j]`, bit for bit.
fn copy_texel(from: &Texels, i: usize, to: &mut Texels, j: usize) {
    match (from, to) {
        (Texels::F16(a), Texels::F16(b)) => b[j] = a[i],
        (Texels::F32(a), Texels::F32(b)) => b[j] = a[i],
        (Texels::Packed(a), Texels::Packed(b)) => b[j] = a[i],
        _ => unreachable!("a set's models share one precision (checked by `plan`)"),
    }
}
