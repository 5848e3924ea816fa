//! The seeded generators every part of the crowd draws from, one copy each:
//! SplitMix64 for the CPU's instance, herd and flock seeds, and the PCG hash
//! that Rust and WGSL share (`pcg_hash` in shaders/rng.wgsl), so both sides
//! jitter identically.

/// SplitMix64's step: adds the golden-ratio increment to `z` and mixes it.
/// A good 64-bit hash of `z`; applied to a counter, the SplitMix64 stream.
pub fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform value in [0, 1) from the top 24 bits of `z` (exact in f32).
pub fn unit_f32(z: u64) -> f32 {
    (z >> 40) as f32 / (1u64 << 24) as f32
}

/// The SplitMix64 stream from `seed`: each value is `splitmix64` of the
/// next counter value.
#[derive(Clone, Copy, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        let out = splitmix64(self.state);
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        out
    }

    /// The next value in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        unit_f32(self.next_u64())
    }
}

/// A hash's low and high 16 bits as a pair in [-0.5, 0.5]: the herd's
/// slot jitter (`formation_slot` in shaders/herd.wgsl does the same).
pub fn centred_pair(h: u32) -> glam::Vec2 {
    glam::Vec2::new((h & 0xffff) as f32, (h >> 16) as f32) / 65535.0 - 0.5
}

/// PCG hash of a u32: the same integer steps as `pcg_hash` in
/// shaders/rng.wgsl.
pub fn pcg_hash(i: u32) -> u32 {
    let s = i.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let w = ((s >> ((s >> 28) + 4)) ^ s).wrapping_mul(277_803_737);
    (w >> 22) ^ w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_stream() {
        // The first outputs of SplitMix64 seeded with 0 (Vigna's reference).
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(g.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn pcg_hash_is_the_reference_one() {
        assert_eq!(pcg_hash(0), 129_708_002);
        assert_eq!(pcg_hash(1), 2_831_084_092);
    }

    #[test]
    fn unit_values_stay_below_one() {
        assert_eq!(unit_f32(u64::MAX), 16_777_215.0 / 16_777_216.0);
        assert_eq!(unit_f32(0), 0.0);
    }
}
