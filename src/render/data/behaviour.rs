//! The living crowd's GPU objects: the herd's schedule table (one small
//! uniform per frame) and path samples, and the flock's simulation. They
//! are bound in group 2 of every crowd shader (bindings 3, 4 and 5), next to
//! the instances, so every technique draws the same herd or flock.
//!
//! Per frame the CPU writes one [`HerdTable`] (192 bytes) or records the
//! flock's fixed 1/60 s steps: nothing per instance.

use crate::Aabb;
use crate::crowd::anim::{BehaviourSettings, BehaviourView, HerdClips, bird_clips};
use crate::crowd::flock::{Boid, FlockParams};
use crate::crowd::herd::{GPU_DATA_ENTRIES, Herd, HerdTable};
use crate::crowd::scene::{CrowdModelGpu, JOINS_FLOCK, JOINS_HERD};
use crate::crowd::{CrowdSpec, FrameUniform, Motion};
use crate::render::data::flock_sim::FlockSim;
use crate::vat::Vat;
use glam::Vec2;

/// Seconds of one flock step.
pub const FLOCK_STEP_S: f32 = 1.0 / FLOCK_STEPS_PER_S as f32;
/// Flock steps per second of scene time.
pub const FLOCK_STEPS_PER_S: f64 = 60.0;

/// What the crowd does with behaviour on, decided by the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BehaviourKind {
    /// No herd or flock for this model: behaviour on changes nothing.
    None,
    Herd(HerdClips),
    /// Flap and glide clips.
    Flock(u32, u32),
}

/// The herd table and path, the flock, and the settings they follow.
pub struct Behaviour {
    settings: BehaviourSettings,
    /// The herd's gaits (its clips and speeds), when there is a herd.
    herd_clips: Option<HerdClips>,
    /// The flock's flap and glide clips, when there is a flock.
    flock_clips: Option<(u32, u32)>,
    /// The instances in the herd and in the flock.
    counts: (u32, u32),
    seed: u64,
    /// The model's box across and along its heading (the herd's spacing).
    footprint: Vec2,
    /// The flock's crowd (its size and field): the model's for one model.
    flock_layout: CrowdSpec,
    /// Where the flock's box is centred on the ground: over a scene's herd
    /// (it moves with it), else the origin.
    flock_centre: Vec2,
    herd: Option<(Herd, u32)>,
    table: Option<HerdTable>,
    table_buffer: wgpu::Buffer,
    path_buffer: wgpu::Buffer,
    flock: Option<FlockSim>,
    placeholder_boids: wgpu::Buffer,
    /// The flock as the previous frame drew it (the velocity target's
    /// previous pose), copied on the GPU before the frame's steps; grows
    /// with the flock.
    previous_boids: wgpu::Buffer,
    /// Flock steps taken since the seeded state.
    flock_steps: u64,
    /// Bumped whenever a bound buffer is replaced.
    generation: u64,
    active: bool,
}

impl Behaviour {
    /// The objects of one model's behaviour (`Self::new` sets the herd and
    /// the flock).
    fn base(
        device: &wgpu::Device,
        vat: &Vat,
        ground_speeds: &[f32],
        layout: CrowdSpec,
        seed: u64,
        settings: BehaviourSettings,
    ) -> Self {
        let clips = &vat.clips;
        let kind = match layout.motion {
            Motion::Track => HerdClips::find(clips, ground_speeds)
                .map_or(BehaviourKind::None, BehaviourKind::Herd),
            Motion::Flock => {
                bird_clips(clips).map_or(BehaviourKind::None, |(f, g)| BehaviourKind::Flock(f, g))
            }
            Motion::Stand => BehaviourKind::None,
        };
        // The herd's box: over the clips it plays (every clip's when it
        // has none).
        let bounds = match kind {
            BehaviourKind::Herd(herd) => vat.clips_bounds(&herd.clips),
            _ => None,
        }
        .unwrap_or(vat.bounds);
        let extent = bounds.max - bounds.min;
        let buffer = |label, size, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let (herd_clips, flock_clips) = match kind {
            BehaviourKind::Herd(clips) => (Some(clips), None),
            BehaviourKind::Flock(flap, glide) => (None, Some((flap, glide))),
            BehaviourKind::None => (None, None),
        };
        Self {
            settings,
            herd_clips,
            flock_clips,
            counts: (0, 0),
            seed,
            footprint: Vec2::new(extent.x, extent.z),
            flock_layout: layout,
            flock_centre: Vec2::ZERO,
            herd: None,
            table: None,
            table_buffer: buffer(
                "herd table",
                std::mem::size_of::<HerdTable>() as u64,
                wgpu::BufferUsages::UNIFORM,
            ),
            path_buffer: buffer(
                "herd path and band",
                (GPU_DATA_ENTRIES * 16) as u64,
                wgpu::BufferUsages::STORAGE,
            ),
            flock: None,
            placeholder_boids: buffer(
                "no flock",
                std::mem::size_of::<Boid>() as u64,
                wgpu::BufferUsages::STORAGE,
            ),
            previous_boids: buffer(
                "previous flock",
                std::mem::size_of::<Boid>() as u64,
                wgpu::BufferUsages::STORAGE,
            ),
            flock_steps: 0,
            generation: 0,
            active: false,
        }
    }

