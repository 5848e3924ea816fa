//! The splat level below the impostors (`crowd::splat` has its rules): the
//! per-pixel planes the camera's cull pass writes far instances into
//! (shaders/splat.wgsl, bound by the cull pass as group 1's binding 3), and
//! the full-screen pass drawing them into the scene with its depth test
//! (shaders/splat_resolve.wgsl). Each model's colour comes from its
//! impostor atlas's sums (`impostor::atlas_sums`).

use crate::crowd::splat::{PLANES_OFFSET, SUMS_OFFSET, SplatHeader};
use crate::render::passes::impostor::ImpostorAtlas;
use crate::render::passes::targets::Targets;
use crate::render::util::pipeline::bind_group;
use crate::render::util::{fullscreen, shaders};

/// Storage buffers the camera's cull pass binds with splats: the plain
/// pass's 10 (the frame, the clip table, five of the crowd's group, the
/// parameters, arguments and visible list) and the planes. Where the
/// device allows fewer (a browser's WebGPU allows 10), the parameters are
/// a uniform instead (`cull::params_as_uniform`) and 10 are enough. With
/// occlusion culling, occlusion's three more.
pub const NEEDED_STORAGE_BUFFERS: u32 = 11;

/// Why the device cannot draw splats (with occlusion culling on when
/// `occlusion`), or `None` when it can.
pub fn unsupported_reason(device: &wgpu::Device, occlusion: bool) -> Option<String> {
    let need = if occlusion {
        NEEDED_STORAGE_BUFFERS + 3
    } else {
        // The parameters read as a uniform where 11 are not allowed.
        NEEDED_STORAGE_BUFFERS - 1
    };
    let have = device.limits().max_storage_buffers_per_shader_stage;
    (have < need).then(|| {
        format!(
            "the adapter allows {have} storage buffers per shader stage; the cull pass \
             with splats{} needs {need}",
            if occlusion {
                " and occlusion culling"
            } else {
                ""
            }
        )
    })
}

/// The next planes' generation: unique over every `Splats`, so that the
/// cull pass never keeps the planes of a `Splats` made before new targets.
static NEXT_PLANES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// What a frame's splats are drawn for.
#[derive(Clone, Copy, Debug)]
pub struct SplatView {
    /// The target's size in pixels.
    pub size: (u32, u32),
    /// The scene's part of it: x, y, width, height.
    pub viewport: [f32; 4],
    /// The splat switch: spheres up to this many pixels across.
    pub max_px: f32,
    /// The camera's near and far planes.
    pub planes: (f32, f32),
}

/// The planes for one target size and the group drawing them.
struct Planes {
    buffer: wgpu::Buffer,
    group: wgpu::BindGroup,
    pixels: u32,
}

pub struct Splats {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    planes: Option<Planes>,
    /// The atlas's sums (each model's colour) and cells over its frames.
    sums: wgpu::Buffer,
    frame_cells: Vec<u32>,
    /// Which planes these are, unique in the process (the cull pass's
    /// group follows it, across `Splats` made again for new targets).
    pub generation: u64,
    /// The header of the last frame.
    pub header: SplatHeader,
    /// Whether the scene pass draws the planes (off: the cull pass still
    /// writes them; tests compare the scene without them).
    pub drawn: bool,
}

