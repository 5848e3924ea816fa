//! The crowd's models changed live: each model's count and clip, from the
//! next frame, without building the renderer again.

use crate::crowd::CountError;
use crate::render::Renderer;
use crate::render::data::models::{SceneState, share_count};

impl Renderer {
    /// The crowd's models, their table and fields.
    pub fn scene(&self) -> &SceneState {
        &self.scene
    }

    /// Changes the clip model `model`'s instances play with behaviour off
    /// (`None`: each its own), from the next frame.
    pub fn set_clip(&mut self, model: usize, clip: Option<u32>) {
        if let Some(m) = self.scene.models.get_mut(model)
            && m.clip != clip
        {
            m.clip = clip;
            self.scene.replan();
            self.motion.jump();
        }
    }

    /// Changes each model's instances: the crowd buffer, the model table,
    /// the fields and the herd and flock follow.
    pub fn set_counts(&mut self, counts: &[u32]) -> Result<(), CountError> {
        if counts.len() != self.scene.models.len() {
            return Err(CountError::Counts {
                given: counts.len(),
                models: self.scene.models.len(),
            });
        }
        if counts.len() > 1 && counts.contains(&0) {
            return Err(CountError::FewerThanModels {
                given: counts.iter().sum(),
                models: counts.len(),
            });
        }
        if counts == self.data.crowd.counts() {
            return Ok(());
        }
        check_counts(&self.gpu, &self.culler, &self.scene.models, counts)?;
        self.data
            .crowd
            .set_counts(&self.gpu.device, &self.gpu.queue, counts)?;
        for (m, &count) in self.scene.models.iter_mut().zip(counts) {
            m.count = count;
        }
        self.scene.replan();
        self.layout = self.scene.frame_spec();
        self.data.behaviour.set_counts(&self.scene.table);
        Ok(())
    }

    /// Changes the crowd's count: one model's, or every model's in
    /// proportion to what it has (each keeps at least one).
    pub fn set_count(&mut self, count: u32) -> Result<(), CountError> {
        let models = self.data.crowd.counts().len();
        if models > 1 && count < models as u32 {
            return Err(CountError::FewerThanModels {
                given: count,
                models,
            });
        }
        let counts = share_count(self.data.crowd.counts(), count);
        self.set_counts(&counts)
    }
}

/// What a crowd of `counts` (one per model of `models`) must pass before
/// anything is allocated for it, at creation and live: a flock of at most
/// `crowd::MAX_FLOCK` birds, instances the device's binding holds, and
/// visible lists it holds. Returns the crowd's total.
pub(super) fn check_counts(
    gpu: &crate::gpu::GpuContext,
    culler: &crate::render::Culler,
    models: &[crate::render::data::models::CrowdModel],
    counts: &[u32],
) -> Result<u32, CountError> {
    crate::crowd::validate_flock(crate::render::data::models::flock_birds(models, counts))?;
    let total = crate::crowd::validate_count(
        counts.iter().map(|&c| c as u64).sum(),
        gpu.caps.max_storage_buffer_binding_size,
    )?;
    culler.check_count(total)?;
    Ok(total)
}
