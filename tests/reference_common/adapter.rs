//! How the reference frames make and drive a renderer: the one part of
//! the matrix that follows the renderer's interface.

use super::{Record, SEED, SIZE, TIMES, fnv1a, settings};
use stampede::crowd::BehaviourSettings;
use stampede::crowd::cull::CullSettings;
use stampede::crowd::motion::Aa;
use stampede::crowd::setup::Loaded;
use stampede::gpu::GpuContext;
use stampede::render::data::models::SceneModel;
use stampede::render::headless::{self, Headless, RgbaImage};
use stampede::render::passes::targets::TargetOptions;
use stampede::render::{RendererConfig, TechniqueKind};
use std::sync::Arc;

/// A renderer of a scenario (each model plays its loaded clip).
pub struct Drawn {
    view: Headless,
}

impl Drawn {
    pub fn new(
        gpu: &Arc<GpuContext>,
        models: &[(&Loaded, u32)],
        behaviour: BehaviourSettings,
        aa: Aa,
    ) -> Self {
        let (first, count) = models[0];
        let mut config =
            RendererConfig::for_model(first, SIZE.0, SIZE.1, count, SEED, headless::FORMAT);
        config.behaviour = behaviour;
        config.targets = TargetOptions {
            aa,
            ..TargetOptions::default()
        };
        let mut view = if models.len() == 1 {
            Headless::new(gpu.clone(), &first.model, &first.vat, &config)
        } else {
            let scene: Vec<SceneModel<'_>> = models
                .iter()
                .map(|&(loaded, count)| SceneModel { loaded, count })
                .collect();
            Headless::from_scene(gpu.clone(), &scene, &config)
        }
        .expect("the renderer is built");
        view.camera = view.renderer.camera_at(TIMES[0], 1.0);
        Self { view }
    }

    /// Two frames of `kind` with `cull` and `shadows`: the second's
    /// record and picture.
    pub fn draw(
        &mut self,
        kind: TechniqueKind,
        cull: CullSettings,
        shadows: bool,
    ) -> (Record, Option<RgbaImage>) {
        let r = &mut self.view.renderer;
        let refused = r.set_technique(kind).err().map(|e| e.to_string());
        r.set_cull_settings(cull);
        let mut s = r.shadow_settings();
        s.enabled = shadows;
        r.set_shadow_settings(s);
        self.view.draw_frame(&settings(0)).expect("the first frame");
        let image = self.view.render(&settings(1)).expect("the second frame");
        let r = &mut self.view.renderer;
        let cull = r.wait_for_cull_stats();
        let pass = r.wait_for_pass_stats();
        let costs = r.costs();
        let regions = cull.levels as usize + 1;
        let record = Record {
            picture: match refused {
                Some(why) => format!("{} (refused: {why})", fnv1a(&image.pixels)),
                None => fnv1a(&image.pixels),
            },
            drawn: costs.drawn,
            requested: costs.requested,
            draw_calls: costs.draw_calls,
            upload_bytes: costs.upload_bytes,
            technique: costs.kind.name().into(),
            visible: cull.visible[..regions].to_vec(),
            triangles: cull.triangles[..regions].to_vec(),
            occluded: cull.occluded,
            model_visible: cull.model_visible.to_vec(),
            cascades: r
                .shadow_stats()
                .iter()
                .map(|c| c.map_or((0, 0), |c| (c.visible_total(), c.triangles_total())))
                .collect(),
            pass: pass.map(|p| (p.instances, p.vertices)),
        };
        (record, Some(image))
    }
}
