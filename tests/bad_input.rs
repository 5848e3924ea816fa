//! Every kind of bad input gives an error that names the file and the
//! problem, and nothing panics.

mod common;

use common::{MiniGltf, triangle_gltf};
use serde_json::json;
use stampede::vat::{self, BakeOptions, VatError};
use stampede::{ImportError, Model};
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("stampede-bad-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Loads bytes written to a temp file and returns the error text.
fn error_for(name: &str, bytes: &[u8]) -> String {
    let dir = temp_dir(name);
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    let err = Model::load(&path).expect_err("the file must be refused");
    let text = err.to_string();
    eprintln!("{text}");
    assert!(text.contains(name), "the error must name the file: {text}");
    assert!(
        !matches!(err, ImportError::Internal { .. }),
        "a checked error, not a caught panic: {text}"
    );
    std::fs::remove_dir_all(dir).ok();
    text
}

#[test]
fn a_missing_file() {
    let err = Model::load("/nonexistent/horse.glb").unwrap_err();
    assert!(matches!(err, ImportError::Io { .. }));
    assert!(err.to_string().contains("/nonexistent/horse.glb"), "{err}");
}

#[test]
fn a_file_that_is_not_gltf() {
    let text = error_for("notes.glb", b"these are not the droids you are looking for");
    assert!(text.contains("not a valid glTF"), "{text}");
    let png = [0x89, b'P', b'N', b'G', 13, 10, 26, 10, 0, 0, 0, 0];
    error_for("picture.gltf", &png);
}

#[test]
fn a_corrupt_json() {
    let mut bytes = triangle_gltf(&[0, 1, 2]);
    bytes.truncate(bytes.len() / 2);
    let text = error_for("cut.gltf", &bytes);
    assert!(text.contains("not a valid glTF"), "{text}");
}

#[test]
fn a_truncated_glb() {
    let path = model_or_skip!("Fox.glb");
    let mut bytes = std::fs::read(path).unwrap();
    bytes.truncate(bytes.len() * 2 / 3);
    error_for("fox-truncated.glb", &bytes);
}

#[test]
fn a_truncated_external_buffer() {
    let src = model_or_skip!("AnimatedMorphCube.gltf");
    let dir = temp_dir("external");
    let gltf_path = dir.join("AnimatedMorphCube.gltf");
    std::fs::copy(&src, &gltf_path).unwrap();
    let bin = std::fs::read(src.with_extension("bin")).unwrap();
    std::fs::write(dir.join("AnimatedMorphCube.bin"), &bin[..bin.len() / 2]).unwrap();
    let err = Model::load(&gltf_path).unwrap_err();
    assert!(err.to_string().contains("AnimatedMorphCube.gltf"), "{err}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn a_buffer_view_past_the_end_of_its_buffer() {
    let mut g = MiniGltf::new();
    let pos = g.floats(&[0.0; 9], "VEC3");
    g.views[0]["byteLength"] = json!(4000);
    let bytes = g.to_json(json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
    }));
    let text = error_for("short-buffer.gltf", &bytes);
    assert!(text.contains("buffer view 0"), "{text}");
}

#[test]
fn an_accessor_past_the_end_of_its_view() {
    let mut g = MiniGltf::new();
    let pos = g.floats(&[0.0; 9], "VEC3");
    g.accessors[pos]["count"] = json!(300);
    let bytes = g.to_json(json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
    }));
    let text = error_for("long-accessor.gltf", &bytes);
    assert!(text.contains("accessor 0"), "{text}");
}

#[test]
fn a_scene_with_no_mesh() {
    let g = MiniGltf::new();
    let bytes = g.to_json(json!({"scenes": [{"nodes": [0]}], "nodes": [{"name": "empty"}]}));
    let text = error_for("empty.gltf", &bytes);
    assert!(text.contains("no scene with a triangle mesh"), "{text}");
}

