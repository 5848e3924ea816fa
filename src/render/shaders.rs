//! Every WGSL module the renderer compiles, composed from the files in
//! `shaders/` by plain concatenation. `tests/shader_validation.rs` validates
//! exactly this list, so no shader escapes the test.

/// Frame uniform, lighting, sky colour and fog.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");
/// What every crowd technique shares: the clip table, `vat_frame`, `VatSample`.
pub const TECHNIQUE: &str = include_str!("../../shaders/technique.wgsl");
/// The VAT fetch and interpolation (`vat_sample`), shared with the GPU test.
pub const VAT: &str = concat!(
    include_str!("../../shaders/technique.wgsl"),
    include_str!("../../shaders/vat.wgsl"),
);

/// Builds a crowd module: common + technique + the shared crowd stages
/// (crowd, boid, herd, behaviour) + the technique's own files and its
/// `vs_main` file.
macro_rules! crowd_module {
    ($($file:literal),*) => {
        concat!(
            include_str!("../../shaders/common.wgsl"),
            include_str!("../../shaders/technique.wgsl"),
            include_str!("../../shaders/crowd.wgsl"),
            include_str!("../../shaders/boid.wgsl"),
            include_str!("../../shaders/herd.wgsl"),
            include_str!("../../shaders/behaviour.wgsl"),
            $(include_str!(concat!("../../shaders/", $file)),)*
        )
    };
}

/// The crowd drawn from the VAT.
pub const CROWD_VAT: &str = crowd_module!("vat.wgsl", "vat_crowd.wgsl");
/// The crowd with live bone-matrix skinning (`skinned_vertex`).
pub const CROWD_SKINNING: &str = crowd_module!("skin.wgsl", "skinning.wgsl");
/// The crowd skinned from the baked bone texture (`bone_vertex`).
pub const CROWD_BONE_TEXTURE: &str = crowd_module!("skin.wgsl", "bone_texture.wgsl");
/// The crowd from CPU-skinned vertices (`cpu_vertex`).
pub const CROWD_CPU: &str = crowd_module!("cpu_skinned.wgsl");
/// The crowd in one stored pose (`static_vertex`).
pub const CROWD_STATIC: &str = crowd_module!("static.wgsl");
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

/// The herd's schedule and path on the GPU (`herd_state`), standalone so
/// tests/herd_gpu.rs runs it against `Herd::instance`.
pub const HERD: &str = include_str!("../../shaders/herd.wgsl");

/// The boids simulation's compute passes (standalone).
pub const FLOCK: &str = concat!(
    include_str!("../../shaders/boid.wgsl"),
    include_str!("../../shaders/flock.wgsl"),
);

/// (name, composed source) of every module the runtime builds.
pub const SHADERS: &[(&str, &str)] = &[
    ("crowd_vat", CROWD_VAT),
    ("crowd_skinning", CROWD_SKINNING),
    ("crowd_bone_texture", CROWD_BONE_TEXTURE),
    ("crowd_cpu", CROWD_CPU),
    ("crowd_static", CROWD_STATIC),
    ("ground", GROUND),
    ("sky", SKY),
    ("vat", VAT),
    ("flock", FLOCK),
    ("herd", HERD),
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
