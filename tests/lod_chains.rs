//! The LOD chains the simplifier makes, level by level, against the record
//! in `tests/reference/lod-chains.json`: each level's triangles, a hash of
//! its index list, the simplifier's reported error and the animated error
//! measured over every baked frame, for our horse and bird and the shared
//! models, with both strategies (poses, rest).
//!
//! The record was written with meshoptimizer's C++ (the `meshopt` crate,
//! meshoptimizer 1.3). Its pure-Rust port (`meshoptimizer-rs`, which builds
//! for wasm32) replaced it on the promise of byte-identical output: this
//! test holds it to that, so a browser build simplifies exactly as the
//! native one does. `STAMPEDE_LOD_RECORD=1` writes the file instead.

#[path = "common/mod.rs"]
mod common;

use stampede::crowd::setup::{ModelChoice, load};
use stampede::lod::{self, LodChain, LodOptions, Strategy};
use stampede::vat::Precision;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One level as recorded.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Level {
    triangles: u32,
    /// FNV-1a 64 of the index list, as hex.
    indices: String,
    simplifier_error: f32,
    error: f32,
    coarse: bool,
}

fn fnv(words: &[u32]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

fn levels(chain: &LodChain) -> Vec<Level> {
    (0..chain.levels.len())
        .map(|i| {
            let l = &chain.levels[i];
            Level {
                triangles: l.triangles(),
                indices: fnv(chain.level_indices(i)),
                simplifier_error: l.simplifier_error,
                error: l.error,
                coarse: l.coarse,
            }
        })
        .collect()
}

#[test]
fn the_simplifier_makes_the_recorded_chains() {
    let mut choices = vec![
        ("horse".to_string(), ModelChoice::Horse),
        ("bird".to_string(), ModelChoice::Bird),
    ];
    for name in ["Fox.glb", "CesiumMan.glb", "QuaterniusDeer.gltf"] {
        let Some(path) = common::shared_model(name) else {
            return;
        };
        choices.push((name.to_string(), ModelChoice::File(path)));
    }
    let mut chains: BTreeMap<String, Vec<Level>> = BTreeMap::new();
    for (name, choice) in choices {
        let loaded = load(&choice, 30.0, Precision::F16, None).expect("loads and bakes");
        for strategy in [Strategy::Poses, Strategy::Rest] {
            let options = LodOptions {
                strategy,
                ..LodOptions::default()
            };
            let chain = lod::build(&loaded.model, &loaded.vat, &options);
            assert!(
                chain.levels.len() >= 2,
                "{name}: {} levels",
                chain.levels.len()
            );
            chains.insert(format!("{name}/{}", strategy.name()), levels(&chain));
        }
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference/lod-chains.json");
    if std::env::var("STAMPEDE_LOD_RECORD").is_ok_and(|v| v == "1") {
        let text = serde_json::to_string_pretty(&chains).expect("serialises");
        std::fs::write(&path, text + "\n").expect("written");
        return;
    }
    let text = std::fs::read_to_string(&path).expect("the record is there");
    let recorded: BTreeMap<String, Vec<Level>> =
        serde_json::from_str(&text).expect("a valid record");
    assert_eq!(
        recorded.keys().collect::<Vec<_>>(),
        chains.keys().collect::<Vec<_>>()
    );
    for (key, want) in &recorded {
        assert_eq!(
            &chains[key], want,
            "{key}: the chain differs from the record"
        );
    }
}
