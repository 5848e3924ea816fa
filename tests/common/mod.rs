//! Shared test helpers: finding the shared models, and building tiny glTF
//! files in memory for the bad-input cases.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `../shared/models/NAME`, or `None` (with the skip reason printed) when the
/// folder is missing. Under `CI=true` a missing folder fails the test.
pub fn shared_model(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models");
    if dir.is_dir() {
        return Some(dir.join(name));
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "{} is missing: CI must run the tests on the shared models",
            dir.display()
        );
    }
    eprintln!(
        "skipped: {} is missing, so the tests on real models cannot run",
        dir.display()
    );
    None
}

/// Returns from the test when the shared models are missing.
#[macro_export]
macro_rules! model_or_skip {
    ($name:expr) => {
        match common::shared_model($name) {
            Some(path) => path,
            None => return,
        }
    };
}

/// A minimal glTF document with one embedded buffer, for crafted inputs.
pub struct MiniGltf {
    pub bin: Vec<u8>,
    pub views: Vec<serde_json::Value>,
    pub accessors: Vec<serde_json::Value>,
}

impl MiniGltf {
    pub fn new() -> Self {
        Self {
            bin: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
        }
    }

    /// Appends f32 data as an accessor of `kind` ("SCALAR", "VEC3", ...).
    pub fn floats(&mut self, data: &[f32], kind: &str) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
        let per = match kind {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 16,
        };
        let mut acc =
            serde_json::json!({"componentType": 5126, "count": data.len() / per, "type": kind});
        if kind == "VEC3" {
            let mut min = [f32::INFINITY; 3];
            let mut max = [f32::NEG_INFINITY; 3];
            for p in data.chunks(3) {
                for k in 0..3 {
                    min[k] = min[k].min(p[k]);
                    max[k] = max[k].max(p[k]);
                }
            }
            acc["min"] = serde_json::json!(min);
            acc["max"] = serde_json::json!(max);
        }
        self.push(bytes, acc)
    }

    /// Appends u16 indices.
    pub fn indices(&mut self, data: &[u16]) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
        self.push(
            bytes,
            serde_json::json!({"componentType": 5123, "count": data.len(), "type": "SCALAR"}),
        )
    }

    fn push(&mut self, mut bytes: Vec<u8>, mut accessor: serde_json::Value) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views.push(serde_json::json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.append(&mut bytes);
        accessor["bufferView"] = serde_json::json!(self.views.len() - 1);
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// The whole file, with `rest` (nodes, meshes, scenes, animations, ...)
    /// merged into the top-level object.
    pub fn to_json(&self, rest: serde_json::Value) -> Vec<u8> {
        use base64_lite::encode;
        let mut doc = serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": self.bin.len(), "uri": format!("data:application/octet-stream;base64,{}", encode(&self.bin))}],
            "bufferViews": self.views,
            "accessors": self.accessors,
        });
        if let (Some(doc), Some(rest)) = (doc.as_object_mut(), rest.as_object()) {
            for (k, v) in rest {
                doc.insert(k.clone(), v.clone());
            }
        }
        serde_json::to_vec_pretty(&doc).expect("plain JSON")
    }
}

/// A small standard base64 encoder (test-only; avoids a dependency).
mod base64_lite {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    pub fn encode(data: &[u8]) -> String {
        let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
        for chunk in data.chunks(3) {
            let b = [
                chunk[0],
                *chunk.get(1).unwrap_or(&0),
                *chunk.get(2).unwrap_or(&0),
            ];
            let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }
}

/// One triangle, optionally with extra JSON (nodes etc. are provided).
pub fn triangle_gltf(indices: &[u16]) -> Vec<u8> {
    let mut g = MiniGltf::new();
    let pos = g.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let idx = g.indices(indices);
    g.to_json(serde_json::json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "indices": idx}]}],
    }))
}

/// Whether a display is there for the window tests (on CI, one must be).
pub fn have_display() -> bool {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
            panic!("window test: no DISPLAY on CI; run the tests under xvfb-run");
        }
        eprintln!(
            "SKIPPED window test: no DISPLAY (run under xvfb-run -a -s \"-screen 0 1280x720x24\")"
        );
        return false;
    }
    true
}
