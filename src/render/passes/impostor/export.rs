//! The impostor atlas for `stampede bake`: drawn on a headless GPU from the
//! bake's own VAT and LOD chain, then read back layer by layer (the files
//! and the `vat.json` section are `formats::impostor`'s).

use crate::gpu::GpuContext;
use crate::impostor::AtlasLayout;
use crate::lod::LodChain;
use crate::model::Model;
use crate::render::data::model_gpu::ModelGpu;
use crate::render::passes::impostor::{AtlasError, ImpostorAtlas, LayerTexels};
use crate::vat::Vat;
use std::sync::Arc;

/// Draws the atlas `layout` (planned for `vat`, with its mesh level from
/// `chain`) and reads every layer's top mip level back.
pub fn draw_layers(
    gpu: &GpuContext,
    model: &Model,
    vat: &Vat,
    chain: &LodChain,
    layout: AtlasLayout,
) -> Result<(ImpostorAtlas, Vec<LayerTexels>), AtlasError> {
    let model_gpu = ModelGpu::new(&gpu.device, &gpu.queue, &[model], &chain.indices);
    let atlas = ImpostorAtlas::build(gpu, Arc::new(layout), vat, &model_gpu)?;
    let layers = (0..atlas.layout.layers)
        .map(|layer| atlas.read_layer(gpu, layer, 0))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((atlas, layers))
}
