//! Each listed instance's resolved state: the animation state the cull
//! pass computed when it listed an instance (placement, the two clips, their
//! times and weight), kept at the end of the view's visible list so that the
//! crowd's and the impostors' vertices read it instead of computing it again
//! (every vertex of a horse used to run the herd, the flock's basis and the
//! clip clocks). The layout's WGSL is shaders/resolved.wgsl; this is its
//! Rust twin (`tests/gpu_constants.rs` checks the constants).
//!
//! A list is its regions, then the states, then one word: the stride.
//! Instance `i`'s state starts `(i + 1) * stride + 1` words before the
//! list's end, so a shader finds it from the binding's length alone.

use glam::Vec3;

/// Words of one state (14 used).
pub const STATE_WORDS: u32 = 16;
/// A list's stride when it keeps each instance's state.
pub const STATE_STRIDE: u32 = STATE_WORDS;
/// A list's stride when it also keeps the state when the previous frame was
/// drawn (the camera's lists when the scene pass writes the velocity
/// target: its previous pose).
pub const PREVIOUS_STRIDE: u32 = 2 * STATE_WORDS;

/// Words after the regions of a list keeping `capacity` instances' states
/// at `stride` (the stride word included).
pub fn trailer_words(capacity: u32, stride: u32) -> u64 {
    capacity as u64 * stride as u64 + 1
}

/// The first word of instance `index`'s state in a list of `len` words
/// with stride `stride`.
pub fn state_word(len: usize, index: u32, stride: u32) -> usize {
    len - 1 - (index as usize + 1) * stride as usize
}

/// One state as the cull pass keeps it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ResolvedState {
    pub origin: Vec3,
    pub forward: Vec3,
    pub up: Vec3,
    /// The clip fading in (the scene's clip table), its clip time.
    pub clip: u32,
    pub time: f32,
    /// The clip fading out, its clip time.
    pub previous: u32,
    pub previous_time: f32,
    /// Weight of `clip` against `previous`.
    pub weight: f32,
}

impl ResolvedState {
    /// The state in `words` (at least [`STATE_WORDS`]).
    pub fn from_words(w: &[u32]) -> Self {
        let f = |k: usize| f32::from_bits(w[k]);
        let v = |k: usize| Vec3::new(f(k), f(k + 1), f(k + 2));
        Self {
            origin: v(0),
            clip: w[3],
            forward: v(4),
            time: f(7),
            up: v(8),
            previous: w[11],
            previous_time: f(12),
            weight: f(13),
        }
    }

    /// Its words, as `pack_state` writes them.
    pub fn words(&self) -> [u32; STATE_WORDS as usize] {
        let b = |x: f32| x.to_bits();
        [
            b(self.origin.x),
            b(self.origin.y),
            b(self.origin.z),
            self.clip,
            b(self.forward.x),
            b(self.forward.y),
            b(self.forward.z),
            b(self.time),
            b(self.up.x),
            b(self.up.y),
            b(self.up.z),
            self.previous,
            b(self.previous_time),
            b(self.weight),
            0,
            0,
        ]
    }

    /// Instance `index`'s state (and, with `previous`, the previous
    /// frame's) in a list's words.
    pub fn in_list(list: &[u32], index: u32, stride: u32, previous: bool) -> Self {
        let at =
            state_word(list.len(), index, stride) + if previous { STATE_WORDS as usize } else { 0 };
        Self::from_words(&list[at..at + STATE_WORDS as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        let s = ResolvedState {
            origin: Vec3::new(1.0, -2.5, 3.25),
            forward: Vec3::Z,
            up: Vec3::Y,
            clip: 7,
            time: 0.375,
            previous: 2,
            previous_time: 1.5,
            weight: 0.25,
        };
        assert_eq!(ResolvedState::from_words(&s.words()), s);
    }

    #[test]
    fn states_sit_before_the_stride_word() {
        // Two instances at stride 32 after 10 words of regions.
        let len = 10 + trailer_words(2, PREVIOUS_STRIDE) as usize;
        assert_eq!(len, 75);
        assert_eq!(state_word(len, 0, PREVIOUS_STRIDE), 42);
        assert_eq!(state_word(len, 1, PREVIOUS_STRIDE), 10);
        // Instance 0's previous state ends just before the stride word.
        assert_eq!(42 + 2 * STATE_WORDS as usize, len - 1);
    }
}