#[test]
fn indices_out_of_range() {
    let text = error_for("bad-index.gltf", &triangle_gltf(&[0, 1, 7]));
    assert!(text.contains("index 7 is out of range"), "{text}");
}

#[test]
fn nan_keyframe_times() {
    let mut g = MiniGltf::new();
    let pos = g.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let input = g.floats(&[0.0, f32::NAN, 1.0], "SCALAR");
    let output = g.floats(&[0.0; 9], "VEC3");
    let bytes = g.to_json(json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}],
        "animations": [{"name": "Broken", "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}],
                        "samplers": [{"input": input, "output": output}]}],
    }));
    let text = error_for("nan-keys.gltf", &bytes);
    assert!(text.contains("NaN") && text.contains("Broken"), "{text}");
}

#[test]
fn a_model_with_no_skin_and_no_animation_is_static() {
    let model = Model::from_slice(&triangle_gltf(&[0, 1, 2]), "tri.gltf").unwrap();
    assert_eq!(model.stats.skins, 0);
    assert!(model.clips.is_empty());
    assert_eq!(model.palette.len(), 1);
}

#[test]
fn too_many_vertices_for_the_texture() {
    let path = model_or_skip!("Fox.glb");
    let model = Model::load(path).unwrap();
    let options = BakeOptions {
        max_width: 16,
        max_height: 16,
        ..BakeOptions::default()
    };
    let err = vat::bake(&model, &options).unwrap_err();
    assert!(matches!(err, VatError::TooManyVertices { .. }));
    let text = err.to_string();
    assert!(
        text.contains("Fox") && text.contains("1728 vertices"),
        "{text}"
    );
}

#[test]
fn unknown_clip_and_bad_rate() {
    let path = model_or_skip!("Fox.glb");
    let model = Model::load(path).unwrap();
    let err = vat::bake(
        &model,
        &BakeOptions {
            clips: vec!["Dance".into()],
            ..BakeOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("no clip named 'Dance'") && err.to_string().contains("Survey"),
        "{err}"
    );
    for fps in [0.0, -5.0, f32::NAN] {
        let err = vat::bake(
            &model,
            &BakeOptions {
                fps,
                ..BakeOptions::default()
            },
        )
        .unwrap_err();
        assert!(matches!(err, VatError::Option(_)), "{err}");
    }
}

/// A model dropped on the browser's page arrives as bytes with a file name
/// and no path: it bakes like the same file read from disk, and broken
/// bytes are refused with the file's name.
#[test]
fn dropped_bytes_load_like_the_file_and_broken_ones_name_it() {
    use stampede::crowd::setup::{ModelChoice, MotionChoice, load_with};
    use stampede::vat::Precision;
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/bird.glb");
    let bytes: std::sync::Arc<[u8]> = std::fs::read(&path).unwrap().into();
    let load =
        |choice: &ModelChoice| load_with(choice, 10.0, Precision::F16, None, MotionChoice::Auto);
    let from_file = load(&ModelChoice::File(path)).expect("the file loads");
    let dropped = ModelChoice::Dropped {
        name: "my-bird.glb".into(),
        bytes: bytes.clone(),
    };
    assert_eq!(dropped.label(), "my-bird.glb");
    let from_bytes = load(&dropped).expect("the dropped bytes load");
    assert_eq!(
        from_bytes.vat.positions.bytes(),
        from_file.vat.positions.bytes()
    );
    assert_eq!(
        from_bytes.vat.normals.bytes(),
        from_file.vat.normals.bytes()
    );
    assert_eq!(from_bytes.motion, from_file.motion);

    let broken = ModelChoice::Dropped {
        name: "broken.glb".into(),
        bytes: bytes[..bytes.len() / 2].into(),
    };
    let error = match load(&broken) {
        Ok(_) => panic!("half a GLB loaded"),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        error.contains("broken.glb"),
        "the error names the file: {error}"
    );
}
