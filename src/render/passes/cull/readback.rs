//! The cull pass's indirect arguments read back a frame or two late, never
//! stalling: a few small mappable copies used in turn.

use crate::crowd::cull::{MAX_LEVELS, MAX_REGIONS};
use crate::crowd::scene::MAX_SCENE_MODELS;
use crate::render::passes::cull::regions::RegionLayout;
use crate::render::passes::techniques::ARGS_WORDS;
use crate::render::util::mapped::MappedCopy;

/// One copy and the frame it came from (later readings win).
struct Slot {
    copy: MappedCopy,
    frame: u64,
}

/// What the GPU drew in a culled frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CullStats {
    /// Instances drawn at each mesh level (finest first), then as
    /// impostors (at index `levels`).
    pub visible: [u32; MAX_REGIONS],
    /// Triangles drawn at each mesh level, then by the impostors (two a
    /// quad).
    pub triangles: [u64; MAX_REGIONS],
    /// Mesh levels.
    pub levels: u32,
    /// Instances in the view that occlusion culling did not draw (hidden
    /// behind nearer ones by the depth pyramid); 0 without it.
    pub occluded: u32,
    /// A light's view: casters in its box that were not drawn because
    /// their shadow cannot reach what the camera sees (the receivers
    /// rule); 0 in the camera's view.
    pub dropped: u32,
    /// The camera's view: instances drawn as splats (under a pixel; in no
    /// region, counted nowhere else); 0 without the splat level.
    pub splats: u32,
    /// The camera's view: instances it listed for the shadow cascades'
    /// passes (`crowd::caster_list`); 0 when it listed none.
    pub casters_listed: u32,
    /// Instances drawn of each model of a scene (its mesh levels and
    /// impostors together; one model: the first entry), in the scene's
    /// order.
    pub model_visible: [u32; MAX_SCENE_MODELS],
    /// Triangles drawn of each model of a scene.
    pub model_triangles: [u64; MAX_SCENE_MODELS],
}

impl CullStats {
    pub fn visible_total(&self) -> u32 {
        self.visible.iter().sum()
    }

    pub fn triangles_total(&self) -> u64 {
        self.triangles.iter().sum()
    }

    /// Instances drawn as impostors.
    pub fn impostors(&self) -> u32 {
        self.visible[(self.levels as usize).min(MAX_REGIONS - 1)]
    }

    /// The statistics of the indirect arguments `words` (five per region)
    /// of a chain of `levels` mesh levels followed by the impostor region.
    pub fn from_args(words: &[u32], levels: u32) -> Self {
        Self::from_scene_args(words, &RegionLayout::single(levels))
    }

    /// The statistics of a scene's arguments laid out as `layout`: each
    /// model's level `l` counted at `l`, every model's impostors at the
    /// longest chain's `levels`.
    pub fn from_scene_args(words: &[u32], layout: &RegionLayout) -> Self {
        let longest = layout.levels.iter().copied().max().unwrap_or(1);
        let longest = (longest as usize).clamp(1, MAX_LEVELS);
        let mut s = Self {
            levels: longest as u32,
            ..Self::default()
        };
        let args = |r: u32| words.get(r as usize * ARGS_WORDS..(r as usize + 1) * ARGS_WORDS);
        for (m, &levels) in layout.levels.iter().enumerate() {
            let first = layout.first_region(m);
            let regions = (0..(levels as usize).min(MAX_LEVELS))
                .map(|l| (l, first + l as u32))
                .chain([(longest, layout.impostor_region(m))]);
            for (at, region) in regions {
                let Some(a) = args(region) else { continue };
                let triangles = a[1] as u64 * (a[0] / 3) as u64;
                s.visible[at] += a[1];
                s.triangles[at] += triangles;
                if m < MAX_SCENE_MODELS {
                    s.model_visible[m] += a[1];
                    s.model_triangles[m] += triangles;
                }
            }
        }
        let counter = |w: u32| {
            words
                .get((layout.counter_word() + w) as usize)
                .copied()
                .unwrap_or(0)
        };
        s.occluded = counter(0);
        s.dropped = counter(crate::crowd::cull::DROPPED_WORD);
        s.splats = counter(crate::crowd::cull::SPLAT_WORD);
        s.casters_listed = counter(crate::crowd::caster_list::CASTER_WORD);
        s
    }

    /// Two passes' draws together (occlusion culling's phases; the
    /// occluded are phase 2's count).
    pub fn and(mut self, late: CullStats) -> Self {
        for r in 0..MAX_REGIONS {
            self.visible[r] += late.visible[r];
            self.triangles[r] += late.triangles[r];
        }
        for m in 0..MAX_SCENE_MODELS {
            self.model_visible[m] += late.model_visible[m];
            self.model_triangles[m] += late.model_triangles[m];
        }
        self.occluded = late.occluded;
        self.dropped += late.dropped;
        self.splats += late.splats;
        self
    }
}

