//! The shadow cascades' cull over the casters the camera's pass listed
//! (`crowd::caster_list`): the camera's parameters carry the cascades'
//! boxes, its pass appends every instance inside one to the end of its
//! arguments and counts the workgroups, and each cascade's pass
//! (`cs_cull_listed` in shaders/cull_listed.wgsl) is dispatched indirectly
//! over that list, reading the camera's arguments as one more binding.

use super::{Culler, Lists};
use crate::crowd::caster_list::{CASTER_ENTRIES, CASTER_WORD, CasterGate, LISTED_STORAGE_BUFFERS};
use crate::render::util::pipeline::bind_group;

/// The listed variant of the cascades' pass.
pub(super) struct ListedCull {
    layout: wgpu::BindGroupLayout,
    pub pipeline: wgpu::ComputePipeline,
}

/// A cascade's group 3 for the listed pass: its parameters, arguments and
/// visible list, and the camera's arguments, for the lists it was made
/// with.
pub struct ListedGroup {
    camera: u64,
    target: u64,
    pub(super) group: wgpu::BindGroup,
}

impl ListedCull {
    /// The listed pass, or `None` where the device binds too few storage
    /// buffers for the plain pass's and the camera's arguments (the
    /// cascades then go over the whole crowd).
    pub fn new(
        device: &wgpu::Device,
        groups: [&wgpu::BindGroupLayout; 3],
        module: &wgpu::ShaderModule,
    ) -> Option<Self> {
        let needed = LISTED_STORAGE_BUFFERS + u32::from(!super::params_as_uniform(device));
        if device.limits().max_storage_buffers_per_shader_stage < needed {
            return None;
        }
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("listed cull output layout"),
            entries: &[
                super::params::params_entry(device),
                crate::gpu::compute_storage(1, false),
                crate::gpu::compute_storage(2, false),
                crate::gpu::compute_storage(3, true),
            ],
        });
        let pipeline = crate::render::util::pipeline::compute_pipeline(
            device,
            "listed cull pipeline",
            &[
                Some(groups[0]),
                Some(groups[1]),
                Some(groups[2]),
                Some(&layout),
            ],
            module,
            "cs_cull_listed",
        );
        Some(Self { layout, pipeline })
    }
}

impl Culler {
    /// The shadow cascades' boxes the camera's next cull lists casters for
    /// (`None`: it lists none, and the cascades go over every instance).
    /// Set before [`Culler::encode`] each frame.
    pub fn set_caster_gate(&mut self, gate: Option<CasterGate>) {
        self.caster_gate = gate;
    }

    /// Whether the camera's cull this frame listed casters (the cascades'
    /// passes then go over the list).
    pub fn casters_listed(&self) -> bool {
        self.casters_listed && self.culled_this_frame
    }

    /// Why the cascades cannot go over a list of casters, if they cannot.
    pub fn caster_list_unsupported(&self) -> Option<&'static str> {
        self.listed.is_none().then_some(
            "the adapter binds too few storage buffers per shader stage for the cascades' \
             cull over the camera's list",
        )
    }

    /// Whether the camera's pass lists the cascades' casters when there
    /// are cascades: culling on, the setting on, the listed pass available.
    pub fn lists_casters(&self) -> bool {
        self.settings.culling && self.settings.caster_list && self.listed.is_some()
    }

    /// The gate the camera's parameters carry this frame.
    pub(super) fn active_gate(&self) -> Option<&CasterGate> {
        self.caster_gate
            .as_ref()
            .filter(|g| !g.views.is_empty() && self.lists_casters())
    }

    /// `target`'s group for the listed pass over the camera's lists, made
    /// again when either side's lists were.
    pub(super) fn listed_group<'a>(
        &self,
        device: &wgpu::Device,
        params: &wgpu::Buffer,
        target: &Lists,
        cache: &'a mut Option<ListedGroup>,
    ) -> Option<&'a wgpu::BindGroup> {
        let (listed, camera) = (self.listed.as_ref()?, self.lists.as_ref()?);
        if cache
            .as_ref()
            .is_none_or(|c| c.camera != camera.id || c.target != target.id)
        {
            let group = bind_group(
                device,
                "listed cull output group",
                &listed.layout,
                &[
                    (0, params.as_entire_binding()),
                    (1, target.args.as_entire_binding()),
                    (2, target.visible.as_entire_binding()),
                    (3, camera.args.as_entire_binding()),
                ],
            );
            *cache = Some(ListedGroup {
                camera: camera.id,
                target: target.id,
                group,
            });
        }
        cache.as_ref().map(|c| &c.group)
    }

    /// The instances the camera's last cull listed for the cascades, in
    /// the order they were listed, read back waiting for the GPU (tests
    /// and diagnostics; empty when it listed none).
    pub fn read_caster_list(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Vec<u32>, crate::gpu::GpuError> {
        let Some(lists) = self
            .lists
            .as_ref()
            .filter(|l| l.casters && self.casters_listed())
        else {
            return Ok(Vec::new());
        };
        let word = (self.counter_word() + CASTER_WORD) as u64;
        let count = gpu.read_words::<u32>(&lists.args, word * 4, 4)?[0] as u64;
        let first = (self.counter_word() + CASTER_ENTRIES) as u64 * 4;
        let count = count.min((lists.args.size() - first) / 4);
        if count == 0 {
            return Ok(Vec::new());
        }
        gpu.read_words(&lists.args, first, count * 4)
    }

    /// The cascades' indirect dispatch the camera's last cull counted
    /// (workgroups x, y, z), read back waiting for the GPU (tests and
    /// diagnostics; `None` when it listed none).
    pub fn read_caster_dispatch(
        &self,
        gpu: &crate::gpu::GpuContext,
    ) -> Result<Option<[u32; 3]>, crate::gpu::GpuError> {
        let Some(lists) = self
            .lists
            .as_ref()
            .filter(|l| l.casters && self.casters_listed())
        else {
            return Ok(None);
        };
        let words = gpu.read_words::<u32>(&lists.args, self.listed_dispatch_offset(), 12)?;
        Ok(Some([words[0], words[1], words[2]]))
    }

    /// Where in the camera's arguments the cascades' dispatch is, in bytes.
    pub(super) fn listed_dispatch_offset(&self) -> u64 {
        (self.counter_word() as u64 + CASTER_WORD as u64 + 1) * 4
    }
}