    pub fn settings(&self) -> &BehaviourSettings {
        &self.settings
    }

    /// What the crowd does with behaviour on: its herd, else its flock
    /// (a scene of several models may have both).
    pub fn kind(&self) -> BehaviourKind {
        match (self.herd_clips, self.flock_clips) {
            (Some(clips), _) => BehaviourKind::Herd(clips),
            (None, Some((flap, glide))) => BehaviourKind::Flock(flap, glide),
            (None, None) => BehaviourKind::None,
        }
    }

    /// The crowd's behaviour, over its lead model `lead` (its VAT, ground
    /// speeds and crowd: the herd's, or else the flock's): the herd of
    /// `herd` (its gaits, the footprint that spaces it, its instances) and
    /// the flock of `flock` (its flap and glide clips, its crowd, its
    /// instances). `mixed_behaviour::behaviour` makes it from the models.
    pub fn new(
        device: &wgpu::Device,
        lead: (&Vat, &[f32], CrowdSpec),
        herd: Option<(HerdClips, Vec2, u32)>,
        flock: Option<((u32, u32), CrowdSpec, u32)>,
        seed: u64,
        settings: BehaviourSettings,
    ) -> Self {
        let (vat, speeds, layout) = lead;
        let mut b = Self::base(device, vat, speeds, layout, seed, settings);
        b.herd_clips = herd.map(|(clips, ..)| clips);
        b.footprint = herd.map_or(b.footprint, |(_, footprint, _)| footprint);
        b.flock_clips = flock.map(|(clips, ..)| clips);
        b.flock_layout = flock.map_or(layout, |(_, l, _)| l);
        b.counts = (herd.map_or(0, |(.., n)| n), flock.map_or(0, |(.., n)| n));
        b
    }

    /// Follows new counts of the models of `table` (the instances that
    /// join the herd and the flock).
    pub fn set_counts(&mut self, table: &[CrowdModelGpu]) {
        let joined = |joins: u32| -> u32 {
            table
                .iter()
                .filter(|e| e.joins == joins)
                .map(|e| e.count)
                .sum()
        };
        self.counts = (joined(JOINS_HERD), joined(JOINS_FLOCK));
    }

    /// Changes the settings; the herd is rebuilt when its schedule changes
    /// (it then jumps: its distance is a function of the schedule) and the
    /// flock takes the new parameters from its next step.
    pub fn set_settings(&mut self, settings: BehaviourSettings) {
        if settings.fade != self.settings.fade || settings.mix != self.settings.mix {
            self.herd = None;
        }
        self.settings = settings;
    }

    /// True when the herd or the flock draws this frame.
    pub fn active(&self) -> bool {
        self.active
    }

    /// The flock's box: above the field, as wide as the crowd's layout.
    pub fn flock_bounds(&self, count: u32) -> Aabb {
        let count = if self.counts.1 > 0 {
            self.counts.1
        } else {
            count
        };
        let b = crate::crowd::flock::flock_box(&self.flock_layout, count);
        let shift = glam::Vec3::new(self.flock_centre.x, 0.0, self.flock_centre.y);
        Aabb {
            min: b.min + shift,
            max: b.max + shift,
        }
    }

    fn flock_params(&self, count: u32) -> FlockParams {
        FlockParams {
            bounds: self.flock_bounds(count),
            ..FlockParams::for_crowd(
                &self.flock_layout,
                count,
                &self.settings.flock,
                self.settings.fade,
            )
        }
    }

