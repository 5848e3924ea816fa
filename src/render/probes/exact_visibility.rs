//! The exact visibility count: after a frame, every instance the camera
//! drew (each mesh level's and the impostors') is drawn again, alone,
//! inside an occlusion query, by its pipeline's twin that writes nothing:
//! once against the frame's final depth, where the depth test (less or
//! equal, the same vertices at the same depth) passes exactly the samples
//! where it shows in the picture, and once against a cleared depth, where
//! it passes every sample it covers. An instance that covers samples but
//! shows none is hidden behind the others: what a perfect occlusion culler
//! would leave out, to measure ours against. One that covers none is too
//! small or thin to reach a sample wherever it stands. Waits for the GPU
//! (benchmarks and tests, never per frame).

use crate::crowd::cull::INDEX_MASK;
use crate::render::Renderer;
use crate::render::config::RenderError;
use crate::render::passes::techniques::ARGS_WORDS;
use crate::render::passes::techniques::CrowdDraw;
use crate::render::passes::techniques::CrowdPass;
use crate::render::passes::techniques::TechniqueKind;
use wgpu::util::DeviceExt;

/// Queries in one query set (wgpu's most), so one render pass each.
const QUERIES: usize = wgpu::QUERY_SET_MAX_QUERIES as usize;

/// One entry the frame drew: which instance, in which region (mesh levels
/// model by model, then one impostor region per model), its triangles, and
/// whether any of its samples shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    pub instance: u32,
    pub region: u32,
    pub triangles: u32,
    /// A sample of it shows in the picture.
    pub shows: bool,
    /// Drawn alone, it covers a sample (false: it is too small or thin
    /// to, wherever it stands).
    pub covers: bool,
}

/// Every entry of the last frame, both phases of occlusion culling
/// together.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExactVisibility {
    pub entries: Vec<Shown>,
}

impl ExactVisibility {
    /// Instances drawn.
    pub fn drawn(&self) -> u32 {
        self.entries.len() as u32
    }

    /// Instances with a sample showing.
    pub fn visible(&self) -> u32 {
        self.entries.iter().filter(|e| e.shows).count() as u32
    }

    /// Triangles drawn.
    pub fn drawn_triangles(&self) -> u64 {
        self.entries.iter().map(|e| u64::from(e.triangles)).sum()
    }

    /// Triangles of the instances that show: what a culler that left out
    /// everything the picture does not need would draw.
    pub fn visible_triangles(&self) -> u64 {
        self.entries
            .iter()
            .filter(|e| e.shows)
            .map(|e| u64::from(e.triangles))
            .sum()
    }

    /// Instances that cover a sample alone but show none: hidden behind
    /// the others.
    pub fn occluded(&self) -> u32 {
        self.entries.iter().filter(|e| e.covers && !e.shows).count() as u32
    }

    /// Instances that cover no sample even alone.
    pub fn covering_none(&self) -> u32 {
        self.entries.iter().filter(|e| !e.covers).count() as u32
    }

    /// Triangles of every instance but the occluded: what a perfect
    /// occlusion culler would draw.
    pub fn unoccluded_triangles(&self) -> u64 {
        self.entries
            .iter()
            .filter(|e| !e.covers || e.shows)
            .map(|e| u64::from(e.triangles))
            .sum()
    }

    /// Whether `instance` shows (`None`: it was not drawn).
    pub fn shows(&self, instance: u32) -> Option<bool> {
        self.entries
            .iter()
            .find(|e| e.instance == instance)
            .map(|e| e.shows)
    }
}

/// Where a probe pass's depth test starts from.
#[derive(Clone, Copy)]
enum Against<'a> {
    /// The frame's final depth: the samples where the instance shows.
    Frame,
    /// A cleared depth (this one, not the frame's): the samples the
    /// instance covers, alone.
    Nothing(&'a wgpu::TextureView),
}

/// What a probe pass draws each entry with.
struct Probes<'a> {
    /// Every entry, in order, and their `DrawIndexedIndirect` arguments.
    shown: &'a [Shown],
    args: &'a [u32],
    args_buffer: &'a wgpu::Buffer,
    group: &'a wgpu::BindGroup,
}

