//! Every WGSL module the renderer builds parses and validates with naga, and
//! every file in `shaders/` is part of at least one of them.

use stampede::render::shaders::SHADERS;
use wgpu::naga;

#[test]
fn every_shader_validates() {
    assert!(!SHADERS.is_empty());
    let mut failures = Vec::new();
    for (name, source) in SHADERS {
        let module = match naga::front::wgsl::parse_str(source) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: {}", e.emit_to_string(source)));
                continue;
            }
        };
        let mut validator = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        );
        if let Err(e) = validator.validate(&module) {
            failures.push(format!("{name}: {}", e.emit_to_string(source)));
        }
    }
    assert!(
        failures.is_empty(),
        "invalid shaders:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_shader_file_is_used() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("shaders/ exists") {
        let path = entry.expect("readable shaders/ entry").path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            files += 1;
            let text = std::fs::read_to_string(&path).expect("readable shader file");
            assert!(
                SHADERS.iter().any(|(_, s)| s.contains(text.as_str())),
                "{} is not part of any module in render::shaders::SHADERS",
                path.display()
            );
        }
    }
    assert!(files >= 5, "expected the shader files in {}", dir.display());
}
