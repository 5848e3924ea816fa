//! The static vertex buffer's attributes against the crowd shader's
//! `VertexIn`: each location's offset and format are its Rust field's
//! (naga's layouter on the composed module).

use stampede::render::data::gpu_data::StaticVertex;

#[macro_use]
mod layout_common;
use layout_common::{crowd_source, wgsl_layout};

/// The static vertex buffer feeds `VertexIn`'s locations: each attribute's
/// offset is its Rust field's, and its format has the location's size.
#[test]
fn static_vertex_attributes_match_vertex_in() {
    let crowd = crowd_source();
    let vertex_in = wgsl_layout(&crowd, "VertexIn");
    let rust = rust_layout!(StaticVertex {
        uv,
        color,
        texture_layer
    });
    // VertexIn starts with the two builtins (vertex and instance index).
    let located = &vertex_in.fields[2..];
    assert_eq!(located.len(), StaticVertex::ATTRIBUTES.len());
    for (i, attr) in StaticVertex::ATTRIBUTES.iter().enumerate() {
        let (name, offset, size) = &rust.fields[i];
        assert_eq!(attr.shader_location as usize, i);
        assert_eq!(attr.offset as usize, *offset, "{name}: attribute offset");
        assert_eq!(
            attr.format.size() as usize,
            *size,
            "{name}: attribute format"
        );
        assert_eq!(located[i].0, *name, "location {i}");
        assert_eq!(located[i].2, *size, "{name}: WGSL type size");
    }
}
