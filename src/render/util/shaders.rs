//! Every WGSL module the renderer compiles, composed from the files in
//! `shaders/`. Each file states what it needs in one header line,
//! `// requires: a b`, naming other files by their path under `shaders/`
//! without `.wgsl`; [`compose`] puts every file after the files it needs,
//! each once. `tests/shader_validation.rs` validates every module of
//! [`modules`] and checks that every file is used and every `requires`
//! resolves. This file knows no technique: `render::shader_modules` adds
//! each technique's crowd module to [`OTHER_MODULES`].

include!(concat!(env!("OUT_DIR"), "/shader_files.rs"));

/// A module: its name (the label) and the files it is composed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModuleSpec {
    pub name: &'static str,
    pub roots: &'static [&'static str],
}

pub const GROUND: ModuleSpec = ModuleSpec {
    name: "ground",
    roots: &["ground"],
};
pub const SKY: ModuleSpec = ModuleSpec {
    name: "sky",
    roots: &["sky"],
};
/// The VAT sampling alone (f16/f32), for the GPU correctness tests.
pub const VAT: ModuleSpec = ModuleSpec {
    name: "vat",
    roots: &["vat_float"],
};
/// The VAT sampling alone (packed), for the GPU correctness tests.
pub const VAT_PACKED: ModuleSpec = ModuleSpec {
    name: "vat_packed",
    roots: &["vat_packed"],
};
/// The VAT technique drawing a packed bake.
pub const CROWD_VAT_PACKED: ModuleSpec = ModuleSpec {
    name: "crowd_vat_packed",
    roots: &[CROWD_VERTEX, "techniques/vat", "vat_packed"],
};
pub const FLOCK: ModuleSpec = ModuleSpec {
    name: "flock",
    roots: &["flock"],
};
pub const HERD: ModuleSpec = ModuleSpec {
    name: "herd",
    roots: &["herd"],
};
/// The cull pass (render::cull) without occlusion: the shadow cascades'
/// views (over the whole crowd, or over the casters the camera's pass
/// listed: `cs_cull_listed`), and the camera's with occlusion off.
pub const CULL: ModuleSpec = ModuleSpec {
    name: "cull",
    roots: &[
        "cull",
        "occlusion_off",
        "splat_off",
        "cull_params",
        "cull_listed",
    ],
};
/// [`CULL`] reading its parameters as a uniform (`cull_params_uniform`):
/// on devices that bind too few storage buffers for [`CULL_SPLAT`].
pub const CULL_UNIFORM: ModuleSpec = ModuleSpec {
    name: "cull_uniform",
    roots: &[
        "cull",
        "occlusion_off",
        "splat_off",
        "cull_params_uniform",
        "cull_listed",
    ],
};
/// The cull pass with two-phase occlusion culling (the camera's view).
pub const CULL_OCCLUSION: ModuleSpec = ModuleSpec {
    name: "cull_occlusion",
    roots: &["cull", "occlusion", "splat_off", "cull_params"],
};
/// The camera's cull pass with the splat level (render::splat).
pub const CULL_SPLAT: ModuleSpec = ModuleSpec {
    name: "cull_splat",
    roots: &["cull", "occlusion_off", "splat", "cull_params"],
};
/// [`CULL_SPLAT`] reading its parameters as a uniform: 10 storage
/// buffers, a browser's WebGPU limit.
pub const CULL_SPLAT_UNIFORM: ModuleSpec = ModuleSpec {
    name: "cull_splat_uniform",
    roots: &["cull", "occlusion_off", "splat", "cull_params_uniform"],
};
/// The camera's cull pass with occlusion culling and the splat level.
pub const CULL_OCCLUSION_SPLAT: ModuleSpec = ModuleSpec {
    name: "cull_occlusion_splat",
    roots: &["cull", "occlusion", "splat", "cull_params"],
};
/// The splat level drawn into the scene (render::splat).
pub const SPLAT_RESOLVE: ModuleSpec = ModuleSpec {
    name: "splat_resolve",
    roots: &["splat_resolve"],
};
/// The depth pyramid occlusion culling tests against.
pub const PYRAMID: ModuleSpec = ModuleSpec {
    name: "pyramid",
    roots: &["pyramid"],
};
/// The depth pyramid's debug view.
pub const PYRAMID_VIEW: ModuleSpec = ModuleSpec {
    name: "pyramid_view",
    roots: &["pyramid_view"],
};

