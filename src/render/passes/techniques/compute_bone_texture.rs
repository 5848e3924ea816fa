//! Compute skinning from the baked bone texture: the skin pass of
//! [`ComputeSkinning`], with palettes made on the GPU instead of sampled on
//! the CPU. After the marking, one invocation per joint of each instance
//! the views draw lerps its two baked frames around the instance's clip
//! time (as the bone-texture technique does, `shaders/bones.wgsl`) into
//! the palette buffer the skinning reads. No CPU work or upload per
//! instance, and palettes only for what is drawn; the poses are the
//! bake's (lerped between baked frames), not exact skinning.

use crate::render::passes::techniques::compute_skinning::{ComputeSkinning, PaletteSource};
use crate::render::passes::techniques::palettes::PaletteSampler;
use crate::render::passes::techniques::{BuildContext, FrameContext, TechniqueKind, clip_buffer};
use crate::render::passes::techniques::bone_texture::upload_bones;
use crate::render::passes::techniques::members::{bake_bones, bone_clip_table};
use crate::gpu::compute_storage;
use crate::render::config::RenderError;
use crate::render::util::pipeline::{bind_group, texture_entry, uniform_entry};
use crate::render::data::skin_data::info_buffer;

/// Compute skinning from the bone texture.
pub type ComputeBoneTextureTechnique = ComputeSkinning<BonePalettes>;

/// The bone texture and the pass that makes palettes from it.
pub struct BonePalettes {
    /// Kept so the texture lives as long as the view the group reads.
    _texture: wgpu::Texture,
    view: wgpu::TextureView,
    /// The VAT's clip table with each clip's first row in the bone texture.
    clips: wgpu::Buffer,
    info: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
    group: Option<wgpu::BindGroup>,
    texture_bytes: u64,
}

impl PaletteSource for BonePalettes {
    const KIND: TechniqueKind = TechniqueKind::ComputeBoneTexture;

    fn new(ctx: &BuildContext<'_>, crowd_layout: &wgpu::BindGroupLayout) -> Result<Self, RenderError> {
        let device = ctx.device;
        let max = ctx.caps.max_texture_dimension_2d;
        let bones = bake_bones(ctx.members, max)?;
        let texture = upload_bones(device, ctx.queue, &bones, "compute bone texture");
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("compute bone texture view"),
            ..Default::default()
        });
        let table = bone_clip_table(ctx.clip_table, &bones);
        let compute = |entry: wgpu::BindGroupLayoutEntry| wgpu::BindGroupLayoutEntry {
            visibility: wgpu::ShaderStages::COMPUTE,
            ..entry
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("compute bone palettes layout"),
            entries: &[
                compute_storage(2, true),
                compute(uniform_entry(3)),
                compute_storage(7, false),
                compute(texture_entry(10)),
                compute_storage(11, false),
            ],
        });
        let module = Self::KIND.crowd_module().create(device);
        let pipeline = crate::render::util::pipeline::compute_pipeline(
            device,
            "compute bone palettes",
            &[Some(ctx.frame_layout), Some(&layout), Some(crowd_layout)],
            &module,
            "cs_skin_bone_palettes",
        );
        Ok(Self {
            texture_bytes: bones.bytes().len() as u64,
            _texture: texture,
            view,
            clips: clip_buffer(device, "compute bone clip table", &table),
            info: info_buffer(device, ctx.members),
            layout,
            pipeline,
            group: None,
        })
    }

    fn fill(&mut self, palettes: &mut PaletteSampler, ctx: &FrameContext<'_>, count: u32) -> (u64, bool) {
        (0, palettes.reserve(ctx, count))
    }

    /// The previous pose comes from the bone texture at the previous
    /// frame's clip times (the palettes this pass made last frame cover
    /// only what was drawn then).
    fn previous_pose_source(&self) -> Option<(&wgpu::Buffer, &wgpu::TextureView)> {
        Some((&self.clips, &self.view))
    }

    fn bind(&mut self, device: &wgpu::Device, state: &wgpu::Buffer, palettes: &wgpu::Buffer) {
        self.group = Some(bind_group(
            device,
            "compute bone palettes group",
            &self.layout,
            &[
                (2, self.clips.as_entire_binding()),
                (3, self.info.as_entire_binding()),
                (7, state.as_entire_binding()),
                (10, wgpu::BindingResource::TextureView(&self.view)),
                (11, palettes.as_entire_binding()),
            ],
        ));
    }

    fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        [frame, crowd]: [&wgpu::BindGroup; 2],
        instances: u32,
        joints: u32,
    ) {
        let Some(group) = &self.group else {
            return;
        };
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, frame, &[]);
        pass.set_bind_group(1, group, &[]);
        pass.set_bind_group(2, crowd, &[]);
        let threads = instances.saturating_mul(joints.max(1));
        pass.dispatch_workgroups(threads.div_ceil(64).clamp(1, 65_535), 1, 1);
    }

    fn gpu_bytes(&self) -> u64 {
        self.texture_bytes + self.clips.size() + self.info.size()
    }
}
