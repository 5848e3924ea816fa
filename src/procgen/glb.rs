//! A small glTF 2.0 binary (`.glb`) writer for one skinned, animated mesh.
//!
//! The layout is fixed and simple: node 0 is the skinned mesh (identity
//! transform), nodes `1..=n` are the joints in skeleton order, and both the
//! mesh node and the skeleton root sit at the root of the single scene.
//! Every accessor gets its own buffer view, aligned to 4 bytes.

use glam::{Mat4, Quat, Vec3};
use serde_json::{Map, Value, json};

use super::clip::{Clip, Track};
use super::mesh::Mesh;
use super::skeleton::Skeleton;

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;

const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

/// The single material of an asset; colour comes from `COLOR_0`.
#[derive(Clone, Copy, Debug)]
pub struct Material {
    pub roughness: f32,
}

/// Everything that goes into one `.glb`.
pub struct Asset<'a> {
    pub name: &'a str,
    pub skeleton: &'a Skeleton,
    pub mesh: &'a Mesh,
    pub material: Material,
    pub clips: &'a [Clip],
}

/// Encodes `asset` as a binary glTF. Deterministic: same input, same bytes.
pub fn encode(asset: &Asset) -> Vec<u8> {
    let mut bin = BinBuilder::default();
    let mesh = asset.mesh;

    let position = bin.vec3(&mesh.positions, true, Some(ARRAY_BUFFER));
    let normal = bin.vec3(&mesh.normals, false, Some(ARRAY_BUFFER));
    let color = bin.vec4(&mesh.colors, Some(ARRAY_BUFFER));
    let joints = bin.joints(&mesh.joints);
    let weights = bin.vec4(&mesh.weights, Some(ARRAY_BUFFER));
    let indices = bin.indices(&mesh.indices);
    let ibm = bin.mat4(&asset.skeleton.inverse_bind_matrices());

    let joint_count = asset.skeleton.len();
    let mut nodes = vec![json!({ "name": asset.name, "mesh": 0, "skin": 0 })];
    for (index, joint) in asset.skeleton.joints().iter().enumerate() {
        let mut node = Map::new();
        node.insert("name".into(), json!(joint.name));
        let children: Vec<usize> = asset.skeleton.children(index).map(|c| c + 1).collect();
        if !children.is_empty() {
            node.insert("children".into(), json!(children));
        }
        if joint.rotation != Quat::IDENTITY {
            node.insert("rotation".into(), quat_json(joint.rotation));
        }
        node.insert("translation".into(), vec3_json(joint.translation));
        nodes.push(Value::Object(node));
    }

    let animations: Vec<Value> = asset.clips.iter().map(|c| animation(&mut bin, c)).collect();

    let root_nodes: Vec<usize> = std::iter::once(0)
        .chain(asset.skeleton.roots().map(|r| r + 1))
        .collect();
    let json = json!({
        "asset": { "version": "2.0", "generator": "stampede procgen" },
        "scene": 0,
        "scenes": [{ "name": asset.name, "nodes": root_nodes }],
        "nodes": nodes,
        "meshes": [{
            "name": asset.name,
            "primitives": [{
                "attributes": {
                    "POSITION": position,
                    "NORMAL": normal,
                    "COLOR_0": color,
                    "JOINTS_0": joints,
                    "WEIGHTS_0": weights,
                },
                "indices": indices,
                "material": 0,
                "mode": 4,
            }],
        }],
        "materials": [{
            "name": asset.name,
            "pbrMetallicRoughness": {
                "baseColorFactor": [1.0, 1.0, 1.0, 1.0],
                "metallicFactor": 0.0,
                "roughnessFactor": num(asset.material.roughness),
            },
        }],
        "skins": [{
            "name": asset.name,
            "inverseBindMatrices": ibm,
            "joints": (1..=joint_count).collect::<Vec<_>>(),
            "skeleton": 1,
        }],
        "animations": animations,
        "buffers": [{ "byteLength": bin.bytes.len() }],
        "bufferViews": bin.views,
        "accessors": bin.accessors,
    });
    pack_glb(&json.to_string(), &bin.bytes)
}

/// One glTF animation: a shared time accessor, one sampler per track.
fn animation(bin: &mut BinBuilder, clip: &Clip) -> Value {
    let input = bin.scalars(&clip.times);
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    for track in &clip.tracks {
        let (joint, path, output) = match track {
            Track::Rotation { joint, values } => (*joint, "rotation", bin.quats(values)),
            Track::Translation { joint, values } => {
                (*joint, "translation", bin.vec3(values, false, None))
            }
        };
        channels.push(json!({
            "sampler": samplers.len(),
            "target": { "node": joint + 1, "path": path },
        }));
        samplers.push(json!({ "input": input, "output": output, "interpolation": "LINEAR" }));
    }
    json!({ "name": clip.name, "channels": channels, "samplers": samplers })
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
    let mut out = Vec::with_capacity(total);
    for word in [GLB_MAGIC, 2, len_u32(total)] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    out.extend_from_slice(&len_u32(json_bytes.len()).to_le_bytes());
    out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.extend_from_slice(&json_bytes);
    out.extend_from_slice(&len_u32(bin_bytes.len()).to_le_bytes());
    out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    out.extend_from_slice(&bin_bytes);
    out
}

