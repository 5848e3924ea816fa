//! What the export tests share: reading a `.glb` the way an engine's glTF
//! reader does (the gltf crate, not Stampede's importer), and the texture
//! files the engine formats write.
#![allow(dead_code)]

use glam::{Vec2, Vec3, Vec4};
use std::path::Path;

/// Every primitive's vertices of a `.glb`, appended in order, with the
/// lookup (`TEXCOORD_1`) and the vertex index (`_VERTEX_ID`).
pub struct Stream {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub lookup: Vec<Vec2>,
    pub ids: Vec<f32>,
    /// Triangles, indices into the appended stream.
    pub indices: Vec<u32>,
}

pub fn read_stream(path: &Path) -> Stream {
    let (doc, buffers, _) = gltf::import(path).expect("the .glb reads as glTF");
    let mut s = Stream {
        positions: Vec::new(),
        normals: Vec::new(),
        lookup: Vec::new(),
        ids: Vec::new(),
        indices: Vec::new(),
    };
    for mesh in doc.meshes() {
        for prim in mesh.primitives() {
            let reader = prim.reader(|b| Some(&buffers[b.index()]));
            let base = s.positions.len() as u32;
            s.positions
                .extend(reader.read_positions().expect("positions").map(Vec3::from));
            s.normals
                .extend(reader.read_normals().expect("normals").map(Vec3::from));
            s.lookup.extend(
                reader
                    .read_tex_coords(1)
                    .expect("TEXCOORD_1")
                    .into_f32()
                    .map(Vec2::from),
            );
            let ids = prim
                .get(&gltf::Semantic::Extras("VERTEX_ID".into()))
                .expect("_VERTEX_ID");
            s.ids.extend(floats(&ids, &buffers));
            s.indices.extend(
                reader
                    .read_indices()
                    .expect("indices")
                    .into_u32()
                    .map(|i| i + base),
            );
        }
    }
    s
}

/// The f32 scalars of an accessor (the gltf crate reads only named
/// attributes).
fn floats(acc: &gltf::Accessor, buffers: &[gltf::buffer::Data]) -> Vec<f32> {
    let view = acc.view().expect("a buffer view");
    let start = view.offset() + acc.offset();
    let bytes = &buffers[view.buffer().index()][start..start + acc.count() * 4];
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// An image as floats, row 0 at the top.
pub struct Texture {
    pub width: usize,
    pub height: usize,
    pub texels: Vec<Vec4>,
}

impl Texture {
    /// Nearest-texel lookup at `uv` (u right, v down from the top), as a
    /// point-filtered sampler reads it.
    pub fn sample_top_down(&self, uv: Vec2) -> Vec4 {
        let x = ((uv.x * self.width as f32).floor() as isize).clamp(0, self.width as isize - 1);
        let y = ((uv.y * self.height as f32).floor() as isize).clamp(0, self.height as isize - 1);
        self.texels[y as usize * self.width + x as usize]
    }
}

/// A 16-bit PNG, each sample as the normalised value a UNORM texture gives.
pub fn read_png16(path: &Path) -> Texture {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("the PNG opens"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("one frame");
    assert_eq!(info.bit_depth, png::BitDepth::Sixteen, "{}", path.display());
    assert_eq!(info.color_type, png::ColorType::Rgba, "{}", path.display());
    let texels = buf[..info.buffer_size()]
        .chunks_exact(8)
        .map(|c| {
            let s = |i: usize| f32::from(u16::from_be_bytes([c[i], c[i + 1]])) / 65535.0;
            Vec4::new(s(0), s(2), s(4), s(6))
        })
        .collect();
    Texture {
        width: info.width as usize,
        height: info.height as usize,
        texels,
    }
}

/// An RGBA EXR as f32.
pub fn read_exr(path: &Path) -> Texture {
    let image = exr::prelude::read_first_rgba_layer_from_file(
        path,
        |res, _| (res.width(), vec![Vec4::ZERO; res.width() * res.height()]),
        |(w, buf), pos, (r, g, b, a): (f32, f32, f32, f32)| {
            buf[pos.y() * *w + pos.x()] = Vec4::new(r, g, b, a)
        },
    )
    .expect("the EXR reads");
    let size = image.layer_data.size;
    Texture {
        width: size.width(),
        height: size.height(),
        texels: image.layer_data.channel_data.pixels.1,
    }
}
