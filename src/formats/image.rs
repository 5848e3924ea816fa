//! The texture files the exports write: 8- and 16-bit RGBA PNGs and a
//! half-float RGBA OpenEXR, row 0 at the top.

use super::FormatError;
use half::f16;
use std::path::Path;

/// A 16-bit RGBA PNG of `texels` (PNG samples are big-endian).
pub fn write_png16(
    path: &Path,
    width: u32,
    height: u32,
    texels: &[[u16; 4]],
) -> Result<(), FormatError> {
    let data: Vec<u8> = texels
        .iter()
        .flatten()
        .flat_map(|c| c.to_be_bytes())
        .collect();
    write_png(path, (width, height), png::BitDepth::Sixteen, None, &data)
}

/// A half-float RGBA EXR of `texels`.
pub fn write_exr_f16(
    path: &Path,
    width: u32,
    height: u32,
    texels: &[[f32; 4]],
) -> Result<(), FormatError> {
    let w = width as usize;
    exr::prelude::write_rgba_file(path, w, height as usize, |x, y| {
        let t = texels[y * w + x].map(f16::from_f32);
        (t[0], t[1], t[2], t[3])
    })
    .map_err(|source| FormatError::Exr {
        path: path.to_owned(),
        source,
    })
}

/// An 8-bit RGBA PNG of `texels`, tagged sRGB or linear (gamma 1.0) so an
/// importer that reads the tag decodes it as meant.
pub fn write_png8(
    path: &Path,
    width: u32,
    height: u32,
    texels: &[[u8; 4]],
    srgb: bool,
) -> Result<(), FormatError> {
    let bytes = texels.as_flattened();
    write_png(
        path,
        (width, height),
        png::BitDepth::Eight,
        Some(srgb),
        bytes,
    )
}

/// An RGBA PNG of `data` (rows top to bottom) at `depth`, tagged sRGB
/// (`Some(true)`), linear (`Some(false)`) or not at all.
fn write_png(
    path: &Path,
    (width, height): (u32, u32),
    depth: png::BitDepth,
    srgb: Option<bool>,
    data: &[u8],
) -> Result<(), FormatError> {
    let png_error = |source| FormatError::Png {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::create(path).map_err(FormatError::io(path))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(depth);
    match srgb {
        Some(true) => encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual),
        Some(false) => encoder.set_source_gamma(png::ScaledFloat::new(1.0)),
        None => {}
    }
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(data).map_err(png_error)?;
    writer.finish().map_err(png_error)
}
