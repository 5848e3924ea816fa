//! Animation clips and their sampling into joint palettes.

mod pose;
mod sample;

pub use pose::Pose;

/// What a channel animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    Translation,
    Rotation,
    Scale,
    Weights,
}

impl Path {
    pub fn name(self) -> &'static str {
        match self {
            Path::Translation => "translation",
            Path::Rotation => "rotation",
            Path::Scale => "scale",
            Path::Weights => "weights",
        }
    }
}

/// Keyframe interpolation, as glTF defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    Step,
    CubicSpline,
}

impl Interpolation {
    pub fn name(self) -> &'static str {
        match self {
            Interpolation::Linear => "LINEAR",
            Interpolation::Step => "STEP",
            Interpolation::CubicSpline => "CUBICSPLINE",
        }
    }
}

/// One animated property of one node.
#[derive(Clone, Debug)]
pub struct Channel {
    pub node: usize,
    pub path: Path,
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly finite and non-decreasing.
    pub times: Vec<f32>,
    /// Flat values: `width` floats per element; CUBICSPLINE stores
    /// (in-tangent, value, out-tangent) per key.
    pub values: Vec<f32>,
    /// Floats per element: 3 (translation, scale), 4 (rotation) or the
    /// number of morph targets (weights).
    pub width: usize,
}

/// One glTF animation.
#[derive(Clone, Debug)]
pub struct Clip {
    pub name: String,
    /// Earliest key time over all channels, in seconds.
    pub start: f32,
    /// Latest key time over all channels, in seconds.
    pub end: f32,
    pub channels: Vec<Channel>,
}

impl Clip {
    /// Length in seconds; clip time 0 maps to [`Clip::start`].
    pub fn duration(&self) -> f32 {
        self.end - self.start
    }

    /// Total number of keys over all channels.
    pub fn key_count(&self) -> usize {
        self.channels.iter().map(|c| c.times.len()).sum()
    }

    /// The interpolation modes used, in a stable order.
    pub fn interpolations(&self) -> Vec<Interpolation> {
        let mut out = Vec::new();
        for mode in [
            Interpolation::Linear,
            Interpolation::Step,
            Interpolation::CubicSpline,
        ] {
            if self.channels.iter().any(|c| c.interpolation == mode) {
                out.push(mode);
            }
        }
        out
    }

    /// The animated paths used, in a stable order.
    pub fn paths(&self) -> Vec<Path> {
        let mut out = Vec::new();
        for path in [
            Path::Translation,
            Path::Rotation,
            Path::Scale,
            Path::Weights,
        ] {
            if self.channels.iter().any(|c| c.path == path) {
                out.push(path);
            }
        }
        out
    }
}