    /// The herd for `count` horses. Its path is sized for the count, so a
    /// new count rebuilds it (and the herd jumps to its place on the new
    /// path); its path samples and band slots are uploaded only then.
    fn herd_for(&mut self, queue: &wgpu::Queue, clips: HerdClips, count: u32) -> &mut Herd {
        if self.herd.as_ref().is_none_or(|(_, c)| *c != count) {
            let params = clips.params(self.seed, &self.settings, self.footprint);
            let herd = Herd::new(params, count);
            queue.write_buffer(&self.path_buffer, 0, bytemuck::cast_slice(&herd.gpu_data()));
            self.herd = Some((herd, count));
        }
        let (herd, _) = self.herd.as_mut().expect("the herd was just built");
        herd
    }

    /// Per-frame work, before the frame's render pass: writes the herd
    /// table, or records the flock steps that bring it to scene time `time`
    /// (seconds, f64: the CPU's own, not the frame's split f32s), and fills
    /// the behaviour fields of `frame`. `previous` is the previous frame's
    /// scene time (`None` after a time jump: the previous pose is then this
    /// frame's); the flock keeps its previous state only when
    /// `frame.velocity` is set.
    pub fn update(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        frame: &mut FrameUniform,
        time: f64,
        previous: Option<f64>,
    ) {
        frame.fade = self.settings.fade;
        self.active =
            self.settings.enabled && (self.herd_clips.is_some() || self.flock_clips.is_some());
        frame.behaviour = self.active as u32;
        if !self.active {
            return;
        }
        let (herd_count, flock_count) = self.counts;
        if let Some(clips) = self.herd_clips {
            let t = time * frame.playback as f64;
            let flock_over = self.flock_clips.is_some();
            let herd = self.herd_for(queue, clips, herd_count.max(1));
            // A scene's flock flies over its herd: its box moves with the
            // herd's centre.
            let centre = flock_over.then(|| herd.centre(t).0);
            let mut table = herd.table(t);
            if let Some(before) = previous {
                table.previous_time = table.local_time(before * frame.playback as f64);
            }
            // The herd roams a path wider than the ring track: the field
            // (and its fog) is sized for the path (in a scene, for every
            // model's field too).
            let radius = herd.path.radius * 1.25;
            frame.field_radius = frame.field_radius.max(radius);
            frame.fog[0] = 1.0 / (frame.field_radius * 3.0 + frame.model_size * 20.0);
            queue.write_buffer(&self.table_buffer, 0, bytemuck::bytes_of(&table));
            self.table = Some(table);
            if let Some(centre) = centre {
                self.flock_centre = centre;
            }
        }
        if let Some((flap, glide)) = self.flock_clips {
            frame.flap_clip = flap;
            frame.glide_clip = glide;
            // Birds are watched against the sky from nearby: a quarter of
            // the ground's fog keeps them dark silhouettes (over a herd,
            // the ground's fog stays).
            if self.herd_clips.is_none() {
                frame.fog[0] *= 0.25;
            }
            // The previous boids only when the frame writes the velocity.
            let keep = (frame.velocity != 0).then_some(previous.is_some());
            self.step_flock(device, queue, encoder, time, keep, flock_count.max(1));
        }
    }

