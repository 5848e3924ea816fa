// One bird of the flock, written by flock.wgsl and read by the renderer
// (behaviour.wgsl). Mirrored by `crowd::flock::Boid` (tests/gpu_layout.rs).

struct Boid {
    pos: vec3<f32>,
    // The bird's own phase, for animation variety.
    phase: f32,
    vel: vec3<f32>,
    // Smoothed vertical speed, for the flap/glide choice.
    climb: f32,
    // Smoothed weight of the flap clip (1 = flapping, 0 = gliding).
    flap: f32,
    // Smoothed roll into the turn, radians (positive: up tilts towards +right).
    bank: f32,
    _pad: vec2<f32>,
};
