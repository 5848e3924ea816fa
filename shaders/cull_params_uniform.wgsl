// The cull pass's parameters (cull.wgsl) as a uniform, on a device that
// binds fewer storage buffers per shader stage than the camera's cull
// with splats reads as storage (a browser's WebGPU allows 10): one storage
// buffer fewer (`render::passes::cull::params_as_uniform`).
@group(3) @binding(0) var<uniform> cull: CullParams;
