//! A scene's impostor atlas: each model's atlas drawn as for a model
//! alone (`ImpostorAtlas::build`), then copied, every mip level, into one
//! pair of textures, its rows of cells where `impostor::SceneAtlasPlan`
//! puts them, so that one draw of the impostor regions reads every model's
//! far field. Each model gets its own `AtlasParams` (its cells, sphere and
//! views, the shared layer size, its first layer there); its clips' frames
//! are counted from that layer, as in its own atlas.

use crate::Model;
use crate::gpu::GpuContext;
use crate::impostor::{AtlasLayout, ModelPlace, SceneAtlasPlan};
use crate::render::data::gpu_data::{AtlasClipGpu, AtlasParamsGpu};
use crate::render::data::model_gpu::ModelGpu;
use crate::render::passes::impostor::atlas::{
    AtlasError, ImpostorAtlas, array_view, fits, textures,
};
use crate::render::passes::impostor::bounds::AtlasBounds;
use crate::vat::Vat;
use std::sync::Arc;
use web_time::Instant;
use wgpu::util::DeviceExt;

/// What one model's atlas is drawn from: its layout, its own VAT, and its
/// own vertices with the indices of its mesh levels.
pub struct AtlasSource<'a> {
    pub layout: Arc<AtlasLayout>,
    pub vat: &'a Vat,
    pub model: &'a Model,
    pub indices: &'a [u32],
}

impl ImpostorAtlas {
    /// Draws every model's atlas from its own data (a model's vertices
    /// uploaded for the time of its drawing), then combines them.
    pub fn build_scene(gpu: &GpuContext, sources: &[AtlasSource<'_>]) -> Result<Self, AtlasError> {
        let parts = sources
            .iter()
            .map(|s| {
                let model = ModelGpu::new(&gpu.device, &gpu.queue, &[s.model], s.indices);
                Self::build(gpu, s.layout.clone(), s.vat, &model)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::combine(gpu, parts)
    }

    /// One atlas of every model's `parts` (in the crowd's model order; one
    /// part: that atlas as it is).
    pub fn combine(gpu: &GpuContext, mut parts: Vec<ImpostorAtlas>) -> Result<Self, AtlasError> {
        if parts.len() == 1 {
            return Ok(parts.remove(0));
        }
        let started = Instant::now();
        let layouts: Vec<_> = parts.iter().map(|p| p.layout.as_ref()).collect();
        let plan = SceneAtlasPlan::plan(&layouts);
        let (width, height) = plan.layer_size;
        fits(&gpu.caps, plan.layer_size, plan.layers)?;
        let device = &gpu.device;
        let [albedo, normal_depth] = textures(device, plan.layer_size, plan.layers, plan.mips);
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("scene impostor atlas"),
        });
        let bound_parts: Vec<_> = parts
            .iter()
            .map(|p| (&p.bounds, p.layout.as_ref()))
            .collect();
        let (bounds, first_bounds) =
            AtlasBounds::concat(device, &gpu.queue, &mut encoder, &bound_parts);
        let mut params = Vec::with_capacity(parts.len());
        let mut clips = Vec::new();
        for ((part, place), &first_bound) in parts.iter().zip(&plan.models).zip(&first_bounds) {
            let layout = &part.layout;
            for frame in 0..layout.layers {
                for (rows, to_layer, y) in strip_runs(place, frame) {
                    let from_y = rows.start * place.cell;
                    let run_height = rows.len() as u32 * place.cell;
                    for mip in 0..layout.mips() {
                        for (from, to) in
                            [(&part.albedo, &albedo), (&part.normal_depth, &normal_depth)]
                        {
                            encoder.copy_texture_to_texture(
                                wgpu::TexelCopyTextureInfo {
                                    texture: from,
                                    mip_level: mip,
                                    origin: wgpu::Origin3d {
                                        x: 0,
                                        y: from_y >> mip,
                                        z: frame,
                                    },
                                    aspect: wgpu::TextureAspect::All,
                                },
                                wgpu::TexelCopyTextureInfo {
                                    texture: to,
                                    mip_level: mip,
                                    origin: wgpu::Origin3d {
                                        x: 0,
                                        y: y >> mip,
                                        z: to_layer,
                                    },
                                    aspect: wgpu::TextureAspect::All,
                                },
                                wgpu::Extent3d {
                                    width: (layout.layer_size().0 >> mip).max(1),
                                    height: (run_height >> mip).max(1),
                                    depth_or_array_layers: 1,
                                },
                            );
                        }
                    }
                }
            }
            params.push(AtlasParamsGpu {
                first_layer: place.first_layer,
                layer_width: width as f32,
                layer_height: height as f32,
                first_bound,
                ..AtlasParamsGpu::new(layout)
            });
            clips.extend(AtlasClipGpu::table(layout));
        }
        gpu.queue.submit([encoder.finish()]);
        gpu.wait_idle("the scene's impostor atlas")?;
        let buffer = |label, contents: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        let copy_ms = started.elapsed().as_secs_f64() * 1e3;
        Ok(Self {
            layout: parts[0].layout.clone(),
            models: parts
                .iter()
                .zip(&plan.models)
                .map(|(p, place)| (p.layout.clone(), place.first_layer))
                .collect(),
            layer_size: plan.layer_size,
            layers: plan.layers,
            albedo_view: array_view(&albedo, "scene impostor albedo view"),
            normal_view: array_view(&normal_depth, "scene impostor normal view"),
            albedo,
            normal_depth,
            params: buffer("scene impostor atlas params", bytemuck::cast_slice(&params)),
            bounds,
            clips: buffer("scene impostor atlas clips", bytemuck::cast_slice(&clips)),
            bytes: plan.bytes(),
            build_ms: parts.iter().map(|p| p.build_ms).sum::<f64>() + copy_ms,
            samples: parts.iter().map(|p| p.samples).min().unwrap_or(1),
        })
    }
}

/// Frame `frame`'s rows of cells as they fall in the scene's layers: runs
/// of rows that lie one under another in one layer, each with that layer
/// and the texel row the run starts at (one copy per run and mip level).
fn strip_runs(place: &ModelPlace, frame: u32) -> Vec<(std::ops::Range<u32>, u32, u32)> {
    let mut runs: Vec<(std::ops::Range<u32>, u32, u32)> = Vec::new();
    for row in 0..place.rows {
        let (layer, y) = place.place(frame, row);
        match runs.last_mut() {
            Some((rows, l, start))
                if *l == layer && *start + rows.len() as u32 * place.cell == y =>
            {
                rows.end = row + 1;
            }
            _ => runs.push((row..row + 1, layer, y)),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_copied_in_one_run_per_layer_it_falls_in() {
        // Five rows, seven strips a layer: frame 0 in layer 0, frame 1
        // rows 0-1 at the foot of layer 0 and 2-4 at the head of layer 1.
        let place = ModelPlace {
            first_layer: 3,
            layers: 2,
            strips: 7,
            rows: 5,
            cell: 32,
        };
        assert_eq!(strip_runs(&place, 0), vec![(0..5, 3, 0)]);
        assert_eq!(strip_runs(&place, 1), vec![(0..2, 3, 160), (2..5, 4, 0)]);
    }
}
