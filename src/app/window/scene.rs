//! The panel's scene list applied to the running viewer: the models drawn
//! now as rows, and a new list built into a new renderer. Models already
//! loaded are kept (not baked again); new ones are loaded in parallel, and
//! one that fails is named while the others run.

use super::Running;
use crate::app::scene_ui::{SceneRow, refusal};
use crate::crowd::scene_spec::{SceneEntry, SceneSpec, load_scene};
use crate::crowd::setup::Loaded;
use crate::render::Renderer;
use crate::render::data::models::SceneModel;

/// Where a row's model comes from.
enum Source {
    /// The first model loaded now (`Running::prepared`).
    First,
    /// `Running::scene_rest[i]`.
    Rest(usize),
    /// Loaded for this list.
    New(usize),
}

impl Running {
    /// The list `entries` (`MODEL:COUNT`) applied as the panel's Apply
    /// applies its draft (the window test's `--test-scene`).
    pub(super) fn test_scene(&mut self, entries: &[String]) {
        match SceneSpec::from_args(entries, None) {
            Ok(spec) => {
                self.ui.scene.draft = Some(
                    spec.entries
                        .into_iter()
                        .map(|e| SceneRow {
                            choice: e.choice,
                            count: e.count,
                        })
                        .collect(),
                );
                self.apply(crate::app::ui::Action::ApplyScene);
            }
            Err(e) => self.message = Some(e.to_string()),
        }
    }

    /// Each model's bake and LOD figures, in the order of
    /// [`Self::scene_rows`].
    pub(super) fn scene_info(&self) -> Vec<String> {
        std::iter::once(&self.prepared)
            .chain(self.scene_rest.iter().map(|(l, _)| l))
            .map(|l| {
                let levels = &l.lod.levels;
                format!(
                    "{} vertices, {} clips, VAT {:.1} MiB, baked in {:.0} ms; {} levels down to {} triangles",
                    l.model.vertex_count(),
                    l.vat.clips.len(),
                    l.vat.total_bytes() as f64 / (1 << 20) as f64,
                    l.vat.bake_ms,
                    levels.len(),
                    levels.last().map_or(0, |x| x.triangles())
                )
            })
            .collect()
    }

    /// The models drawn now, each with its count.
    pub(super) fn scene_rows(&self) -> Vec<SceneRow> {
        std::iter::once(&self.prepared)
            .chain(self.scene_rest.iter().map(|(l, _)| l))
            .zip(self.renderer.crowd().counts())
            .map(|(l, &count)| SceneRow {
                choice: l.choice.clone(),
                count,
            })
            .collect()
    }

    /// Rebuilds the crowd as `rows` list (the same technique, settings,
    /// seed and scene time); on failure what ran keeps running.
    pub(super) fn apply_scene(&mut self, rows: &[SceneRow]) -> anyhow::Result<()> {
        if let Some(why) = refusal(rows) {
            anyhow::bail!("{why}");
        }
        // The same models in the same order: only the counts change, live.
        let drawn = std::iter::once(&self.prepared.choice)
            .chain(self.scene_rest.iter().map(|(l, _)| &l.choice));
        if rows.len() == 1 + self.scene_rest.len() && rows.iter().map(|r| &r.choice).eq(drawn) {
            let counts: Vec<u32> = rows.iter().map(|r| r.count).collect();
            self.renderer.set_counts(&counts)?;
            for ((_, count), &c) in self.scene_rest.iter_mut().zip(&counts[1..]) {
                *count = c;
            }
            self.ui.count = self.renderer.crowd().count();
            return Ok(());
        }
        let known = |row: &SceneRow| {
            if row.choice == self.prepared.choice {
                return Some(Source::First);
            }
            (self.scene_rest.iter())
                .position(|(l, _)| l.choice == row.choice)
                .map(Source::Rest)
        };
        let wanted = SceneSpec {
            entries: rows
                .iter()
                .filter(|r| known(r).is_none())
                .map(|r| SceneEntry {
                    choice: r.choice.clone(),
                    count: r.count,
                })
                .collect(),
        };
        let load = load_scene(
            &wanted,
            self.prepared.vat.fps,
            self.ui.precision,
            &[],
            self.ui.motion,
        );
        let failed: Vec<String> = (load.failed.iter())
            .map(|(name, e)| format!("{name}: {e}"))
            .collect();
        for f in &failed {
            log::warn!("left out of the scene: {f}");
        }
        let mut fresh: Vec<Option<Loaded>> =
            load.loaded.into_iter().map(|(l, _)| Some(l)).collect();
        let mut next_new = 0;
        let plan: Vec<(Source, u32)> = rows
            .iter()
            .filter_map(|r| match known(r) {
                Some(source) => Some((source, r.count)),
                None if fresh
                    .get(next_new)
                    .is_some_and(|l| l.as_ref().is_some_and(|l| l.choice == r.choice)) =>
                {
                    next_new += 1;
                    Some((Source::New(next_new - 1), r.count))
                }
                None => None,
            })
            .collect();
        if plan.is_empty() {
            anyhow::bail!(
                "no model of the list could be loaded:\n{}",
                failed.join("\n")
            );
        }
        let renderer = {
            let model = |s: &Source| -> &Loaded {
                match s {
                    Source::First => &self.prepared,
                    Source::Rest(i) => &self.scene_rest[*i].0,
                    Source::New(i) => fresh[*i].as_ref().expect("loaded"),
                }
            };
            let models: Vec<SceneModel<'_>> = plan
                .iter()
                .map(|(s, count)| SceneModel {
                    loaded: model(s),
                    count: *count,
                })
                .collect();
            let size = (self.config.width.max(1), self.config.height.max(1));
            let config = self.renderer_config(models[0].loaded, size, models[0].count);
            Renderer::from_scene(self.gpu.clone(), &models, &config)?
        };
        // The models move into the new order; those left out are dropped.
        let mut rest: Vec<Option<Loaded>> = std::mem::take(&mut self.scene_rest)
            .into_iter()
            .map(|(l, _)| Some(l))
            .collect();
        let mut slots: Vec<Option<Loaded>> = plan
            .iter()
            .map(|(source, _)| match source {
                Source::First => None,
                Source::Rest(i) => rest[*i].take(),
                Source::New(i) => fresh[*i].take(),
            })
            .collect();
        if let Some(new_first) = slots[0].take() {
            let old = std::mem::replace(&mut self.prepared, new_first);
            if let Some(k) = plan.iter().position(|(s, _)| matches!(s, Source::First)) {
                slots[k] = Some(old);
            }
        }
        self.scene_rest = slots
            .into_iter()
            .zip(&plan)
            .skip(1)
            .filter_map(|(l, (_, count))| Some((l?, *count)))
            .collect();
        self.renderer = renderer;
        self.message = (!failed.is_empty()).then(|| failed.join("\n"));
        self.finish_rebuild();
        let names: Vec<String> = self.scene_rows().iter().map(|r| r.choice.label()).collect();
        self.window
            .set_title(&format!("Stampede — {}", names.join(", ")));
        Ok(())
    }
}