impl Renderer {
    /// Draws each instance of the last frame alone against its final depth
    /// (where it shows) and against nothing (what it covers), into
    /// `target`'s attachments (the view the frame was drawn into) with a
    /// pipeline that writes nothing, counting the samples that pass. Needs
    /// the depth kept (`TargetOptions::keep_depth`, which builds those
    /// pipelines), the cull pass's lists, the VAT technique (the techniques
    /// draw the same picture, which the tests check), first instances in
    /// indirect draws (the impostors' draws), MSAA and a backend whose
    /// queries count exactly (not GL's). Call before the next frame; the
    /// frame's colour and depth are left as they are.
    pub fn exact_visibility(
        &self,
        target: &wgpu::TextureView,
    ) -> Result<ExactVisibility, RenderError> {
        let missing = if !self.targets.options.keep_depth {
            Some("the frame's depth was not kept (TargetOptions::keep_depth)")
        } else if !self.culler.culled() {
            Some("the frame was not culled (it needs the cull pass's lists)")
        } else if self.technique.kind() != TechniqueKind::Vat {
            Some("it draws with the vat technique only")
        } else if self.gpu.info.backend == wgpu::Backend::Gl {
            // wgpu's GL backend asks for ANY_SAMPLES_PASSED_CONSERVATIVE,
            // which may answer yes where no sample passed: a hidden
            // instance would count as showing.
            Some("the GL backend's occlusion queries may count samples that did not pass")
        } else if !self.culler.multi_draw {
            Some("the adapter has no first instance in indirect draws")
        } else if self.targets.samples < 2 {
            // Seen on lavapipe (Mesa 22.3.6): with one sample a pixel the
            // queries of these draws came back empty or nearly, though a
            // plain full-screen draw's counted every pixel; the cause was
            // not found, so no count is given rather than a wrong one.
            Some("it counts with MSAA only (--aa msaa)")
        } else {
            None
        };
        if let Some(why) = missing {
            return Err(RenderError::ExactVisibility(why));
        }
        let lists = self.culler.read_lists(&self.gpu)?;
        let mut shown = Vec::new();
        let mut list = Vec::new();
        let mut args = Vec::new();
        for (r, entries) in lists.entries.iter().enumerate() {
            let a = &lists.args[r * ARGS_WORDS..(r + 1) * ARGS_WORDS];
            for &entry in entries {
                args.extend([a[0], 1, a[2], a[3], list.len() as u32]);
                list.push(entry);
                shown.push(Shown {
                    instance: entry & INDEX_MASK,
                    region: r as u32,
                    triangles: a[0] / 3,
                    shows: false,
                    covers: false,
                });
            }
        }
        if list.is_empty() {
            return Ok(ExactVisibility::default());
        }
        let impostor_regions = self.culler.regions().mesh_regions() as usize;
        if self.impostors.is_none()
            && lists
                .entries
                .iter()
                .skip(impostor_regions)
                .any(|e| !e.is_empty())
        {
            return Err(RenderError::ExactVisibility(
                "impostors were drawn without their pass",
            ));
        }
        let device = &self.gpu.device;
        let init = |label, contents: &[u32], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::cast_slice(contents),
                usage,
            })
        };
        // Bound whole: it ends as every list does, with its state stride,
        // 0 (it keeps no state; the vertices compute it).
        let mut words = list.clone();
        words.push(0);
        let list_buffer = init("exact visibility list", &words, wgpu::BufferUsages::STORAGE);
        let args_buffer = init("exact visibility args", &args, wgpu::BufferUsages::INDIRECT);
        let group = crate::render::util::pipeline::bind_group(
            device,
            "exact visibility group",
            self.culler.draw_layout(),
            &[(0, list_buffer.as_entire_binding())],
        );
        let probes = Probes {
            shown: &shown,
            args: &args,
            args_buffer: &args_buffer,
            group: &group,
        };
        // The two counts' results, each from a 256-byte boundary (where a
        // query set resolves to).
        let half = (list.len() as u64 * 8).div_ceil(256) * 256;
        let resolved = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("exact visibility queries"),
            size: 2 * half,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let read = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("exact visibility read-back"),
            size: 2 * half,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("exact visibility"),
        });
        self.probe_passes(&mut encoder, target, &probes, Against::Frame, &resolved, 0);
        // Against nothing in a depth of its own: the frame's stays as it
        // is, so a second count of the same frame counts the same.
        let alone = self.targets.scratch_depth(device);
        let against = Against::Nothing(&alone);
        self.probe_passes(&mut encoder, target, &probes, against, &resolved, half);
        encoder.copy_buffer_to_buffer(&resolved, 0, &read, 0, 2 * half);
        self.gpu.queue.submit([encoder.finish()]);
        let data = crate::gpu::read_buffer(device, &read, 2 * half)?;
        let samples = |at: u64, i: usize| {
            let b = (at as usize) + i * 8;
            u64::from_le_bytes(data[b..b + 8].try_into().expect("eight bytes"))
        };
        for (i, s) in shown.iter_mut().enumerate() {
            s.shows = samples(0, i) > 0;
            s.covers = samples(half, i) > 0;
        }
        Ok(ExactVisibility { entries: shown })
    }

    /// Render passes drawing every probe alone inside its own occlusion
    /// query (as many passes as query sets it takes), their sample counts
    /// resolved into `resolved` from byte `at`.
    fn probe_passes(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        probes: &Probes<'_>,
        against: Against<'_>,
        resolved: &wgpu::Buffer,
        at: u64,
    ) {
        let device = &self.gpu.device;
        let mesh_regions = self.culler.regions().mesh_regions();
        let n = probes.shown.len();
        for start in (0..n).step_by(QUERIES) {
            let end = (start + QUERIES).min(n);
            let set = device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("exact visibility"),
                ty: wgpu::QueryType::Occlusion,
                count: (end - start) as u32,
            });
            {
                let attachments = self.scene_attachments(target, false, false);
                let bound = 1 + attachments[1].is_some() as usize;
                let (depth, depth_ops) = match against {
                    Against::Frame => (
                        &self.targets.depth,
                        wgpu::Operations {
                            load: wgpu::LoadOp::Load,
                            store: wgpu::StoreOp::Store,
                        },
                    ),
                    Against::Nothing(alone) => (
                        alone,
                        wgpu::Operations {
                            load: wgpu::LoadOp::Clear(1.0),
                            store: wgpu::StoreOp::Discard,
                        },
                    ),
                };
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("exact visibility pass"),
                    color_attachments: &attachments[..bound],
                    depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                        view: depth,
                        depth_ops: Some(depth_ops),
                        stencil_ops: None,
                    }),
                    timestamp_writes: None,
                    occlusion_query_set: Some(&set),
                    multiview_mask: None,
                });
                pass.set_bind_group(0, self.frame_group.group(), &[]);
                self.set_scene_viewport(&mut pass);
                for i in start..end {
                    pass.begin_occlusion_query((i - start) as u32);
                    let a = &probes.args[i * ARGS_WORDS..(i + 1) * ARGS_WORDS];
                    if probes.shown[i].region < mesh_regions {
                        let draw = CrowdDraw::Single {
                            group: probes.group,
                            first_index: a[2],
                            index_count: a[0],
                            base_vertex: a[3] as i32,
                            entry: i as u32,
                        };
                        self.technique
                            .draw(&mut pass, &self.data.model, &draw, CrowdPass::Probe);
                    } else if let Some(impostors) = &self.impostors {
                        let draw = crate::render::passes::impostor::ImpostorDraw {
                            args: probes.args_buffer,
                            offset: (i * ARGS_WORDS * 4) as u64,
                            regions: 1,
                            group: probes.group,
                            dynamic_offset: 0,
                            region_bytes: None,
                            tight: self.culler.settings.tight_impostors,
                        };
                        impostors.draw_probe(&mut pass, &draw);
                    }
                    pass.end_occlusion_query();
                }
            }
            encoder.resolve_query_set(
                &set,
                0..(end - start) as u32,
                resolved,
                at + start as u64 * 8,
            );
        }
    }
}
