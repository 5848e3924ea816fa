//! The posed positions the error is measured on: every stored frame of
//! every baked clip, decoded from the VAT texels exactly as the GPU reads
//! them (so a packed or f16 bake is measured at its own precision).

use crate::vat::{Texels, Vat, packed};

/// A position as three floats: plain scalar arithmetic on these stays fast
/// in unoptimized (test) builds, where every glam call is a real call.
pub type P3 = [f32; 3];

/// Every distinct stored frame of a bake, decoded, one after the other.
pub struct Frames {
    pub vertex_count: usize,
    /// `count() × vertex_count` positions, frame after frame.
    positions: Vec<P3>,
    /// Per distinct frame: (clip index, stored frame index).
    pub sources: Vec<(usize, u32)>,
}

impl Frames {
    /// Decodes every stored frame except a looping clip's last, which
    /// repeats its first bit for bit and so cannot change a worst case.
    pub fn from_vat(vat: &Vat) -> Self {
        let n = vat.layout.vertex_count as usize;
        let mut positions = Vec::new();
        let mut sources = Vec::new();
        for (c, clip) in vat.clips.iter().enumerate() {
            let stored = if clip.looping && clip.frame_count > 1 {
                clip.frame_count - 1
            } else {
                clip.frame_count
            };
            for k in 0..stored {
                let start = vat.layout.frame_start(clip, k);
                decode(vat, start..start + n, &mut positions);
                sources.push((c, k));
            }
        }
        Self {
            vertex_count: n,
            positions,
            sources,
        }
    }

    /// How many distinct frames there are.
    pub fn count(&self) -> usize {
        self.sources.len()
    }

    /// The positions of distinct frame `i`.
    pub fn frame(&self, i: usize) -> &[P3] {
        &self.positions[i * self.vertex_count..(i + 1) * self.vertex_count]
    }

    /// Up to `max` frames spread over every clip: each clip gets an equal
    /// share, evenly spaced over its stored frames (frame 0 first), and the
    /// list is thinned evenly when the clips together ask for more.
    pub fn spread(&self, clips: usize, max: usize) -> Vec<usize> {
        if max == 0 || self.count() == 0 {
            return Vec::new();
        }
        let per_clip = max.div_ceil(clips.max(1));
        let mut picked = Vec::new();
        for c in 0..clips {
            let of_clip: Vec<usize> = (0..self.count())
                .filter(|&i| self.sources[i].0 == c)
                .collect();
            let take = per_clip.min(of_clip.len());
            picked.extend((0..take).map(|j| of_clip[j * of_clip.len() / take]));
        }
        if picked.len() > max {
            let all = picked;
            picked = (0..max).map(|j| all[j * all.len() / max]).collect();
        }
        picked
    }
}

/// Appends the positions of texels `range`, decoded as the GPU does.
fn decode(vat: &Vat, range: std::ops::Range<usize>, out: &mut Vec<P3>) {
    match &vat.positions {
        Texels::F32(t) => out.extend(t[range].iter().map(|t| [t[0], t[1], t[2]])),
        Texels::F16(t) => out.extend(
            t[range]
                .iter()
                .map(|t| [t[0].to_f32(), t[1].to_f32(), t[2].to_f32()]),
        ),
        Texels::Packed(t) => out.extend(
            t[range]
                .iter()
                .map(|&t| packed::decode(t, &vat.bounds).0.to_array()),
        ),
    }
}

pub fn distance(a: P3, b: P3) -> f32 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// Per clip: half the largest distance any vertex moves between two
/// neighbouring stored frames, in model units. A lerp between frames `k`
/// and `k + 1` at fraction `s` is `min(s, 1 - s) × |p(k+1) − p(k)|` from the
/// nearer stored frame, which peaks at `s = ½`; so this is what sampling the
/// nearest frame instead of lerping two costs, at worst. Every stored pair
/// counts, including a looping clip's last (whose end repeats frame 0).
pub fn nearest_frame_errors(vat: &Vat) -> Vec<f32> {
    nearest_from(vat, &Frames::from_vat(vat))
}

/// [`nearest_frame_errors`] from frames already decoded.
pub fn nearest_from(vat: &Vat, frames: &Frames) -> Vec<f32> {
    let mut worst = vec![0.0f32; vat.clips.len()];
    let mut first = 0;
    while first < frames.count() {
        let c = frames.sources[first].0;
        let mut end = first;
        while end < frames.count() && frames.sources[end].0 == c {
            end += 1;
        }
        // The stored pairs: each distinct frame with the next, and a
        // looping clip's last distinct frame with its first (the copy).
        let mut pairs: Vec<(usize, usize)> = (first..end - 1).map(|i| (i, i + 1)).collect();
        if vat.clips[c].looping && vat.clips[c].frame_count > 1 {
            pairs.push((end - 1, first));
        }
        for (a, b) in pairs {
            let (a, b) = (frames.frame(a), frames.frame(b));
            for v in 0..frames.vertex_count {
                worst[c] = worst[c].max(distance(a[v], b[v]));
            }
        }
        first = end;
    }
    worst.iter().map(|w| w * 0.5).collect()
}
