// The seeded hash Rust and WGSL share: the same integer steps as
// `crowd::rng::pcg_hash`, so both sides jitter identically.

fn pcg_hash(i: u32) -> u32 {
    let s = i * 747796405u + 2891336453u;
    let w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
    return (w >> 22u) ^ w;
}
