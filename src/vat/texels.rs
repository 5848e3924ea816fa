//! Texel storage in the exact format the GPU receives.

use super::packed;
use crate::Aabb;
use glam::{Vec3, Vec4};
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
    /// One RGBA16Uint texel for position and normal together: 16 bits per
    /// axis inside the bake's bounds, the normal octahedral in 8+8 bits
    /// (see [`packed`]).
    Packed,
}

impl Precision {
    pub fn name(self) -> &'static str {
        match self {
            Precision::F16 => "f16",
            Precision::F32 => "f32",
            Precision::Packed => "packed",
        }
    }

    /// Bytes of one texel of one texture.
    pub fn bytes_per_texel(self) -> usize {
        match self {
            Precision::F16 | Precision::Packed => 8,
            Precision::F32 => 16,
        }
    }
}

impl std::str::FromStr for Precision {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "f16" => Ok(Self::F16),
            "f32" => Ok(Self::F32),
            "packed" => Ok(Self::Packed),
            _ => Err(format!(
                "unknown precision '{s}' (expected f16, f32 or packed)"
            )),
        }
    }
}

/// RGBA texels, row-major over all layers.
#[derive(Clone, Debug)]
pub enum Texels {
    F16(Vec<[f16; 4]>),
    F32(Vec<[f32; 4]>),
    /// Raw packed codes; [`Texels::position`] and [`Texels::normal`] decode.
    Packed(Vec<[u16; 4]>),
}

impl Texels {
    pub fn zeroed(precision: Precision, count: usize) -> Self {
        match precision {
            Precision::F16 => Texels::F16(vec![[f16::ZERO; 4]; count]),
            Precision::F32 => Texels::F32(vec![[0.0; 4]; count]),
            Precision::Packed => Texels::Packed(vec![[0; 4]; count]),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Texels::F16(v) => v.len(),
            Texels::F32(v) => v.len(),
            Texels::Packed(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stored value. Packed texels come back as their raw integer codes:
    /// decoding needs the bounds, see [`Texels::position`].
    pub fn get(&self, i: usize) -> Vec4 {
        match self {
            Texels::F16(v) => Vec4::from_array(v[i].map(f16::to_f32)),
            Texels::F32(v) => Vec4::from_array(v[i]),
            Texels::Packed(v) => Vec4::from_array(v[i].map(f32::from)),
        }
    }

    /// Stores a value; packed texels take raw codes (rounded, clamped).
    pub fn set(&mut self, i: usize, value: Vec4) {
        match self {
            Texels::F16(v) => v[i] = value.to_array().map(f16::from_f32),
            Texels::F32(v) => v[i] = value.to_array(),
            Texels::Packed(v) => v[i] = value.to_array().map(|c| c.round() as u16),
        }
    }

    /// The position a texel stores: RGB, or the packed position decoded
    /// inside `bounds` (the bake's [`super::Vat::bounds`]).
    pub fn position(&self, i: usize, bounds: &Aabb) -> Vec3 {
        match self {
            Texels::Packed(v) => packed::decode(v[i], bounds).0,
            _ => self.get(i).truncate(),
        }
    }

    /// The normal a texel stores: RGB, or the packed normal decoded.
    pub fn normal(&self, i: usize) -> Vec3 {
        match self {
            Texels::Packed(v) => packed::decode_normal(v[i][3]),
            _ => self.get(i).truncate(),
        }
    }

    /// The raw bytes, ready for `queue.write_texture`.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Texels::F16(v) => bytemuck::cast_slice(v),
            Texels::F32(v) => bytemuck::cast_slice(v),
            Texels::Packed(v) => bytemuck::cast_slice(v),
        }
    }
}
