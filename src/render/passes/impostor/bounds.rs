//! Each atlas cell's covered texels, measured on the GPU once the atlas is
//! drawn (shaders/impostor_bounds.wgsl; the CPU rule is
//! `impostor::cell_bounds`): the impostor's quad is fitted to them. No
//! read-back, so it works where the GPU cannot be waited for (a browser).

use crate::crowd::splat::SPLAT_MODELS;
use crate::gpu::compute_storage;
use crate::impostor::{AtlasLayout, CellBounds, empty_bounds, full_bounds};
use crate::render::util::pipeline::{bind_group, compute_pipeline, texture_entry};
use crate::render::util::shaders;
use wgpu::util::DeviceExt;

/// Cells in a row of the bounds' textures (`impostor_span` in
/// impostor.wgsl reads cell `i` at `(i % BOUNDS_ROW, i / BOUNDS_ROW)`).
pub const BOUNDS_ROW: u32 = 256;

/// Both quads' bounds of an atlas's cells (every model's, in the model
/// order): the measured ones (tight quads) and every cell whole (the
/// sphere's squares), each an `Rgba32Uint` texture a texel per cell (a
/// texture, not a storage buffer: WebGPU lets a vertex stage bind 10 of
/// those and the impostor's already binds 10).
pub struct AtlasBounds {
    /// The measured bounds where the compute pass made them (rows of
    /// [`BOUNDS_ROW`] cells, the last padded with empty cells).
    measured: wgpu::Buffer,
    pub tight: wgpu::TextureView,
    pub full: wgpu::TextureView,
    /// Cells (4 words each).
    pub cells: u32,
    /// Each model's colour sums for the splat level (`impostor::atlas_sums`;
    /// 4 words a model, [`SPLAT_MODELS`] models, in the model order).
    pub sums: wgpu::Buffer,
    /// Each model's cells over all its frames (what its sums are over).
    pub frame_cells: Vec<u32>,
}

/// Bytes of a model's sums.
const SUM_BYTES: u64 = 16;

fn sums_buffer(device: &wgpu::Device) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("impostor atlas sums"),
        size: SPLAT_MODELS as u64 * SUM_BYTES,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Rows of [`BOUNDS_ROW`] cells that `cells` take.
fn rows(cells: u32) -> u32 {
    cells.div_ceil(BOUNDS_ROW).max(1)
}

/// `bounds` padded with empty cells to whole rows.
fn padded(bounds: &[CellBounds]) -> Vec<CellBounds> {
    let mut all = bounds.to_vec();
    all.resize((rows(bounds.len() as u32) * BOUNDS_ROW) as usize, [0; 4]);
    all
}

fn buffer(device: &wgpu::Device, label: &str, bounds: &[CellBounds]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytemuck::cast_slice(&padded(bounds)),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
    })
}

fn texture_descriptor(label: &str, cells: u32) -> wgpu::TextureDescriptor<'_> {
    wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: BOUNDS_ROW,
            height: rows(cells),
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba32Uint,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    }
}

/// The measured bounds' texture, copied from `measured` by `encoder`.
fn tight_texture(
    device: &wgpu::Device,
    encoder: &mut wgpu::CommandEncoder,
    measured: &wgpu::Buffer,
    cells: u32,
) -> wgpu::TextureView {
    let desc = texture_descriptor("impostor cell bounds", cells);
    let size = desc.size;
    let texture = device.create_texture(&desc);
    encoder.copy_buffer_to_texture(
        wgpu::TexelCopyBufferInfo {
            buffer: measured,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(BOUNDS_ROW * std::mem::size_of::<CellBounds>() as u32),
                rows_per_image: Some(size.height),
            },
        },
        texture.as_image_copy(),
        size,
    );
    texture.create_view(&Default::default())
}

/// Every cell whole, as a texture.
fn full_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    bounds: &[CellBounds],
) -> wgpu::TextureView {
    let desc = texture_descriptor("impostor whole cells", bounds.len() as u32);
    device
        .create_texture_with_data(
            queue,
            &desc,
            wgpu::util::TextureDataOrder::LayerMajor,
            bytemuck::cast_slice(&padded(bounds)),
        )
        .create_view(&Default::default())
}