    fn step_flock(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        time: f64,
        keep_previous: Option<bool>,
        count: u32,
    ) {
        let params = self.flock_params(count);
        let bytes = count as u64 * std::mem::size_of::<Boid>() as u64;
        if self.previous_boids.size() < bytes {
            self.previous_boids = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("previous flock"),
                size: bytes.next_power_of_two(),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.generation += 1;
        }
        let sim = match &mut self.flock {
            Some(sim) => {
                let before = sim.generation;
                if sim.count() != count {
                    sim.set_count(device, queue, count);
                }
                if *sim.params() != params {
                    sim.set_params(device, params);
                }
                if sim.generation != before {
                    self.generation += 1;
                }
                sim
            }
            None => {
                self.generation += 1;
                self.flock_steps = 0;
                self.flock
                    .insert(FlockSim::new(device, queue, count, self.seed, params))
            }
        };
        // Counted in f64 (an f32 time would skip 6 steps at a time by day
        // 11); 1/60 s exactly, not the f32 step's rounding.
        let target = (time.max(0.0) * FLOCK_STEPS_PER_S).round() as u64;
        if target < self.flock_steps {
            // Time went back (a reset): start again from the seed.
            sim.reset(queue);
            self.flock_steps = 0;
        }
        let needed = target - self.flock_steps;
        let steps = match self.settings.max_catch_up {
            Some(max) => needed.min(max as u64),
            None => needed,
        };
        // With the velocity target (`keep_previous` is then whether the
        // previous frame's time holds): the state the previous frame drew,
        // copied before this frame's steps, or after them after a jump (no
        // motion).
        if keep_previous == Some(true) {
            encoder.copy_buffer_to_buffer(sim.state(), 0, &self.previous_boids, 0, bytes);
        }
        sim.step(queue, encoder, FLOCK_STEP_S, steps as u32);
        if keep_previous == Some(false) {
            encoder.copy_buffer_to_buffer(sim.state(), 0, &self.previous_boids, 0, bytes);
        }
        // Steps a slow frame could not catch up are dropped, not owed.
        self.flock_steps = target;
    }

    /// What the CPU mirror needs this frame.
    pub fn view(&self) -> BehaviourView<'_> {
        if !self.active {
            return BehaviourView::Off;
        }
        match (self.kind(), &self.herd, &self.table) {
            (BehaviourKind::Herd(_), Some((herd, _)), Some(table)) => {
                BehaviourView::Herd { herd, table }
            }
            (BehaviourKind::Flock(flap, glide), ..) => BehaviourView::Flock { flap, glide },
            _ => BehaviourView::Off,
        }
    }

    /// The herd's centre and heading at time `t` (herd time), when this
    /// model has a herd.
    pub fn herd_centre(&mut self, queue: &wgpu::Queue, t: f64) -> Option<(Vec2, Vec2)> {
        let clips = self.herd_clips?;
        let count = self.herd_count();
        Some(self.herd_for(queue, clips, count).centre(t))
    }

    /// Where the herd's horses stand at herd time `t` (the CPU twin of
    /// the GPU's placement), written into `out`.
    pub fn herd_positions(&mut self, queue: &wgpu::Queue, t: f64, out: &mut Vec<Vec2>) {
        out.clear();
        let Some(clips) = self.herd_clips else {
            return;
        };
        let count = self.herd_count();
        let herd = self.herd_for(queue, clips, count);
        let table = herd.table(t);
        out.extend((0..count).map(|i| herd.instance(&table, i, t).position));
    }

    /// The box (min, max) the herd's formation takes, across and along
    /// the path, relative to the herd's centre.
    pub fn herd_box(&mut self, queue: &wgpu::Queue) -> Option<(Vec2, Vec2)> {
        let clips = self.herd_clips?;
        let count = self.herd_count();
        Some(self.herd_for(queue, clips, count).slot_box(count))
    }

    /// True when the crowd has a flock (alone, or over a scene's herd).
    pub fn has_flock(&self) -> bool {
        self.flock_clips.is_some()
    }

    /// The instances in the herd.
    pub fn herd_count(&self) -> u32 {
        self.counts.0.max(1)
    }

    /// The flock's simulation, once it has stepped.
    pub fn flock_sim(&self) -> Option<&FlockSim> {
        self.flock.as_ref()
    }

    /// A key that changes whenever the buffers of [`Self::buffers`]
    /// change (the flock's current state flips every step).
    pub fn binding_key(&self) -> u64 {
        let flip = self.flock.as_ref().map_or(0, |f| f.state_index() as u64);
        self.generation * 2 + flip
    }

    /// The buffers bound at group 2, bindings 3 (herd table), 4 (herd path),
    /// 5 (flock state) and 6 (the flock's previous state).
    pub fn buffers(&self) -> [&wgpu::Buffer; 4] {
        let boids = self
            .flock
            .as_ref()
            .map_or(&self.placeholder_boids, |f| f.state());
        [
            &self.table_buffer,
            &self.path_buffer,
            boids,
            &self.previous_boids,
        ]
    }

    /// Bytes of the behaviour's own GPU resources.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.table_buffer.size()
            + self.path_buffer.size()
            + self.placeholder_boids.size()
            + self.previous_boids.size()
            + self.flock.as_ref().map_or(0, FlockSim::gpu_memory_bytes)
    }
}
