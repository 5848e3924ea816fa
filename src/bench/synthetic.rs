//! A synthetic skinned mesh for `bench --bake`: a tube of `rings × segments`
//! vertices around a chain of joints, with procedurally keyed clips that bend
//! the chain like a swaying stalk. It is written as glTF binary bytes so the
//! benchmark times the real importer on it too.
//!
//! Node 0 holds the mesh and the skin; nodes `1..=joints` are the chain, each
//! `length / joints` above its parent, with identity rest rotations.

use glam::{Mat4, Quat, Vec3};
use serde_json::{Value, json};

/// Why a synthetic mesh could not be made.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum SyntheticError {
    #[error("a synthetic tube needs at least 2 rings, 3 segments, 2 joints, 1 clip and 2 keys")]
    TooSmall,
    #[error("{0} vertices are more than a u32 index buffer can address")]
    TooLarge(usize),
}

/// The shape of the synthetic model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TubeSpec {
    pub rings: usize,
    pub segments: usize,
    pub joints: usize,
    pub clips: usize,
    /// Keys per clip (the last repeats the first, so clips loop).
    pub keys: usize,
    /// Seconds per clip.
    pub duration: f32,
    /// Height of the tube in model units.
    pub length: f32,
}

impl TubeSpec {
    /// The benchmark's mesh: 500 rings × 100 segments = 50,000 vertices over
    /// 24 joints, 10 one-second clips keyed at 30 Hz.
    pub const BENCH: TubeSpec = TubeSpec {
        rings: 500,
        segments: 100,
        joints: 24,
        clips: 10,
        keys: 31,
        duration: 1.0,
        length: 2.0,
    };

    pub fn vertex_count(&self) -> usize {
        self.rings * self.segments
    }
}

/// Little-endian bytes of the binary chunk, one 4-byte aligned view per accessor.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn push(&mut self, data: &[u8], count: usize, component: u32, ty: &str, extra: Value) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        self.views.push(json!({
            "buffer": 0,
            "byteOffset": self.bytes.len(),
            "byteLength": data.len(),
        }));
        self.bytes.extend_from_slice(data);
        let mut accessor = json!({
            "bufferView": self.views.len() - 1,
            "componentType": component,
            "count": count,
            "type": ty,
        });
        if let (Some(a), Value::Object(extra)) = (accessor.as_object_mut(), extra) {
            a.extend(extra);
        }
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    fn floats(&mut self, values: &[f32], per_item: usize, ty: &str, extra: Value) -> usize {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.push(&bytes, values.len() / per_item, FLOAT, ty, extra)
    }
}

const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;

/// The rotation of joint `joint` at `phase` (0..1) of clip `clip`: a bend
/// whose axis, amplitude and wave number differ per clip.
fn joint_rotation(spec: &TubeSpec, clip: usize, joint: usize, phase: f32) -> Quat {
    let tau = std::f32::consts::TAU;
    let axis_angle = clip as f32 * 0.7;
    let axis = Vec3::new(axis_angle.cos(), 0.0, axis_angle.sin());
    let waves = 1.0 + (clip % 3) as f32;
    let amplitude = 0.6 / spec.joints as f32 * (1.0 + clip as f32 * 0.15);
    let along = joint as f32 / spec.joints as f32;
    let angle = amplitude * (tau * (phase + waves * along)).sin() * 2.0;
    let twist = Quat::from_rotation_y(0.2 / spec.joints as f32 * (tau * phase).cos());
    (Quat::from_axis_angle(axis, angle) * twist).normalize()
}

