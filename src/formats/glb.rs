//! A binary glTF (`.glb`) of a posed, static copy of a model: its vertex
//! stream in the bake's order (one glTF primitive per model primitive,
//! each over its own range of the stream, so a reader that appends
//! primitives in order gets the stream back), its materials and base-colour
//! textures, a lookup UV in `TEXCOORD_1` and the vertex index in
//! `_VERTEX_ID`. No skin, no animation.

use crate::model::Model;
use glam::{Vec2, Vec3, Vec4};
use serde_json::{Value, json};

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;

/// What goes into the file; every slice holds one element per vertex.
pub struct GlbMesh<'a> {
    pub model: &'a Model,
    pub positions: &'a [Vec3],
    pub normals: &'a [Vec3],
    /// `TEXCOORD_1`: where each vertex's data lives in the textures.
    pub lookup: &'a [Vec2],
    /// The node's and mesh's name.
    pub name: &'a str,
}

/// Encodes `mesh` as a `.glb`. Fails only when a texture cannot be
/// encoded as PNG.
pub fn encode_glb(mesh: &GlbMesh) -> Result<Vec<u8>, png::EncodingError> {
    let model = mesh.model;
    let n = model.vertex_count();
    assert!(
        mesh.positions.len() == n && mesh.normals.len() == n && mesh.lookup.len() == n,
        "encode_glb: one position, normal and lookup per vertex"
    );
    let mut bin = Bin::default();
    let positions = bin.stream(flat(mesh.positions.iter().map(|p| p.to_array())));
    let normals = bin.stream(flat(mesh.normals.iter().map(|p| p.to_array())));
    let lookup = bin.stream(flat(mesh.lookup.iter().map(|p| p.to_array())));
    let uvs = model
        .has_uv
        .then(|| bin.stream(flat(model.uvs.iter().map(|p| p.to_array()))));
    let ids = bin.stream((0..n).map(|v| v as f32).collect());
    let colors = vertex_colors(model).map(|c| bin.stream(flat(c.iter().map(|c| c.to_array()))));

    let mut primitives = Vec::new();
    for p in &model.primitives {
        let (first, count) = (p.first_vertex as usize, p.vertex_count as usize);
        let range = first..first + count;
        let bounds = crate::Aabb::from_points(mesh.positions[range].iter().copied());
        let mut attributes = serde_json::Map::new();
        let mut position = bin.accessor(positions, first, count, "VEC3");
        position["min"] = json!(bounds.min.to_array());
        position["max"] = json!(bounds.max.to_array());
        attributes.insert("POSITION".into(), bin.push_accessor(position));
        let mut put = |name: &str, view: usize, kind: &str, bin: &mut Bin| {
            let accessor = bin.accessor(view, first, count, kind);
            attributes.insert(name.into(), bin.push_accessor(accessor));
        };
        put("NORMAL", normals, "VEC3", &mut bin);
        if let Some(view) = uvs {
            put("TEXCOORD_0", view, "VEC2", &mut bin);
        }
        put("TEXCOORD_1", lookup, "VEC2", &mut bin);
        if let Some(view) = colors.filter(|_| !flat_colored(model, p)) {
            put("COLOR_0", view, "VEC4", &mut bin);
        }
        put("_VERTEX_ID", ids, "SCALAR", &mut bin);
        let local: Vec<u32> = model.indices
            [p.first_index as usize..(p.first_index + p.index_count) as usize]
            .iter()
            .map(|&i| i - p.first_vertex)
            .collect();
        let view = bin.view(bytes_u32(&local), Some(ELEMENT_ARRAY_BUFFER));
        let indices = bin.push_accessor(json!({
            "bufferView": view, "componentType": UNSIGNED_INT,
            "count": local.len(), "type": "SCALAR",
        }));
        let mut primitive = json!({ "attributes": attributes, "indices": indices, "mode": 4 });
        if p.material < model.materials.len() {
            primitive["material"] = json!(p.material);
        }
        primitives.push(primitive);
    }

    let materials: Vec<Value> = model.materials.iter().map(material_json).collect();
    let mut images = Vec::new();
    for image in &model.images {
        let view = bin.view(png_rgba8(image)?, None);
        images.push(json!({ "bufferView": view, "mimeType": "image/png" }));
    }
    let textures: Vec<Value> = (0..images.len())
        .map(|i| json!({ "source": i, "sampler": 0 }))
        .collect();
    let mut doc = json!({
        "asset": { "version": "2.0", "generator": "stampede bake" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [{ "name": mesh.name, "mesh": 0 }],
        "meshes": [{ "name": mesh.name, "primitives": primitives }],
        "buffers": [{ "byteLength": bin.bytes.len() }],
        "bufferViews": bin.views,
        "accessors": bin.accessors,
    });
    if !materials.is_empty() {
        doc["materials"] = json!(materials);
    }
    if !images.is_empty() {
        doc["images"] = json!(images);
        doc["textures"] = json!(textures);
        doc["samplers"] =
            json!([{ "magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497 }]);
    }
    Ok(pack_glb(&doc.to_string(), &bin.bytes))
}

fn material_json(m: &crate::model::Material) -> Value {
    let mut pbr = json!({
        "baseColorFactor": m.base_color.to_array(),
        "metallicFactor": m.metallic,
        "roughnessFactor": m.roughness,
    });
    if let Some(t) = m.base_color_texture {
        pbr["baseColorTexture"] = json!({ "index": t.image, "texCoord": 0 });
    }
    json!({ "name": m.name, "pbrMetallicRoughness": pbr, "doubleSided": m.double_sided })
}

/// `COLOR_0` for the whole stream: the model's colour (base colour factor
/// times the file's `COLOR_0`) divided by its primitive's factor, so that
/// factor × `COLOR_0` gives it back; `None` when no primitive needs one.
fn vertex_colors(model: &Model) -> Option<Vec<Vec4>> {
    if model.primitives.iter().all(|p| flat_colored(model, p)) {
        return None;
    }
    let mut out = vec![Vec4::ONE; model.vertex_count()];
    for p in &model.primitives {
        let factor = factor(model, p);
        let range = p.first_vertex as usize..(p.first_vertex + p.vertex_count) as usize;
        for (o, c) in out[range.clone()].iter_mut().zip(&model.colors[range]) {
            *o = Vec4::select(factor.cmpeq(Vec4::ZERO), Vec4::ZERO, *c / factor);
        }
    }
    Some(out)
}

fn factor(model: &Model, p: &crate::model::Primitive) -> Vec4 {
    model
        .materials
        .get(p.material)
        .map_or(Vec4::ONE, |m| m.base_color)
}

/// True when every vertex of `p` has just its material's colour (the file
/// had no `COLOR_0` there), so the primitive needs none.
fn flat_colored(model: &Model, p: &crate::model::Primitive) -> bool {
    let factor = factor(model, p);
    model.colors[p.first_vertex as usize..(p.first_vertex + p.vertex_count) as usize]
        .iter()
        .all(|c| *c == factor)
}

fn flat<const N: usize>(items: impl Iterator<Item = [f32; N]>) -> Vec<f32> {
    items.flatten().collect()
}

fn bytes_u32(data: &[u32]) -> Vec<u8> {
    data.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn png_rgba8(image: &crate::model::Image) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&image.rgba8)?;
    writer.finish()?;
    Ok(out)
}

/// The binary chunk being built, with its views and accessors.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn view(&mut self, data: Vec<u8>, target: Option<u32>) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let mut view =
            json!({ "buffer": 0, "byteOffset": self.bytes.len(), "byteLength": data.len() });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bytes.extend(data);
        self.views.push(view);
        self.views.len() - 1
    }

    /// A view over a whole-stream float attribute.
    fn stream(&mut self, floats: Vec<f32>) -> usize {
        let bytes = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
        self.view(bytes, Some(ARRAY_BUFFER))
    }

    /// A float accessor over vertices `first..first + count` of `view`.
    fn accessor(&self, view: usize, first: usize, count: usize, kind: &str) -> Value {
        let components = match kind {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            _ => 4,
        };
        json!({
            "bufferView": view, "byteOffset": first * components * 4,
            "componentType": FLOAT, "count": count, "type": kind,
        })
    }

    fn push_accessor(&mut self, accessor: Value) -> Value {
        self.accessors.push(accessor);
        json!(self.accessors.len() - 1)
    }
}

/// Header, JSON chunk (space padded) and BIN chunk (zero padded).
fn pack_glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut json_bytes = json.as_bytes().to_vec();
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    let mut bin_bytes = bin.to_vec();
    while !bin_bytes.len().is_multiple_of(4) {
        bin_bytes.push(0);
    }
    let total = 12 + 8 + json_bytes.len() + 8 + bin_bytes.len();
    let word = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&word(total));
    out.extend_from_slice(&word(json_bytes.len()));
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json_bytes);
    out.extend_from_slice(&word(bin_bytes.len()));
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin_bytes);
    out
}
