//! Comparing a Rust mirror's layout with its WGSL struct's (naga's
//! layouter): tests/gpu_layout.rs uses these for every struct the shaders
//! share with the CPU, tests/vertex_layout.rs for the vertex attributes.
#![allow(dead_code)]

use std::mem::size_of;
use wgpu::naga;

/// The crowd pass's composed WGSL (the skinning technique's module, which
/// holds the shared structs and `VertexIn`).
pub fn crowd_source() -> String {
    stampede::render::TechniqueKind::Skinning
        .crowd_module()
        .source()
        .expect("composes")
}

/// A struct's layout: its size and (name, offset, size) per field.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub size: usize,
    pub fields: Vec<(String, usize, usize)>,
}

pub fn field_size<T, F>(_: impl Fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// The layout of a Rust struct from its fields, in declaration order.
macro_rules! rust_layout {
    ($ty:ty { $($field:ident),+ $(,)? }) => {{
        let fields = vec![$((
            stringify!($field).to_string(),
            std::mem::offset_of!($ty, $field),
            $crate::layout_common::field_size(|s: &$ty| &s.$field),
        )),+];
        // Pod structs have no padding: the listed fields must cover the
        // whole struct, so a field missing from the list is caught too.
        let covered: usize = fields.iter().map(|f| f.2).sum();
        assert_eq!(covered, std::mem::size_of::<$ty>(), "{}: list every field", stringify!($ty));
        $crate::layout_common::Layout { size: std::mem::size_of::<$ty>(), fields }
    }};
}

/// The layout naga gives struct `name` in `source`.
pub fn wgsl_layout(source: &str, name: &str) -> Layout {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)));
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).expect("layout");
    let (_, ty) = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no WGSL struct {name}"));
    let naga::TypeInner::Struct { members, span } = &ty.inner else {
        panic!("{name} is not a struct");
    };
    Layout {
        size: *span as usize,
        fields: members
            .iter()
            .map(|m| {
                (
                    m.name.clone().unwrap_or_default(),
                    m.offset as usize,
                    layouter[m.ty].size as usize,
                )
            })
            .collect(),
    }
}

/// Rust arrays stand for runs of numbered WGSL scalars: `_pad: [f32; 2]`
/// matches `_pad0: f32, _pad1: f32`. Expands such a field when the WGSL side
/// has the numbered names.
pub fn expand_to(rust: &Layout, wgsl: &Layout) -> Layout {
    let mut fields = Vec::new();
    for (name, offset, size) in &rust.fields {
        let first = format!("{name}0");
        if !wgsl.fields.iter().any(|f| f.0 == *name) && wgsl.fields.iter().any(|f| f.0 == first) {
            let parts: Vec<_> = wgsl
                .fields
                .iter()
                .filter(|f| {
                    f.0.strip_prefix(name.as_str())
                        .is_some_and(|n| n.parse::<u32>().is_ok())
                })
                .collect();
            let each = size / parts.len();
            for (i, _) in parts.iter().enumerate() {
                fields.push((format!("{name}{i}"), offset + i * each, each));
            }
        } else {
            fields.push((name.clone(), *offset, *size));
        }
    }
    Layout {
        size: rust.size,
        fields,
    }
}

/// Differences between a Rust mirror and its WGSL struct, empty when equal.
pub fn compare(what: &str, rust: &Layout, wgsl: &Layout) -> Vec<String> {
    let rust = expand_to(rust, wgsl);
    let mut problems = Vec::new();
    if rust.size != wgsl.size {
        problems.push(format!(
            "{what}: size {} in Rust, {} in WGSL",
            rust.size, wgsl.size
        ));
    }
    if rust.fields.len() != wgsl.fields.len() {
        problems.push(format!(
            "{what}: {} fields in Rust, {} in WGSL",
            rust.fields.len(),
            wgsl.fields.len()
        ));
    }
    for (r, w) in rust.fields.iter().zip(&wgsl.fields) {
        if r != w {
            problems.push(format!("{what}: Rust {r:?} vs WGSL {w:?}"));
        }
    }
    problems
}

// After the macro: macro_rules! is in scope from where it is defined.
pub mod impostor;
