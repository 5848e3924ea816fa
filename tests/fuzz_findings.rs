//! One crafted file per problem `tests/fuzz_import.rs` found: each used to
//! panic inside the gltf crate (caught only by the importer's last net) or
//! in the bake, and must now be a checked error naming the file or model.

mod common;

use common::MiniGltf;
use serde_json::{Value, json};
use stampede::vat::{self, BakeOptions};
use stampede::{ImportError, Model};

/// Imports and returns the error, which must be checked and name the file.
fn refused(name: &str, bytes: &[u8]) -> ImportError {
    let err = Model::from_slice(bytes, name).expect_err("the file must be refused");
    let text = err.to_string();
    eprintln!("{text}");
    assert!(text.contains(name), "the error must name the file: {text}");
    assert!(
        !matches!(err, ImportError::Internal { .. }),
        "a checked error, not a caught panic: {text}"
    );
    err
}

/// A triangle (accessor 0) on node 0 with `attributes`, and an animation
/// "Walk" whose one channel aims at `target` with keys `times` (accessor 1)
/// and values `output` of type `kind` (accessor 2).
fn animated(
    times: &[f32],
    output: &[f32],
    kind: &str,
    target: Value,
    attributes: Value,
) -> Vec<u8> {
    let mut g = MiniGltf::new();
    g.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    g.floats(times, "SCALAR");
    g.floats(output, kind);
    g.to_json(json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": attributes}]}],
        "animations": [{"name": "Walk", "channels": [{"sampler": 0, "target": target}],
                        "samplers": [{"input": 1, "output": 2}]}],
    }))
}

fn translation() -> Value {
    json!({"node": 0, "path": "translation"})
}

fn position() -> Value {
    json!({"POSITION": 0})
}

#[test]
fn a_glb_header_length_shorter_than_the_header() {
    let mut glb = b"glTF".to_vec();
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&0u32.to_le_bytes());
    glb.extend_from_slice(&[0; 8]);
    let err = refused("short-header.glb", &glb);
    assert!(matches!(err, ImportError::Glb { .. }), "{err}");
    assert!(err.to_string().contains("length of 0 bytes"), "{err}");
}

#[test]
fn a_position_accessor_that_does_not_exist() {
    let bytes = animated(
        &[0.0, 1.0],
        &[0.0; 6],
        "VEC3",
        translation(),
        json!({"POSITION": 7}),
    );
    let err = refused("no-position.gltf", &bytes);
    let text = err.to_string();
    assert!(text.contains("POSITION refers to accessor 7"), "{text}");
}

#[test]
fn an_animation_channel_aimed_at_a_missing_node_or_path() {
    for (target, expect) in [
        (json!({"node": 9, "path": "translation"}), "targets node 9"),
        (json!({"node": 0, "path": "pointer"}), "unknown target path"),
    ] {
        let bytes = animated(&[0.0, 1.0], &[0.0; 6], "VEC3", target, position());
        let err = refused("bad-target.gltf", &bytes);
        let text = err.to_string();
        assert!(matches!(err, ImportError::Animation { .. }), "{text}");
        assert!(
            text.contains("'Walk' channel 0") && text.contains(expect),
            "{text}"
        );
    }
}

#[test]
fn accessors_whose_type_does_not_fit_their_use() {
    // Rotation keys stored as VEC3: the reader would assume 16-byte elements.
    let rotation = json!({"node": 0, "path": "rotation"});
    let bytes = animated(&[0.0, 1.0], &[0.0; 6], "VEC3", rotation, position());
    let text = refused("rotation-vec3.gltf", &bytes).to_string();
    assert!(
        text.contains("animation output") && text.contains("must be Vec4"),
        "{text}"
    );

    // Key times stored as VEC2.
    let bytes = animated(&[0.0, 1.0], &[1.0; 6], "VEC3", translation(), position());
    let mut doc: Value = serde_json::from_slice(&bytes).unwrap();
    doc["accessors"][1]["type"] = json!("VEC2");
    doc["accessors"][1]["count"] = json!(1);
    let text = refused("times-vec2.gltf", &serde_json::to_vec(&doc).unwrap()).to_string();
    assert!(
        text.contains("animation input") && text.contains("must be Scalar"),
        "{text}"
    );

    // TEXCOORD_0 and JOINTS_0 pointing at the VEC3 positions.
    for (name, attributes) in [
        ("uv-vec3.gltf", json!({"POSITION": 0, "TEXCOORD_0": 0})),
        (
            "joints-vec3.gltf",
            json!({"POSITION": 0, "JOINTS_0": 0, "WEIGHTS_0": 0}),
        ),
    ] {
        let bytes = animated(&[0.0, 1.0], &[0.0; 6], "VEC3", translation(), attributes);
        let mut doc: Value = serde_json::from_slice(&bytes).unwrap();
        doc["nodes"][0]["skin"] = json!(0);
        doc["skins"] = json!([{"joints": [0]}]);
        let text = refused(name, &serde_json::to_vec(&doc).unwrap()).to_string();
        assert!(text.contains("is F32 Vec3 but must be"), "{text}");
    }
}

#[test]
fn a_clip_of_1e30_seconds_is_refused_by_the_bake() {
    let output = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    let bytes = animated(&[0.0, 1.0e30], &output, "VEC3", translation(), position());
    let model = Model::from_slice(&bytes, "long-clip.gltf").unwrap();
    for align_to_keys in [true, false] {
        let options = BakeOptions {
            align_to_keys,
            ..BakeOptions::default()
        };
        let err = vat::bake(&model, &options).expect_err("the clip cannot fit");
        let text = err.to_string();
        assert!(
            text.contains("long-clip") && text.contains("'Walk'"),
            "{text}"
        );
    }
}