impl Splats {
    /// The splat level of `atlas`'s models drawn into `targets`.
    pub fn new(
        device: &wgpu::Device,
        atlas: &ImpostorAtlas,
        targets: &Targets,
        frame_layout: &wgpu::BindGroupLayout,
    ) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("splat planes layout"),
            entries: &[fullscreen::storage(0)],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("splat pipeline layout"),
            bind_group_layouts: &[Some(frame_layout), Some(&layout)],
            immediate_size: 0,
        });
        let module = shaders::SPLAT_RESOLVE.create(device);
        // Blended by the pixel's coverage (shaders/splat_resolve.wgsl
        // says why not alpha to coverage); the target's alpha stays opaque.
        let mut colour = targets.color_targets(Some(wgpu::BlendState::ALPHA_BLENDING));
        if let Some(c) = colour[0].as_mut() {
            c.write_mask = wgpu::ColorWrites::COLOR;
        }
        let entry = targets.fragment_entry("fs_splat");
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("splat pipeline"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: Some(targets.depth_state(true)),
            multisample: targets.multisample(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some(&entry),
                compilation_options: Default::default(),
                targets: &colour,
            }),
            multiview_mask: None,
            cache: None,
        });
        Self {
            pipeline,
            layout,
            planes: None,
            sums: atlas.bounds.sums.clone(),
            frame_cells: atlas.bounds.frame_cells.clone(),
            generation: 0,
            header: SplatHeader::default(),
            drawn: true,
        }
    }

    /// Before the camera's cull: planes for `view`'s size (made again, with
    /// the atlas's sums, when the size changed), emptied, with this frame's
    /// header.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        view: SplatView,
    ) {
        let (width, height) = view.size;
        self.header =
            SplatHeader::new(width, height, view.viewport, view.max_px, &self.frame_cells);
        self.header.planes = [view.planes.0, view.planes.1, 0.0, 0.0];
        let pixels = self.header.pixels;
        if self.planes.as_ref().is_none_or(|p| p.pixels != pixels) {
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("splat planes"),
                size: self.header.bytes(),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::INDIRECT
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let group = bind_group(
                device,
                "splat planes",
                &self.layout,
                &[(0, buffer.as_entire_binding())],
            );
            // The atlas's sums, once: the atlas is drawn before the planes
            // are made, and the frames' clears start after them.
            encoder.copy_buffer_to_buffer(
                &self.sums,
                0,
                &buffer,
                SUMS_OFFSET,
                PLANES_OFFSET - SUMS_OFFSET,
            );
            self.planes = Some(Planes {
                buffer,
                group,
                pixels,
            });
            self.generation = NEXT_PLANES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        let Some(planes) = &self.planes else { return };
        queue.write_buffer(&planes.buffer, 0, bytemuck::bytes_of(&self.header));
        // No vertices until the cull pass writes a splat; one instance.
        let header = std::mem::size_of::<SplatHeader>() as u64;
        queue.write_buffer(
            &planes.buffer,
            header,
            bytemuck::cast_slice(&[0u32, 1, 0, 0]),
        );
        encoder.clear_buffer(&planes.buffer, PLANES_OFFSET, None);
    }

    /// The planes the cull pass writes (after `prepare`).
    pub fn buffer(&self) -> Option<&wgpu::Buffer> {
        self.planes.as_ref().map(|p| &p.buffer)
    }

    /// Draws the planes into the scene pass (last: it blends over the
    /// crowd, the ground and the sky).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        let Some(planes) = self.planes.as_ref().filter(|_| self.drawn) else {
            return;
        };
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(1, &planes.group, &[]);
        pass.draw_indirect(&planes.buffer, std::mem::size_of::<SplatHeader>() as u64);
    }

    /// The planes read back: key, coverage, red, green, blue (tests).
    pub fn read_planes(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Vec<u32>, crate::gpu::GpuError> {
        let Some(planes) = &self.planes else {
            return Ok(Vec::new());
        };
        let bytes = planes.buffer.size() - PLANES_OFFSET;
        gpu.read_words(&planes.buffer, PLANES_OFFSET, bytes)
    }

    /// The vertices the full-screen pass's indirect draw had last frame: 3
    /// when the cull pass wrote a splat, else 0 (tests).
    pub fn read_draw_vertices(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<u32, crate::gpu::GpuError> {
        let Some(planes) = &self.planes else {
            return Ok(0);
        };
        let header = std::mem::size_of::<SplatHeader>() as u64;
        Ok(gpu.read_words::<u32>(&planes.buffer, header, 4)?[0])
    }

    /// GPU bytes of the planes.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.planes.as_ref().map_or(0, |p| p.buffer.size())
    }
}