pub struct ArgsReadback {
    slots: Vec<Slot>,
    frame: u64,
    latest: u64,
    /// How the lists read are laid out.
    layout: RegionLayout,
    pub last: Option<CullStats>,
}

impl ArgsReadback {
    /// Read-backs of the arguments of lists laid out as `layout`.
    pub fn new(device: &wgpu::Device, layout: &RegionLayout) -> Self {
        let slots = (0..3)
            .map(|_| Slot {
                copy: MappedCopy::new(device, "cull args readback", layout.args_bytes()),
                frame: 0,
            })
            .collect();
        Self {
            slots,
            frame: 0,
            latest: 0,
            layout: layout.clone(),
            last: None,
        }
    }

    /// Records a copy of `args` into an idle slot (none idle: this frame
    /// goes unread).
    pub fn copy(&mut self, encoder: &mut wgpu::CommandEncoder, args: &wgpu::Buffer, bytes: u64) {
        self.frame += 1;
        if let Some(slot) = self.slots.iter_mut().find(|s| s.copy.is_idle()) {
            slot.copy.record(encoder, args, bytes);
            slot.frame = self.frame;
        }
    }

    /// After the submit: starts mapping what was copied.
    pub fn after_submit(&mut self) {
        for slot in &self.slots {
            slot.copy.start_map();
        }
    }

    /// Takes finished readings (the newest wins). `wait` blocks until every
    /// pending one has landed (benchmarks and tests, never the viewer).
    pub fn collect(&mut self, device: &wgpu::Device, wait: bool) {
        let poll = if wait {
            wgpu::PollType::wait_indefinitely()
        } else {
            wgpu::PollType::Poll
        };
        let _ = device.poll(poll);
        let layout = &self.layout;
        for slot in &self.slots {
            let stats = slot
                .copy
                .take(|bytes| CullStats::from_scene_args(bytemuck::cast_slice(bytes), layout));
            if let Some(stats) = stats
                && slot.frame > self.latest
            {
                self.last = Some(stats);
                self.latest = slot.frame;
            }
        }
    }
}

/// Reads `lists`' arguments and entries back, waiting for the GPU.
pub(super) fn read_lists(
    lists: Option<&crate::render::passes::cull::Lists>,
    gpu: &crate::gpu::GpuContext,
) -> Result<crate::render::passes::cull::VisibleLists, crate::gpu::GpuError> {
    let Some(lists) = lists else {
        return Ok(crate::render::passes::cull::VisibleLists::default());
    };
    // The regions' arguments, not the counters after them (the list's
    // kept states follow its regions: a counter read as a region's count
    // would read them as entries); the regions alone are read.
    let regions = (lists.bytes as usize / 4).saturating_sub(crate::crowd::occlusion::COUNTER_WORDS)
        / crate::render::passes::cull::ARGS_WORDS;
    let region_bytes = (regions as u64 * lists.region as u64 * 4).min(lists.visible.size());
    let words: Vec<u32> = gpu.read_words(&lists.args, 0, lists.bytes)?;
    let all: Vec<u32> = gpu.read_words(&lists.visible, 0, region_bytes)?;
    let entries = words
        .chunks_exact(crate::render::passes::cull::ARGS_WORDS)
        .take(regions)
        .enumerate()
        .map(|(l, a)| {
            let start = (l * lists.region as usize).min(all.len());
            let end = (start + a[1] as usize).min(all.len());
            all[start..end].to_vec()
        })
        .collect();
    Ok(crate::render::passes::cull::VisibleLists {
        args: words,
        entries,
    })
}

/// The last cull pass's output, read back whole (tests and diagnostics).
#[derive(Clone, Debug, Default)]
pub struct VisibleLists {
    /// Five words per region (`DrawIndexedIndirect`): the mesh levels,
    /// then the impostors; then the occluded count.
    pub args: Vec<u32>,
    /// Each region's entries: instance index, region and nearest-frame
    /// bits.
    pub entries: Vec<Vec<u32>>,
}

impl VisibleLists {
    /// Two passes' lists as one (occlusion culling's phases): the counts
    /// summed, each region's entries one after the other, the occluded
    /// count the later's.
    pub fn and(mut self, late: &VisibleLists) -> Self {
        let regions = self.entries.len();
        for (r, entries) in late.entries.iter().enumerate().take(regions) {
            self.entries[r].extend_from_slice(entries);
            self.args[r * ARGS_WORDS + 1] += late.args[r * ARGS_WORDS + 1];
        }
        let occluded = regions * ARGS_WORDS;
        if let (Some(a), Some(b)) = (self.args.get_mut(occluded), late.args.get(occluded)) {
            *a = *b;
        }
        self
    }
}
