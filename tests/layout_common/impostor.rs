//! The impostor atlas's mirrors: its parameters, clip table, per-layer
//! bake job and the mip pass's layer, against shaders/impostor_atlas.wgsl
//! and shaders/impostor_mip.wgsl.

use super::{compare, wgsl_layout};
use stampede::render::data::gpu_data::{AtlasClipGpu, AtlasParamsGpu};
use stampede::render::passes::impostor::{BakeLayerGpu, MipLayerGpu};
use stampede::render::util::shaders;

/// Each struct that differs, said.
pub fn mirrors() -> Vec<String> {
    let mut problems = Vec::new();
    // The impostor atlas's parameters, clip table and per-layer job.
    let atlas = shaders::IMPOSTOR_ATLAS.source().expect("composes");
    problems.extend(compare(
        "AtlasParams",
        &rust_layout!(AtlasParamsGpu {
            sphere,
            cell,
            yaws,
            rows,
            layers,
            extent,
            first_layer,
            layer_width,
            layer_height,
            elevations,
            first_bound,
            _pad,
        }),
        &wgsl_layout(&atlas, "AtlasParams"),
    ));
    problems.extend(compare(
        "AtlasClip",
        &rust_layout!(AtlasClipGpu {
            first_layer,
            frames,
            duration,
            looping,
        }),
        &wgsl_layout(&atlas, "AtlasClip"),
    ));
    problems.extend(compare(
        "BakeLayer",
        &rust_layout!(BakeLayerGpu { clip, time, _pad }),
        &wgsl_layout(&atlas, "BakeLayer"),
    ));
    problems.extend(compare(
        "MipLayer",
        &rust_layout!(MipLayerGpu {
            layer,
            _pad0,
            _pad1,
            _pad2
        }),
        &wgsl_layout(
            &shaders::IMPOSTOR_MIP.source().expect("composes"),
            "MipLayer",
        ),
    ));
    problems
}
