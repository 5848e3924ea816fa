//! Every WGSL module the renderer builds parses and validates with naga,
//! every file in `shaders/` is part of at least one of them, every file's
//! `// requires:` line resolves, and the crowd techniques share one vertex
//! entry.

use stampede::render::TechniqueKind;
use stampede::render::shader_modules;
use stampede::render::util::shaders::{self, FILES, compose, requires};
use wgpu::naga;

#[test]
fn every_shader_validates() {
    let modules = shader_modules();
    assert!(modules.len() >= TechniqueKind::ALL.len() + 5);
    let mut failures = Vec::new();
    for spec in &modules {
        let name = spec.name;
        let source = spec.source().unwrap_or_else(|e| panic!("{name}: {e}"));
        let module = match naga::front::wgsl::parse_str(&source) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: {}", e.emit_to_string(&source)));
                continue;
            }
        };
        let mut validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        );
        if let Err(e) = validator.validate(&module) {
            failures.push(format!("{name}: {}", e.emit_to_string(&source)));
        }
        // As a device without early depth tests gets it (WebGPU).
        let plain = shaders::without_early_depth(&source);
        let without =
            naga::valid::Capabilities::all() - naga::valid::Capabilities::EARLY_DEPTH_TEST;
        match naga::front::wgsl::parse_str(&plain) {
            Ok(m) => {
                let mut validator =
                    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), without);
                if let Err(e) = validator.validate(&m) {
                    failures.push(format!(
                        "{name} (no early depth): {}",
                        e.emit_to_string(&plain)
                    ));
                }
            }
            Err(e) => failures.push(format!(
                "{name} (no early depth): {}",
                e.emit_to_string(&plain)
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "invalid shaders:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_shader_file_is_used_and_its_requirements_resolve() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let composed: Vec<String> = shader_modules()
        .iter()
        .map(|m| m.source().expect("composes"))
        .collect();
    let mut on_disk = 0;
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable shaders/ folder") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "wgsl") {
                on_disk += 1;
                let text = std::fs::read_to_string(&path).expect("readable shader file");
                assert!(
                    composed.iter().any(|s| s.contains(text.as_str())),
                    "{} is not part of any module in render::shader_modules()",
                    path.display()
                );
            }
        }
    }
    assert_eq!(on_disk, FILES.len(), "build.rs embeds every file");
    for (name, source) in FILES {
        for dep in requires(source) {
            assert!(
                shaders::file(dep).is_some(),
                "shaders/{name}.wgsl requires '{dep}', which is not a file"
            );
        }
        compose(&[name]).unwrap_or_else(|e| panic!("shaders/{name}.wgsl: {e}"));
    }
}

/// One `vs_main` among the crowd techniques: each technique file supplies
/// only `fn pose(...)`, and its crowd module is the shared entry plus it.
#[test]
fn crowd_techniques_share_one_vertex_entry() {
    let entry = shaders::file(shaders::CROWD_VERTEX).expect("crowd_vertex.wgsl");
    assert!(entry.contains("fn vs_main"));
    for kind in TechniqueKind::ALL {
        let file = shaders::file(kind.shader_file())
            .unwrap_or_else(|| panic!("{kind}: no shaders/{}.wgsl", kind.shader_file()));
        assert!(!file.contains("vs_main"), "{kind} defines its own vs_main");
        assert!(file.contains("fn pose("), "{kind} has no pose hook");
        let module = kind.crowd_module().source().expect("composes");
        assert_eq!(module.matches("fn vs_main").count(), 1, "{kind}");
    }
}
