//! The shadow casters the camera does not draw: per cascade, the casters
//! its lists hold whose instance is in neither of the camera's lists this
//! frame (outside the camera's view, or hidden by occlusion culling). No
//! rule that culls casters by what the camera sees could remove more: a
//! caster the camera draws may shadow what shows of itself. Read back
//! whole, waiting for the GPU (benchmarks and tests, never per frame).

use crate::crowd::cull::INDEX_MASK;
use crate::gpu::GpuError;
use crate::render::Renderer;
use crate::render::passes::techniques::ARGS_WORDS;

/// One cascade's casters that the camera did not draw, and their
/// triangles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UnseenCasters {
    pub casters: u32,
    pub triangles: u64,
}

impl Renderer {
    /// Per cascade in use, nearest first, the casters of the last frame the
    /// camera did not draw. Empty with shadows off, or when the camera's
    /// view or a cascade was not culled (every instance drawn: nothing to
    /// compare).
    pub fn unseen_casters(&self) -> Result<Vec<UnseenCasters>, GpuError> {
        let targets = self.shadows.cascade_targets();
        if !self.shadows.settings.enabled
            || !self.culler.culled()
            || !targets.iter().all(|t| t.culled())
        {
            return Ok(Vec::new());
        }
        let camera = self.culler.read_lists(&self.gpu)?;
        let mut drawn = vec![false; self.data.crowd.count() as usize];
        for &entry in camera.entries.iter().flatten() {
            if let Some(d) = drawn.get_mut((entry & INDEX_MASK) as usize) {
                *d = true;
            }
        }
        targets
            .iter()
            .map(|target| {
                let lists = target.read_lists(&self.gpu)?;
                Ok(unseen_in(&lists, &drawn))
            })
            .collect()
    }
}

/// The entries of `lists` whose instance `drawn` does not mark, and their
/// triangles (each region's index count over three).
fn unseen_in(lists: &crate::render::passes::cull::VisibleLists, drawn: &[bool]) -> UnseenCasters {
    let mut out = UnseenCasters::default();
    for (r, entries) in lists.entries.iter().enumerate() {
        let triangles = u64::from(lists.args.get(r * ARGS_WORDS).copied().unwrap_or(0) / 3);
        for &entry in entries {
            let seen = drawn.get((entry & INDEX_MASK) as usize).copied();
            if seen != Some(true) {
                out.casters += 1;
                out.triangles += triangles;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::passes::cull::VisibleLists;

    #[test]
    fn counts_the_entries_the_camera_did_not_draw_with_their_regions_triangles() {
        // Two regions: 30 indices (10 triangles), then an impostor quad.
        let mut args = vec![0; 2 * ARGS_WORDS];
        args[0] = 30;
        args[ARGS_WORDS] = 6;
        let level = 1 << 28;
        let lists = VisibleLists {
            args,
            entries: vec![vec![0, 1, 2], vec![3 | level, 4 | level]],
        };
        let drawn = [true, false, true, false, true];
        let unseen = unseen_in(&lists, &drawn);
        assert_eq!(
            unseen,
            UnseenCasters {
                casters: 2,
                triangles: 10 + 2
            }
        );
        let all = unseen_in(&lists, &[true; 5]);
        assert_eq!(all, UnseenCasters::default());
    }
}