/// The synthetic model as `.glb` bytes.
pub fn tube_glb(spec: &TubeSpec) -> Result<Vec<u8>, SyntheticError> {
    if spec.rings < 2 || spec.segments < 3 || spec.joints < 2 || spec.clips < 1 || spec.keys < 2 {
        return Err(SyntheticError::TooSmall);
    }
    let n = spec.vertex_count();
    if u32::try_from(n).is_err() {
        return Err(SyntheticError::TooLarge(n));
    }
    let bone = spec.length / spec.joints as f32;
    let radius = spec.length * 0.05;
    let (mut positions, mut normals) = (Vec::with_capacity(n * 3), Vec::with_capacity(n * 3));
    let (mut joints, mut weights) = (Vec::with_capacity(n * 4), Vec::with_capacity(n * 4));
    for r in 0..spec.rings {
        let y = spec.length * r as f32 / (spec.rings - 1) as f32;
        // Blend between the two joints whose midpoints bracket y.
        let t = (y / bone - 0.5).clamp(0.0, (spec.joints - 1) as f32);
        let j0 = (t.floor() as usize).min(spec.joints - 2);
        let w1 = (t - j0 as f32).clamp(0.0, 1.0);
        for s in 0..spec.segments {
            let a = std::f32::consts::TAU * s as f32 / spec.segments as f32;
            let (sin, cos) = a.sin_cos();
            positions.extend([cos * radius, y, sin * radius]);
            normals.extend([cos, 0.0, sin]);
            joints.extend([j0 as u16, j0 as u16 + 1, 0, 0]);
            weights.extend([1.0 - w1, w1, 0.0, 0.0]);
        }
    }
    let mut indices: Vec<u32> = Vec::with_capacity((spec.rings - 1) * spec.segments * 6);
    for r in 0..spec.rings - 1 {
        for s in 0..spec.segments {
            let (a, b) = (
                (r * spec.segments + s) as u32,
                (r * spec.segments + (s + 1) % spec.segments) as u32,
            );
            let (c, d) = (a + spec.segments as u32, b + spec.segments as u32);
            indices.extend([a, c, b, b, c, d]);
        }
    }

    let mut bin = Bin::default();
    let max = [radius, spec.length, radius];
    let position = bin.floats(
        &positions,
        3,
        "VEC3",
        json!({ "min": [-radius, 0.0, -radius], "max": max }),
    );
    let normal = bin.floats(&normals, 3, "VEC3", json!({}));
    let joint_bytes: Vec<u8> = joints.iter().flat_map(|j: &u16| j.to_le_bytes()).collect();
    let joints_acc = bin.push(&joint_bytes, n, UNSIGNED_SHORT, "VEC4", json!({}));
    let weights_acc = bin.floats(&weights, 4, "VEC4", json!({}));
    let index_bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
    let index_acc = bin.push(
        &index_bytes,
        indices.len(),
        UNSIGNED_INT,
        "SCALAR",
        json!({}),
    );
    let ibm: Vec<f32> = (0..spec.joints)
        .flat_map(|j| Mat4::from_translation(Vec3::new(0.0, -bone * j as f32, 0.0)).to_cols_array())
        .collect();
    let ibm_acc = bin.floats(&ibm, 16, "MAT4", json!({}));

    let mut nodes = vec![json!({ "name": "synthetic", "mesh": 0, "skin": 0 })];
    for j in 0..spec.joints {
        let mut node = json!({
            "name": format!("joint{j}"),
            "translation": [0.0, if j == 0 { 0.0 } else { bone }, 0.0],
        });
        if j + 1 < spec.joints {
            node["children"] = json!([j + 2]);
        }
        nodes.push(node);
    }

    let mut animations = Vec::with_capacity(spec.clips);
    for clip in 0..spec.clips {
        let times: Vec<f32> = (0..spec.keys)
            .map(|k| spec.duration * k as f32 / (spec.keys - 1) as f32)
            .collect();
        let input = bin.floats(
            &times,
            1,
            "SCALAR",
            json!({ "min": [0.0], "max": [spec.duration] }),
        );
        let (mut samplers, mut channels) = (Vec::new(), Vec::new());
        for j in 0..spec.joints {
            let values: Vec<f32> = (0..spec.keys)
                .flat_map(|k| {
                    let phase = (k % (spec.keys - 1)) as f32 / (spec.keys - 1) as f32;
                    joint_rotation(spec, clip, j, phase).to_array()
                })
                .collect();
            let output = bin.floats(&values, 4, "VEC4", json!({}));
            channels.push(json!({ "sampler": samplers.len(), "target": { "node": j + 1, "path": "rotation" } }));
            samplers.push(json!({ "input": input, "output": output, "interpolation": "LINEAR" }));
        }
        animations.push(
            json!({ "name": format!("Sway{clip}"), "samplers": samplers, "channels": channels }),
        );
    }

    let json = json!({
        "asset": { "version": "2.0", "generator": "stampede bench synthetic" },
        "scene": 0,
        "scenes": [{ "nodes": [0, 1] }],
        "nodes": nodes,
        "meshes": [{ "name": "tube", "primitives": [{
            "attributes": { "POSITION": position, "NORMAL": normal, "JOINTS_0": joints_acc, "WEIGHTS_0": weights_acc },
            "indices": index_acc,
        }]}],
        "skins": [{ "joints": (1..=spec.joints).collect::<Vec<_>>(), "inverseBindMatrices": ibm_acc, "skeleton": 1 }],
        "animations": animations,
        "accessors": bin.accessors,
        "bufferViews": bin.views,
        "buffers": [{ "byteLength": bin.bytes.len() }],
    });
    Ok(pack_glb(json.to_string().as_bytes(), bin.bytes))
}

/// The GLB container: header, JSON chunk (space-padded), BIN chunk (zero-padded).
fn pack_glb(json: &[u8], mut bin: Vec<u8>) -> Vec<u8> {
    let mut json = json.to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    let u32le = |v: usize| (v as u32).to_le_bytes();
    out.extend(0x4654_6C67u32.to_le_bytes()); // "glTF"
    out.extend(2u32.to_le_bytes());
    out.extend(u32le(total));
    out.extend(u32le(json.len()));
    out.extend(0x4E4F_534Au32.to_le_bytes()); // "JSON"
    out.extend(json);
    out.extend(u32le(bin.len()));
    out.extend(0x004E_4942u32.to_le_bytes()); // "BIN\0"
    out.extend(bin);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: TubeSpec = TubeSpec {
        rings: 10,
        segments: 8,
        joints: 4,
        clips: 3,
        keys: 9,
        duration: 0.5,
        length: 1.0,
    };

    #[test]
    fn imports_with_the_asked_shape() {
        let bytes = tube_glb(&SMALL).expect("valid spec");
        let model = crate::Model::from_slice(&bytes, "synthetic.glb").expect("imports");
        assert_eq!(model.vertex_count(), 80);
        assert_eq!(model.triangle_count(), 9 * 8 * 2);
        assert_eq!(model.stats.joints, 4);
        assert_eq!(model.clips.len(), 3);
        assert!(model.warnings.is_empty(), "{:?}", model.warnings);
        let vat = crate::vat::bake(&model, &crate::vat::BakeOptions::default()).expect("bakes");
        assert_eq!(vat.clips.len(), 3);
        assert!(
            vat.clips.iter().all(|c| c.looping),
            "the clips repeat their first key"
        );
    }

    #[test]
    fn bench_spec_has_fifty_thousand_vertices() {
        assert_eq!(TubeSpec::BENCH.vertex_count(), 50_000);
        assert_eq!(TubeSpec::BENCH.clips, 10);
    }

    #[test]
    fn tiny_specs_are_refused() {
        let spec = TubeSpec { rings: 1, ..SMALL };
        assert_eq!(tube_glb(&spec), Err(SyntheticError::TooSmall));
    }
}