fn len_u32(len: usize) -> u32 {
    u32::try_from(len).expect("procedural assets are far below 4 GiB")
}

/// A float as the shortest decimal that round-trips through `f32`.
fn num(x: f32) -> Value {
    let shortest: f64 = format!("{x}").parse().unwrap_or(f64::from(x));
    json!(shortest)
}

fn vec3_json(v: Vec3) -> Value {
    json!([num(v.x), num(v.y), num(v.z)])
}

fn quat_json(q: Quat) -> Value {
    json!([num(q.x), num(q.y), num(q.z), num(q.w)])
}

/// The binary chunk under construction, with its views and accessors.
#[derive(Default)]
struct BinBuilder {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl BinBuilder {
    fn view(&mut self, data: &[u8], target: Option<u32>) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        let mut view = json!({
            "buffer": 0,
            "byteOffset": self.bytes.len(),
            "byteLength": data.len(),
        });
        if let (Some(target), Value::Object(map)) = (target, &mut view) {
            map.insert("target".into(), json!(target));
        }
        self.bytes.extend_from_slice(data);
        self.views.push(view);
        self.views.len() - 1
    }

    fn accessor(&mut self, data: &[u8], target: Option<u32>, desc: Value) -> usize {
        let view = self.view(data, target);
        let mut accessor = desc;
        if let Value::Object(map) = &mut accessor {
            map.insert("bufferView".into(), json!(view));
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    fn vec3(&mut self, data: &[Vec3], bounds: bool, target: Option<u32>) -> usize {
        let bytes = f32_bytes(data.iter().flat_map(|v| v.to_array()));
        let mut desc = json!({ "componentType": FLOAT, "count": data.len(), "type": "VEC3" });
        if bounds && let Value::Object(map) = &mut desc {
            let min = data.iter().copied().fold(Vec3::splat(f32::MAX), Vec3::min);
            let max = data.iter().copied().fold(Vec3::splat(f32::MIN), Vec3::max);
            map.insert("min".into(), vec3_json(min));
            map.insert("max".into(), vec3_json(max));
        }
        self.accessor(&bytes, target, desc)
    }

    fn vec4(&mut self, data: &[[f32; 4]], target: Option<u32>) -> usize {
        let bytes = f32_bytes(data.iter().flatten().copied());
        let desc = json!({ "componentType": FLOAT, "count": data.len(), "type": "VEC4" });
        self.accessor(&bytes, target, desc)
    }

    fn quats(&mut self, data: &[Quat]) -> usize {
        let bytes = f32_bytes(data.iter().flat_map(|q| q.to_array()));
        let desc = json!({ "componentType": FLOAT, "count": data.len(), "type": "VEC4" });
        self.accessor(&bytes, None, desc)
    }

    fn scalars(&mut self, data: &[f32]) -> usize {
        let bytes = f32_bytes(data.iter().copied());
        let min = data.iter().copied().fold(f32::MAX, f32::min);
        let max = data.iter().copied().fold(f32::MIN, f32::max);
        let desc = json!({
            "componentType": FLOAT,
            "count": data.len(),
            "type": "SCALAR",
            "min": [num(min)],
            "max": [num(max)],
        });
        self.accessor(&bytes, None, desc)
    }

    fn joints(&mut self, data: &[[u16; 4]]) -> usize {
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|j| j.to_le_bytes())
            .collect();
        let desc = json!({ "componentType": UNSIGNED_SHORT, "count": data.len(), "type": "VEC4" });
        self.accessor(&bytes, Some(ARRAY_BUFFER), desc)
    }

    fn indices(&mut self, data: &[u32]) -> usize {
        let max = data.iter().copied().max().unwrap_or(0);
        let (bytes, component): (Vec<u8>, u32) = match u16::try_from(max) {
            Ok(_) => (
                data.iter()
                    .flat_map(|&i| u16::try_from(i).unwrap_or(u16::MAX).to_le_bytes())
                    .collect(),
                UNSIGNED_SHORT,
            ),
            Err(_) => (
                data.iter().flat_map(|i| i.to_le_bytes()).collect(),
                UNSIGNED_INT,
            ),
        };
        let desc = json!({ "componentType": component, "count": data.len(), "type": "SCALAR" });
        self.accessor(&bytes, Some(ELEMENT_ARRAY_BUFFER), desc)
    }

    fn mat4(&mut self, data: &[Mat4]) -> usize {
        let bytes = f32_bytes(data.iter().flat_map(|m| m.to_cols_array()));
        let desc = json!({ "componentType": FLOAT, "count": data.len(), "type": "MAT4" });
        self.accessor(&bytes, None, desc)
    }
}

fn f32_bytes(values: impl Iterator<Item = f32>) -> Vec<u8> {
    values.flat_map(f32::to_le_bytes).collect()
}