/// Draws the impostor atlas from an f16 or f32 VAT (render::impostor).
pub const IMPOSTOR_ATLAS: ModuleSpec = ModuleSpec {
    name: "impostor_atlas",
    roots: &["impostor_atlas", "vat_float"],
};
/// Draws the impostor atlas from a packed VAT.
pub const IMPOSTOR_ATLAS_PACKED: ModuleSpec = ModuleSpec {
    name: "impostor_atlas_packed",
    roots: &["impostor_atlas", "vat_packed"],
};
/// Each atlas cell's covered texels.
pub const IMPOSTOR_BOUNDS: ModuleSpec = ModuleSpec {
    name: "impostor_bounds",
    roots: &["impostor_bounds"],
};
/// The atlas's mip levels.
pub const IMPOSTOR_MIP: ModuleSpec = ModuleSpec {
    name: "impostor_mip",
    roots: &["impostor_mip"],
};
/// Temporal anti-aliasing's resolve (render::post::taa).
pub const TAA: ModuleSpec = ModuleSpec {
    name: "taa",
    roots: &["taa"],
};
/// Motion blur after TAA's resolve.
pub const MOTION_BLUR: ModuleSpec = ModuleSpec {
    name: "motion_blur",
    roots: &["motion_blur"],
};
/// The velocity target's debug view.
pub const MOTION_VIEW: ModuleSpec = ModuleSpec {
    name: "motion_view",
    roots: &["motion_view"],
};
/// The far field's impostors in the scene pass.
pub const IMPOSTOR: ModuleSpec = ModuleSpec {
    name: "impostor",
    roots: &["impostor"],
};

/// Every module that is not a technique's own crowd module (those come
/// from `render::techniques`; `render::shader_modules` lists them all).
pub const OTHER_MODULES: &[ModuleSpec] = &[
    GROUND,
    SKY,
    VAT,
    VAT_PACKED,
    CROWD_VAT_PACKED,
    FLOCK,
    HERD,
    CULL,
    CULL_UNIFORM,
    CULL_OCCLUSION,
    CULL_SPLAT,
    CULL_SPLAT_UNIFORM,
    CULL_OCCLUSION_SPLAT,
    SPLAT_RESOLVE,
    PYRAMID,
    PYRAMID_VIEW,
    IMPOSTOR_ATLAS,
    IMPOSTOR_ATLAS_PACKED,
    IMPOSTOR_MIP,
    IMPOSTOR_BOUNDS,
    IMPOSTOR,
    TAA,
    MOTION_BLUR,
    MOTION_VIEW,
];

/// The file every crowd module starts from: the one crowd vertex entry,
/// which calls the technique's pose hook.
pub const CROWD_VERTEX: &str = "crowd_vertex";

/// Why a module cannot be composed.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShaderError {
    #[error("no shader file shaders/{0}.wgsl (required by {1})")]
    MissingFile(String, String),
    #[error("shader files require each other in a circle: {0}")]
    Cycle(String),
}

/// The source of `shaders/NAME.wgsl`.
pub fn file(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The files a source names in its `// requires:` lines.
pub fn requires(source: &str) -> Vec<&str> {
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("// requires:"))
        .flat_map(str::split_whitespace)
        .collect()
}

