//! Where every frame of every clip lives in the texture array.

use super::VatError;

/// Texture dimensions and the vertex → texel mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Layout {
    pub vertex_count: u32,
    /// Texels per row: `min(vertex_count, max_width)`.
    pub width: u32,
    /// `ceil(vertex_count / width)`.
    pub rows_per_frame: u32,
    /// Rows per layer (the tallest layer's rows).
    pub height: u32,
    pub layers: u32,
}

/// One clip's place and timing in the texture.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct VatClip {
    pub name: String,
    /// Index in `Model::clips`; `None` for the rest pose of a model without clips.
    #[serde(skip)]
    pub source: Option<usize>,
    pub layer: u32,
    pub first_row: u32,
    /// Stored frames, including a looping clip's copy of its first frame.
    pub frame_count: u32,
    /// Stored frames per second of clip time: `(frame_count - 1) / duration`.
    pub fps: f32,
    /// Seconds.
    pub duration: f32,
    pub looping: bool,
}

impl VatClip {
    /// Number of frame intervals (`frame_count - 1`); frame `k` shows clip
    /// time `k × duration / segments`.
    pub fn segments(&self) -> u32 {
        self.frame_count.saturating_sub(1)
    }

    /// Clip time of stored frame `k`.
    pub fn frame_time(&self, k: u32) -> f32 {
        if self.segments() == 0 {
            0.0
        } else {
            k as f32 * self.duration / self.segments() as f32
        }
    }

    /// The fractional frame for clip time `t`: wrapped for looping clips,
    /// clamped otherwise. Matches the shader.
    pub fn frame_at(&self, t: f32) -> f32 {
        let seg = self.segments();
        if seg == 0 || self.duration <= 0.0 {
            return 0.0;
        }
        let t = if self.looping {
            t.rem_euclid(self.duration)
        } else {
            t.clamp(0.0, self.duration)
        };
        (t / self.duration * seg as f32).min(seg as f32)
    }
}

impl Layout {
    /// Width and rows per frame for a vertex count.
    pub fn for_vertices(
        model: &str,
        vertex_count: usize,
        max_width: u32,
        max_height: u32,
    ) -> Result<Self, VatError> {
        if max_width == 0 || max_height == 0 {
            return Err(VatError::Option(
                "the maximum texture width and height must be positive".into(),
            ));
        }
        let n = u32::try_from(vertex_count).unwrap_or(u32::MAX);
        let width = n.clamp(1, max_width);
        let rows = n.div_ceil(width).max(1);
        if rows > max_height || vertex_count > u32::MAX as usize {
            return Err(VatError::TooManyVertices {
                model: model.into(),
                vertices: vertex_count,
                width,
                rows,
                max_height,
            });
        }
        Ok(Self {
            vertex_count: n,
            width,
            rows_per_frame: rows,
            height: 0,
            layers: 0,
            // `place` fills height and layers.
        })
    }

    /// Packs clips (with their frame counts already set) into layers, in
    /// order, without splitting a clip; fills `layer` and `first_row`.
    pub fn place(
        &mut self,
        model: &str,
        clips: &mut [VatClip],
        max_height: u32,
        max_layers: u32,
    ) -> Result<(), VatError> {
        let mut layer = 0u32;
        let mut row = 0u32;
        let mut tallest = 0u32;
        for clip in clips.iter_mut() {
            let rows = clip.frame_count.saturating_mul(self.rows_per_frame);
            if rows > max_height {
                return Err(VatError::ClipTooLong {
                    model: model.into(),
                    clip: clip.name.clone(),
                    frames: clip.frame_count,
                    rows_per_frame: self.rows_per_frame,
                    rows,
                    max_height,
                });
            }
            if row + rows > max_height {
                layer += 1;
                row = 0;
            }
            clip.layer = layer;
            clip.first_row = row;
            row += rows;
            tallest = tallest.max(row);
        }
        let layers = layer + 1;
        if layers > max_layers {
            return Err(VatError::TooManyLayers {
                model: model.into(),
                layers,
                max_layers,
            });
        }
        self.layers = layers;
        self.height = tallest.max(1);
        Ok(())
    }

    /// Texels in one layer.
    pub fn layer_texels(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Texels over all layers.
    pub fn texel_count(&self) -> usize {
        self.layer_texels() * self.layers as usize
    }

    /// Index of vertex `v` of frame `frame` of `clip` in the texel array.
    pub fn texel_index(&self, clip: &VatClip, frame: u32, v: u32) -> usize {
        let row = clip.first_row + frame * self.rows_per_frame + v / self.width;
        let x = v % self.width;
        clip.layer as usize * self.layer_texels() + row as usize * self.width as usize + x as usize
    }

    /// Index of the first texel of a frame; a frame's texels are contiguous.
    pub fn frame_start(&self, clip: &VatClip, frame: u32) -> usize {
        self.texel_index(clip, frame, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip(name: &str, frames: u32) -> VatClip {
        VatClip {
            name: name.into(),
            source: None,
            layer: 0,
            first_row: 0,
            frame_count: frames,
            fps: 30.0,
            duration: 1.0,
            looping: true,
        }
    }

    #[test]
    fn rows_wrap_at_max_width() {
        let l = Layout::for_vertices("fox", 1728, 256, 8192).unwrap();
        assert_eq!((l.width, l.rows_per_frame), (256, 7));
        let v = 1727;
        let c = clip("a", 2);
        let mut l = l;
        l.place("fox", &mut [c.clone()], 8192, 1).unwrap();
        let i = l.texel_index(&c, 1, v);
        assert_eq!(i, (7 + 6) * 256 + (1727 % 256) as usize);
    }

    #[test]
    fn clips_do_not_straddle_layers() {
        let mut l = Layout::for_vertices("m", 100, 64, 100).unwrap();
        assert_eq!(l.rows_per_frame, 2);
        let mut clips = [clip("a", 30), clip("b", 30), clip("c", 10)];
        l.place("m", &mut clips, 100, 8).unwrap();
        assert_eq!((clips[0].layer, clips[0].first_row), (0, 0));
        assert_eq!((clips[1].layer, clips[1].first_row), (1, 0));
        assert_eq!((clips[2].layer, clips[2].first_row), (1, 60));
        assert_eq!((l.layers, l.height), (2, 80));
    }

    #[test]
    fn oversize_inputs_are_errors() {
        assert!(matches!(
            Layout::for_vertices("m", 100_000, 16, 16),
            Err(VatError::TooManyVertices { .. })
        ));
        let mut l = Layout::for_vertices("m", 10, 10, 5).unwrap();
        assert!(matches!(
            l.place("m", &mut [clip("a", 6)], 5, 4),
            Err(VatError::ClipTooLong { .. })
        ));
        assert!(matches!(
            l.place("m", &mut [clip("a", 5), clip("b", 5)], 5, 1),
            Err(VatError::TooManyLayers { .. })
        ));
    }

    #[test]
    fn frame_at_wraps_or_clamps() {
        let mut c = clip("a", 31);
        assert_eq!(c.frame_at(0.5), 15.0);
        assert!((c.frame_at(1.25) - 7.5).abs() < 1e-4);
        c.looping = false;
        assert_eq!(c.frame_at(1.25), 30.0);
        assert_eq!(c.frame_at(-1.0), 0.0);
    }
}
