//! Texel storage in the exact format the GPU receives.

use glam::Vec4;
use half::f16;

/// Texel format of the baked textures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// RGBA16F: half the memory and bandwidth, ~1e-3 relative rounding.
    #[default]
    F16,
    /// RGBA32F: exact.
    F32,
}

impl Precision {
    pub fn name(self) -> &'static str {
        match self {
            Precision::F16 => "f16",
            Precision::F32 => "f32",
        }
    }

    pub fn bytes_per_texel(self) -> usize {
        match self {
            Precision::F16 => 8,
            Precision::F32 => 16,
        }
    }

    /// Rounds a value the way storing it does.
    pub fn round(self, v: Vec4) -> Vec4 {
        match self {
            Precision::F16 => Vec4::from_array(v.to_array().map(|x| f16::from_f32(x).to_f32())),
            Precision::F32 => v,
        }
    }
}

impl std::str::FromStr for Precision {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "f16" => Ok(Self::F16),
            "f32" => Ok(Self::F32),
            _ => Err(format!("unknown precision '{s}' (expected f16 or f32)")),
        }
    }
}

/// RGBA texels, row-major over all layers.
#[derive(Clone, Debug)]
pub enum Texels {
    F16(Vec<[f16; 4]>),
    F32(Vec<[f32; 4]>),
}

impl Texels {
    pub fn zeroed(precision: Precision, count: usize) -> Self {
        match precision {
            Precision::F16 => Texels::F16(vec![[f16::ZERO; 4]; count]),
            Precision::F32 => Texels::F32(vec![[0.0; 4]; count]),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Texels::F16(v) => v.len(),
            Texels::F32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, i: usize) -> Vec4 {
        match self {
            Texels::F16(v) => Vec4::from_array(v[i].map(f16::to_f32)),
            Texels::F32(v) => Vec4::from_array(v[i]),
        }
    }

    pub fn set(&mut self, i: usize, value: Vec4) {
        match self {
            Texels::F16(v) => v[i] = value.to_array().map(f16::from_f32),
            Texels::F32(v) => v[i] = value.to_array(),
        }
    }

    /// The raw bytes, ready for `queue.write_texture`.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Texels::F16(v) => bytemuck::cast_slice(v),
            Texels::F32(v) => bytemuck::cast_slice(v),
        }
    }
}