impl AtlasBounds {
    /// Records the measure of `layout`'s cells over the atlas `albedo`
    /// (the model's own textures, `params` its `AtlasParams`).
    pub fn measure(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        layout: &AtlasLayout,
        params: &wgpu::Buffer,
        albedo: &wgpu::TextureView,
    ) -> Self {
        let measured = buffer(device, "impostor cell bounds", &empty_bounds(layout));
        let sums = sums_buffer(device);
        let group_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("impostor bounds layout"),
            entries: &[
                compute_storage(0, true),
                wgpu::BindGroupLayoutEntry {
                    visibility: wgpu::ShaderStages::COMPUTE,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    ..texture_entry(1)
                },
                compute_storage(2, false),
                compute_storage(3, false),
            ],
        });
        let group = bind_group(
            device,
            "impostor bounds",
            &group_layout,
            &[
                (0, params.as_entire_binding()),
                (1, wgpu::BindingResource::TextureView(albedo)),
                (2, measured.as_entire_binding()),
                (3, sums.as_entire_binding()),
            ],
        );
        let module = shaders::IMPOSTOR_BOUNDS.create(device);
        let pipeline = compute_pipeline(
            device,
            "impostor bounds",
            &[Some(&group_layout)],
            &module,
            "cs_bounds",
        );
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("impostor bounds"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(layout.yaws, layout.elevations.len() as u32, layout.layers);
        drop(pass);
        let cells = layout.cells();
        Self {
            tight: tight_texture(device, encoder, &measured, cells),
            full: full_texture(device, queue, &full_bounds(layout)),
            measured,
            cells,
            sums,
            frame_cells: vec![cells * layout.layers],
        }
    }

    /// Every part's bounds one after another (a scene's atlas, the parts in
    /// the crowd's model order); each part's first cell in them.
    pub fn concat(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        parts: &[(&AtlasBounds, &AtlasLayout)],
    ) -> (Self, Vec<u32>) {
        let cells: u32 = parts.iter().map(|(b, _)| b.cells).sum();
        let measured = buffer(
            device,
            "scene impostor cell bounds",
            &vec![[0; 4]; cells as usize],
        );
        let sums = sums_buffer(device);
        let mut frame_cells = Vec::with_capacity(parts.len());
        let mut firsts = Vec::with_capacity(parts.len());
        let mut full = Vec::with_capacity(cells as usize);
        let mut first = 0u32;
        let bytes = std::mem::size_of::<CellBounds>() as u64;
        for (part, layout) in parts {
            firsts.push(first);
            encoder.copy_buffer_to_buffer(
                &part.measured,
                0,
                &measured,
                first as u64 * bytes,
                part.cells as u64 * bytes,
            );
            if let Some(m) = (firsts.len() <= SPLAT_MODELS).then(|| firsts.len() as u64 - 1) {
                encoder.copy_buffer_to_buffer(&part.sums, 0, &sums, m * SUM_BYTES, SUM_BYTES);
            }
            frame_cells.push(part.frame_cells[0]);
            full.extend(full_bounds(layout));
            first += part.cells;
        }
        let bounds = Self {
            tight: tight_texture(device, encoder, &measured, cells),
            full: full_texture(device, queue, &full),
            measured,
            cells,
            sums,
            frame_cells,
        };
        (bounds, firsts)
    }

    /// Each model's colour sums read back (tests).
    pub fn read_sums(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Vec<[u32; 4]>, crate::gpu::GpuError> {
        let words: Vec<u32> = gpu.read_words(&self.sums, 0, self.sums.size())?;
        Ok(words.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect())
    }

    /// The measured bounds read back (the export, and tests).
    pub fn read(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Vec<CellBounds>, crate::gpu::GpuError> {
        let bytes = self.cells as u64 * std::mem::size_of::<CellBounds>() as u64;
        gpu.read_words(&self.measured, 0, bytes)
    }
}
