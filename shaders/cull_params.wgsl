// The cull pass's parameters (cull.wgsl) as read-only storage, not
// uniform, for the reason `frame` is (common.wgsl): lavapipe recompiles a
// shader whenever the uniform values its branches depend on differ from
// the last bind, and the camera and each shadow cascade are culled with
// different parameters every frame. cull_params_uniform.wgsl is the twin.
@group(3) @binding(0) var<storage, read> cull: CullParams;
