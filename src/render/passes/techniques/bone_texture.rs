//! The baked bone texture ("animation instancing"): every frame's palette
//! baked once into an RGBA32F texture ([`BoneTexture`]); the vertex shader
//! fetches the two neighbouring frames' four joint matrices, lerps and
//! blends them. No per-frame CPU work; memory scales with joints × frames,
//! not vertices.

use crate::render::data::model_gpu::ModelGpu;
use crate::render::data::skin_data::SkinData;
use crate::render::passes::techniques::{CrowdDraw, CrowdPass, CrowdPipelines};
use crate::render::passes::techniques::skinning::skin_layout;
use crate::render::config::RenderError;
use crate::render::passes::techniques::{BuildContext, CrowdGroup, FrameContext, Prepared, Technique, TechniqueKind, clip_buffer, draw_crowd};
use crate::render::util::pipeline::{bind_group, texture_entry};
use crate::render::passes::techniques::members::{bake_bones, bone_clip_table};
use crate::bones::BoneError;
use wgpu::util::DeviceExt;

/// The bone texture on the GPU (RGBA32F, one mip).
pub fn upload_bones(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    bones: &crate::bones::BoneTexture,
    label: &'static str,
) -> wgpu::Texture {
    device.create_texture_with_data(
        queue,
        &wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: bones.width,
                height: bones.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba32Float,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        bones.bytes(),
    )
}

pub struct BoneTextureTechnique {
    /// Kept so the texture lives as long as the technique (the bind group
    /// reads it).
    _texture: wgpu::Texture,
    skin: SkinData,
    clip_table: wgpu::Buffer,
    layout: wgpu::BindGroupLayout,
    group: wgpu::BindGroup,
    pipelines: CrowdPipelines,
    crowd: CrowdGroup,
    texture_bytes: u64,
}

impl BoneTextureTechnique {
    fn new(ctx: &BuildContext<'_>) -> Result<Self, BoneError> {
        let device = ctx.device;
        let max = ctx.caps.max_texture_dimension_2d;
        let bones = bake_bones(ctx.members, max)?;
        let texture = upload_bones(device, ctx.queue, &bones, "bone texture");
        // The VAT's table with each clip's first row in the bone texture.
        let table = bone_clip_table(ctx.clip_table, &bones);
        let clip_table = clip_buffer(device, "bone texture clip table", &table);
        let skin = SkinData::new(device, ctx.members, "bone texture skin data");
        let layout = skin_layout(device, "bone texture layout", texture_entry(10), false);
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("bone texture view"),
            ..Default::default()
        });
        let group = bind_group(
            device,
            "bone texture bind group",
            &layout,
            &[
                (10, wgpu::BindingResource::TextureView(&view)),
                (1, skin.vertices.as_entire_binding()),
                (2, clip_table.as_entire_binding()),
            ],
        );
        let (crowd, pipelines) = ctx.crowd_pipeline("bone texture", TechniqueKind::BoneTexture.crowd_module(), &layout);
        Ok(Self {
            texture_bytes: bones.bytes().len() as u64,
            _texture: texture,
            skin,
            clip_table,
            layout,
            group,
            pipelines,
            crowd,
        })
    }
}

impl Technique for BoneTextureTechnique {
    fn build(ctx: &BuildContext<'_>) -> Result<Self, RenderError> {
        Ok(Self::new(ctx)?)
    }

    fn kind(&self) -> TechniqueKind {
        TechniqueKind::BoneTexture
    }

    fn prepare(&mut self, ctx: &FrameContext<'_>) -> Prepared {
        self.crowd.prepare_gpu_only(ctx)
    }

    fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        model: &ModelGpu,
        draw: &CrowdDraw<'_>,
        which: CrowdPass,
    ) {
        draw_crowd(pass, self.pipelines.get(which), &self.group, &self.crowd, model, draw);
    }

    fn group(&self) -> Option<(&wgpu::BindGroupLayout, &wgpu::BindGroup)> {
        Some((&self.layout, &self.group))
    }

    fn gpu_memory_bytes(&self) -> u64 {
        self.texture_bytes + self.skin.bytes + self.clip_table.size()
    }

    fn ignores_morphs(&self) -> bool {
        true
    }
}
