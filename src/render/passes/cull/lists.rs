//! The cull pass's output for one view: the visible list (one region per
//! mesh level, then the impostors'), the regions' indirect arguments with
//! a few words after them (occlusion culling's counts and phase 2's
//! dispatch), and the bind groups that fill and draw them. A list made
//! for one multi-draw ends with the state the cull pass resolved for each
//! instance it lists (`crowd::resolved`), when the setting asks for it and
//! the binding fits.

use crate::crowd::CountError;
use crate::crowd::resolved;
use crate::render::passes::cull::Culler;
use crate::render::passes::cull::occlusion::Bindings;
use crate::render::passes::techniques::ARGS_WORDS;
use crate::render::util::pipeline::bind_group;
use wgpu::util::DeviceExt;

/// The next [`Lists::id`].
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The visible list and indirect arguments for one crowd size: one region
/// per mesh level, then the impostors' region.
pub(super) struct Lists {
    pub visible: wgpu::Buffer,
    pub capacity: u32,
    /// The instances whose state the list can keep (`states_for`; 0 when
    /// it keeps none).
    pub states: u32,
    /// The count it was made for.
    pub made_for: u32,
    /// Entries per region (a multiple of the storage offset alignment).
    pub region: u32,
    pub args: wgpu::Buffer,
    pub template: wgpu::Buffer,
    pub out_group: wgpu::BindGroup,
    pub draw_group: wgpu::BindGroup,
    pub bytes: u64,
    /// Made for one multi-draw (regions start at their first instance) or
    /// for one draw per level (regions bound at dynamic offsets).
    pub multi: bool,
    /// Made for the occlusion variant of the pass (its bindings' key), or
    /// for the plain pass.
    pub occlusion: Option<u64>,
    /// The stride asked for (`want`) and the one the list has (0 where it
    /// keeps no state: not asked for, or too large to bind).
    pub state: StateStride,
    /// The arguments end with room for the casters the camera's pass
    /// lists for the shadow cascades (`crowd::caster_list`), one word an
    /// instance.
    pub casters: bool,
    /// Told apart from every other lists made (groups made over them
    /// are made again when it changes).
    pub id: u64,
}

/// A list's resolved-state stride: the one asked for and the one it has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct StateStride {
    pub want: u32,
    pub has: u32,
}

impl Lists {
    /// GPU bytes of the visible list and the arguments with their template.
    pub fn gpu_bytes(&self) -> u64 {
        self.visible.size() + self.args.size() + self.bytes
    }
}

