//! What the panel's culling section says of the impostor atlas: its
//! layout, memory and build time, for one model or a scene's shared
//! textures.

/// What the section says of the impostor atlas.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AtlasView {
    pub layers: u32,
    pub cells: u32,
    pub cell: u32,
    pub bytes: u64,
    /// Milliseconds the GPU took to draw it; `None` before it was drawn.
    pub build_ms: Option<f64>,
    /// Why there is none.
    pub error: Option<String>,
    /// Models whose atlases it holds (a scene's share the textures).
    pub models: u32,
}

impl AtlasView {
    /// What `renderer` has of its atlas.
    pub fn of(renderer: &crate::render::Renderer) -> Self {
        let layout = renderer.impostor_layout();
        let mut view = Self {
            layers: layout.layers,
            cells: layout.cells(),
            cell: layout.cell,
            bytes: layout.bytes(),
            build_ms: renderer.impostor_atlas().map(|a| a.build_ms),
            error: renderer.impostor_error.clone(),
            models: 1,
        };
        let scene = renderer.scene();
        if scene.models.len() > 1 {
            let layouts: Vec<_> = scene.models.iter().map(|m| m.impostor.as_ref()).collect();
            let plan = crate::impostor::SceneAtlasPlan::plan(&layouts);
            view.layers = plan.layers;
            view.bytes = plan.bytes();
            view.models = layouts.len() as u32;
        }
        view
    }

    /// What the atlas is: its layers, views and memory.
    pub fn describe(&self) -> String {
        let mib = self.bytes as f64 / (1024.0 * 1024.0);
        if self.models > 1 {
            format!(
                "impostor atlas of {} models: {} layers, {mib:.1} MiB",
                self.models, self.layers
            )
        } else {
            format!(
                "impostor atlas: {} layers × {} views of {}², {mib:.1} MiB",
                self.layers, self.cells, self.cell
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenes_atlas_is_described_by_its_models() {
        let one = AtlasView {
            layers: 44,
            cells: 60,
            cell: 32,
            bytes: 28 << 20,
            models: 1,
            ..AtlasView::default()
        };
        assert_eq!(
            one.describe(),
            "impostor atlas: 44 layers × 60 views of 32², 28.0 MiB"
        );
        let scene = AtlasView {
            layers: 112,
            models: 3,
            bytes: 80 << 20,
            ..one
        };
        assert_eq!(
            scene.describe(),
            "impostor atlas of 3 models: 112 layers, 80.0 MiB"
        );
    }
}