/// The files `roots` need, each after what it needs, each once, joined.
pub fn compose(roots: &[&'static str]) -> Result<String, ShaderError> {
    compose_from(roots, file)
}

/// [`compose`] over any set of files (`lookup` gives a file's source).
pub fn compose_from<'a>(
    roots: &[&'a str],
    lookup: impl Fn(&str) -> Option<&'a str>,
) -> Result<String, ShaderError> {
    fn visit<'a>(
        name: &'a str,
        by: &str,
        lookup: &impl Fn(&str) -> Option<&'a str>,
        stack: &mut Vec<&'a str>,
        order: &mut Vec<(&'a str, &'a str)>,
    ) -> Result<(), ShaderError> {
        if order.iter().any(|(n, _)| *n == name) {
            return Ok(());
        }
        if stack.contains(&name) {
            stack.push(name);
            return Err(ShaderError::Cycle(stack.join(" → ")));
        }
        let source =
            lookup(name).ok_or_else(|| ShaderError::MissingFile(name.into(), by.into()))?;
        stack.push(name);
        for dep in requires(source) {
            visit(dep, name, lookup, stack, order)?;
        }
        stack.pop();
        order.push((name, source));
        Ok(())
    }
    let mut order = Vec::new();
    for root in roots {
        visit(
            root,
            "the module list",
            &lookup,
            &mut Vec::new(),
            &mut order,
        )?;
    }
    Ok(order.iter().map(|(_, s)| *s).collect::<Vec<_>>().join("\n"))
}

/// `source` without its `@early_depth_test(...)` attributes, for a device
/// without `SHADER_EARLY_DEPTH_TEST` (WebGPU has no such attribute): the
/// depth test then runs after those fragments, as the attribute only
/// allows it to run before.
pub fn without_early_depth(source: &str) -> String {
    const ATTRIBUTE: &str = "@early_depth_test(";
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find(ATTRIBUTE) {
        let after = &rest[at + ATTRIBUTE.len()..];
        let close = after.find(')').filter(|&close| {
            after[..close]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ',' | ' ' | '\t'))
        });
        let Some(close) = close else {
            // Not a well-formed attribute: left whole for the compiler to report.
            break;
        };
        out.push_str(&rest[..at]);
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

impl ModuleSpec {
    /// The composed source.
    pub fn source(&self) -> Result<String, ShaderError> {
        compose(self.roots)
    }

    /// Creates the shader module (the shader test composes and validates
    /// every module, so a failure here is a build defect).
    pub(crate) fn create(&self, device: &wgpu::Device) -> wgpu::ShaderModule {
        let source = self
            .source()
            .unwrap_or_else(|e| panic!("shader module '{}': {e}", self.name));
        let source = if device
            .features()
            .contains(wgpu::Features::SHADER_EARLY_DEPTH_TEST)
        {
            source
        } else {
            without_early_depth(&source)
        };
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(self.name),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAKE: &[(&str, &str)] = &[
        ("a", "// requires: b c\nA"),
        ("b", "// requires: c\nB"),
        ("c", "C"),
        ("loop1", "// requires: loop2"),
        ("loop2", "// requires: loop1"),
        ("broken", "// requires: nowhere"),
    ];

    fn fake(name: &str) -> Option<&'static str> {
        FAKE.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    #[test]
    fn early_depth_attributes_are_removed_and_nothing_else() {
        let source = "@fragment\n@early_depth_test(greater_equal)\nfn a() {}\n\
                      @fragment @early_depth_test(force) fn b() {}";
        assert_eq!(
            without_early_depth(source),
            "@fragment\n\nfn a() {}\n@fragment  fn b() {}"
        );
        assert_eq!(without_early_depth("fn c() {}"), "fn c() {}");
        // An unclosed one is left whole, not the rest of the source lost.
        assert_eq!(
            without_early_depth("@early_depth_test(x fn d() {}"),
            "@early_depth_test(x fn d() {}"
        );
    }

    #[test]
    fn dependencies_come_first_and_once() {
        let out = compose_from(&["a", "c"], fake).unwrap();
        assert_eq!(out, "C\n// requires: c\nB\n// requires: b c\nA");
    }

    #[test]
    fn cycles_and_missing_files_are_reported() {
        assert_eq!(
            compose_from(&["loop1"], fake),
            Err(ShaderError::Cycle("loop1 → loop2 → loop1".into()))
        );
        assert_eq!(
            compose_from(&["broken"], fake),
            Err(ShaderError::MissingFile("nowhere".into(), "broken".into()))
        );
    }
}