impl Culler {
    /// Lists for `count` instances whose pass reads its parameters from
    /// `params`, for the plain pass or (with `occlusion`: its output layout
    /// and bindings) the occlusion variant.
    /// `state` is the resolved-state stride wanted (0: none); the list
    /// keeps it when it is drawn by one multi-draw and fits a binding.
    /// With `casters`, the arguments have room for the casters listed.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn make_lists(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        count: u32,
        params: &wgpu::Buffer,
        occlusion: Option<(&wgpu::BindGroupLayout, &Bindings<'_>)>,
        state: u32,
        casters: bool,
    ) -> Lists {
        let capacity = Self::capacity_for(count);
        let states = Self::states_for(count);
        let region = self.region_entries(capacity as u64) as u32;
        let draws = self.region_draws();
        let regions = draws.len();
        let region_bytes = region as u64 * regions as u64 * 4;
        let fits = |stride: u32| {
            region_bytes + 4 * resolved::trailer_words(states, stride) <= self.max_binding
        };
        // The stride asked for; else this frame's state alone (the previous
        // frame's is then computed); else none.
        let has = [state, state.min(resolved::STATE_STRIDE)]
            .into_iter()
            .find(|&s| self.multi_draw && s != 0 && fits(s))
            .unwrap_or(0);
        let visible = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("visible list"),
            size: region_bytes + 4 * resolved::trailer_words(states, has),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        // The last word: the stride the shaders read.
        queue.write_buffer(&visible, visible.size() - 4, bytemuck::bytes_of(&has));
        let mut words =
            Vec::with_capacity(regions * ARGS_WORDS + crate::crowd::occlusion::COUNTER_WORDS);
        let first_instance = |r: usize| {
            if self.multi_draw {
                r as u32 * region
            } else {
                0
            }
        };
        // Each (model, level), then each model's impostors (one quad, six
        // indices of their own index buffer, each).
        for (r, [index_count, first_index, base_vertex]) in draws.into_iter().enumerate() {
            words.extend([index_count, 0, first_index, base_vertex, first_instance(r)]);
        }
        // The occluded count; the survivors listed and phase 2's dispatch;
        // the dropped casters, the splats; the casters listed and the
        // cascades' dispatch.
        words.extend([0; crate::crowd::occlusion::COUNTER_WORDS]);
        let caster = regions * ARGS_WORDS + crate::crowd::caster_list::CASTER_WORD as usize;
        words[caster..caster + 4].copy_from_slice(&crate::crowd::caster_list::CASTER_TEMPLATE);
        let bytes = (words.len() * 4) as u64;
        let listed_bytes = if casters { capacity as u64 * 4 } else { 0 };
        let template = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("cull args template"),
            contents: bytemuck::cast_slice(&words),
            usage: wgpu::BufferUsages::COPY_SRC,
        });
        let args = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cull indirect args"),
            size: bytes + listed_bytes,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut entries = vec![
            (0, params.as_entire_binding()),
            (1, args.as_entire_binding()),
            (2, visible.as_entire_binding()),
        ];
        let layout = match occlusion {
            Some((layout, b)) => {
                entries.extend([
                    (3, b.params.as_entire_binding()),
                    (4, b.history.as_entire_binding()),
                    (5, b.pyramid.as_entire_binding()),
                ]);
                layout
            }
            None => &self.out_layout,
        };
        let out_group = bind_group(device, "cull output group", layout, &entries);
        let draw_size = if self.multi_draw {
            None
        } else {
            wgpu::BufferSize::new(region as u64 * 4)
        };
        let draw_group = bind_group(
            device,
            "visible list group",
            &self.draw_layout,
            &[(
                0,
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &visible,
                    offset: 0,
                    size: draw_size,
                }),
            )],
        );
        Lists {
            visible,
            capacity,
            states: if has == 0 { 0 } else { states },
            made_for: count,
            region,
            args,
            template,
            out_group,
            draw_group,
            bytes,
            multi: self.multi_draw,
            occlusion: occlusion.map(|(_, b)| b.key),
            state: StateStride { want: state, has },
            casters,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// The instances lists made for `count` hold.
    pub(super) fn capacity_for(count: u32) -> u32 {
        count.max(64).next_power_of_two()
    }

    /// The instances whose state lists made for `count` keep: the count
    /// rounded up to a sixteenth of its capacity (at least 1,024), at most
    /// the capacity. The regions take the capacity, so that the lists
    /// serve a count that grows within it; the states, 32 words each
    /// with the previous frame's, are most of a list's bytes, so they take
    /// about the count (at 10,000,000 the capacity would leave 40 % of
    /// them unused): a list is made again when the count passes them.
    pub(super) fn states_for(count: u32) -> u32 {
        let capacity = Self::capacity_for(count);
        let step = (capacity / 16).max(1024);
        count
            .max(1)
            .div_ceil(step)
            .saturating_mul(step)
            .min(capacity)
    }

    /// Entries per region of a list for `capacity` instances: a multiple
    /// of the storage offset alignment (a region is bound at its offset
    /// without one multi-draw).
    fn region_entries(&self, capacity: u64) -> u64 {
        let align = self.align_entries as u64;
        capacity.div_ceil(align) * align
    }

    /// Refuses `count` instances when a visible list of their regions
    /// (the state kept or not) would pass the device's largest binding:
    /// the pass could not bind it.
    pub fn check_count(&self, count: u32) -> Result<(), CountError> {
        // In u64: an absurd count (refused as such elsewhere) must not
        // overflow here.
        let capacity = (count.max(64) as u64).next_power_of_two();
        let regions = self.region_draws().len();
        let bytes =
            self.region_entries(capacity) * regions as u64 * 4 + 4 * resolved::trailer_words(0, 0);
        if bytes > self.max_binding {
            return Err(CountError::Lists {
                count: count as u64,
                regions,
                bytes,
                limit: self.max_binding,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Culler;

    #[test]
    fn the_states_take_about_the_count() {
        // A sixteenth of the capacity at a time, at least 1,024, at most
        // the capacity.
        assert_eq!(Culler::states_for(64), 64);
        assert_eq!(Culler::states_for(2_100), 3_072);
        assert_eq!(Culler::states_for(4_000), 4_096);
        assert_eq!(Culler::states_for(600_000), 655_360);
        assert_eq!(Culler::states_for(10_000_000), 10_485_760);
        for count in [1, 1_000, 65_537, 1_000_000, 4_194_304, 10_000_000] {
            let states = Culler::states_for(count);
            assert!(states >= count && states <= Culler::capacity_for(count));
        }
    }
}
