//! The shadow casters the camera did not draw (`Renderer::unseen_casters`,
//! bench's `shadow_casters_unseen`): with occlusion culling off they are,
//! cascade by cascade, the casters the CPU twin of the camera's cull
//! (`CullUniform::cull`) leaves out of the view; with it on in a dense
//! herd, those and the hidden ones: more, and never more than the casters.

mod gpu_common;
use gpu_common as common;

use stampede::crowd::cull::{CullSettings, INDEX_MASK};
use stampede::crowd::setup::{ModelChoice, load};
use stampede::crowd::{BehaviourSettings, FrameSettings};
use stampede::render::headless::{self, Headless};
use stampede::render::{RendererConfig, UnseenCasters};
use stampede::vat::Precision;

const SEED: u64 = 5;

#[test]
fn the_unseen_casters_are_those_out_of_view_then_also_the_hidden() {
    let Some(gpu) = common::gpu_or_skip("unseen casters") else {
        return;
    };
    let loaded = load(&ModelChoice::Horse, 30.0, Precision::F16, None).expect("the model bakes");
    let mut config = RendererConfig::for_model(&loaded, 192, 108, 3000, SEED, headless::FORMAT);
    config.clip = None;
    config.behaviour = BehaviourSettings::on();
    let mut v = Headless::new(gpu, &loaded.model, &loaded.vat, &config).expect("renderer");
    // At eye level inside the herd: casters out of the camera's view whose
    // shadow reaches it, and many hidden behind the nearest horses.
    v.camera = common::inside_the_herd(&mut v.renderer);
    let s = FrameSettings {
        time: 2.0,
        ..FrameSettings::default()
    };
    let mut census = |occlusion: bool| {
        v.renderer.set_cull_settings(CullSettings {
            occlusion,
            ..CullSettings::default()
        });
        // Three frames: occlusion culling learns what is hidden.
        for _ in 0..3 {
            v.render(&s).expect("render");
        }
        let unseen = v.renderer.unseen_casters().expect("read back");
        let r = &v.renderer;
        let camera = r.culler().last_uniform().expect("the camera was culled");
        let casters: Vec<Vec<u32>> = r
            .shadows()
            .cascade_targets()
            .iter()
            .map(|t| {
                let lists = t.read_lists(&r.gpu).expect("read back");
                lists
                    .entries
                    .concat()
                    .iter()
                    .map(|e| e & INDEX_MASK)
                    .collect()
            })
            .collect();
        // Out of the camera's view by the CPU rule, cascade by cascade.
        let out_of_view: Vec<u32> = casters
            .iter()
            .map(|list| {
                let out = |&&i: &&u32| {
                    let (c, radius, scale) =
                        common::world_sphere(r, &loaded, camera.models[0].sphere, SEED, i);
                    camera.cull(c, radius, scale).is_none()
                };
                list.iter().filter(out).count() as u32
            })
            .collect();
        (unseen, casters, out_of_view)
    };

    let (unseen, casters, out_of_view) = census(false);
    eprintln!("occlusion off: unseen {unseen:?}, out of view {out_of_view:?}");
    assert_eq!(unseen.len(), casters.len(), "one count per cascade");
    assert!(out_of_view.iter().sum::<u32>() > 0, "casters out of view");
    for (c, (u, out)) in unseen.iter().zip(&out_of_view).enumerate() {
        // A sphere on the frustum's edge may round either way on the GPU.
        assert!(
            u.casters.abs_diff(*out) <= 2,
            "cascade {c}: {} unseen, {out} out of the view by the CPU rule",
            u.casters
        );
        assert_eq!(u.casters == 0, u.triangles == 0, "cascade {c}: {u:?}");
    }

    let (hidden, casters, out_of_view) = census(true);
    let lens: Vec<usize> = casters.iter().map(Vec::len).collect();
    eprintln!("occlusion on: unseen {hidden:?}, out of view {out_of_view:?}, casters {lens:?}");
    let total = |u: &[UnseenCasters]| u.iter().map(|u| u.casters).sum::<u32>();
    assert!(
        v.renderer.culler().occlusion_active(),
        "occlusion culling ran"
    );
    for (c, u) in hidden.iter().enumerate() {
        assert!(
            u.casters + 2 >= out_of_view[c],
            "cascade {c}: the out of view are unseen"
        );
    }
    assert!(
        total(&hidden) > out_of_view.iter().sum::<u32>(),
        "the herd hides casters: {} unseen, {} of them out of view",
        total(&hidden),
        out_of_view.iter().sum::<u32>()
    );
}
