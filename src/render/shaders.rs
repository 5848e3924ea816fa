//! Every WGSL module the renderer compiles, composed from the files in
//! `shaders/` by plain concatenation. `tests/shader_validation.rs` validates
//! exactly this list, so no shader escapes the test.

/// Frame uniform, lighting, sky colour and fog.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");
/// The VAT fetch and interpolation (`vat_sample`), shared with the GPU test.
pub const VAT: &str = include_str!("../../shaders/vat.wgsl");

/// The crowd: common + VAT + the instanced vertex and fragment stages.
pub const CROWD: &str = concat!(
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/vat.wgsl"),
    include_str!("../../shaders/crowd.wgsl"),
);
/// The ground plane.
pub const GROUND: &str = concat!(
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/ground.wgsl"),
);
/// The sky gradient.
pub const SKY: &str = concat!(
    include_str!("../../shaders/common.wgsl"),
    include_str!("../../shaders/sky.wgsl"),
);

/// The boids simulation's compute passes (standalone).
pub const FLOCK: &str = include_str!("../../shaders/flock.wgsl");

/// (name, composed source) of every module the runtime builds.
pub const SHADERS: &[(&str, &str)] = &[
    ("crowd", CROWD),
    ("ground", GROUND),
    ("sky", SKY),
    ("vat", VAT),
    ("flock", FLOCK),
];

/// The composed source of a module by name.
pub fn source(name: &str) -> Option<&'static str> {
    SHADERS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// Creates the shader module `name` from [`SHADERS`].
pub(crate) fn module(device: &wgpu::Device, name: &'static str) -> wgpu::ShaderModule {
    let source = source(name)
        .unwrap_or_else(|| panic!("shader '{name}' is not in render::shaders::SHADERS"));
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(name),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    })
}
