//! A scene's models as the crowd shaders see them: for each model, its
//! range of instances, its clips in the scene's clip table, how its crowd
//! moves and where its field is ([`CrowdModelGpu`], the `crowd_models`
//! table of shaders/crowd.wgsl). A scene of one model has one entry, made
//! from the frame's own fields ([`CrowdModelGpu::single`]), so it draws as
//! it always did.

use super::FrameUniform;
use bytemuck::{Pod, Zeroable};

/// The most models one scene holds (the shaders' `MAX_SCENE_MODELS`).
pub const MAX_SCENE_MODELS: usize = 8;

/// One model of the scene. Mirrors `CrowdModel` in shaders/crowd.wgsl
/// (tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct CrowdModelGpu {
    /// Its instances are `first_instance .. first_instance + count` of the
    /// scene's instance buffer (models in order, none empty).
    pub first_instance: u32,
    pub count: u32,
    /// Its clips are `first_clip .. first_clip + clip_count` of the scene's
    /// clip table.
    pub first_clip: u32,
    pub clip_count: u32,
    /// The clip all its instances play (one of its own, counted from 0),
    /// or [`super::CLIP_MIXED`] for each instance's own.
    pub clip: u32,
    /// [`super::Motion`] as a number.
    pub motion: u32,
    /// Its field's radius and its member size (as `Frame`'s for one model).
    pub field_radius: f32,
    pub model_size: f32,
    /// Where its field is centred on the ground (x, z).
    pub offset: [f32; 2],
    /// With behaviour on, what its instances do: [`JOINS_NOTHING`] (its
    /// loops), [`JOINS_HERD`] or [`JOINS_FLOCK`].
    pub joins: u32,
    /// Its first instance's rank in the herd or the flock it joins: the
    /// herd's slots and the flock's boids count every joining model's
    /// instances, in the scene's order.
    pub rank_base: u32,
    /// Its own clips (from 0) for the herd's gaits (walk, gallop, idle),
    /// or for the flock's flap and glide (x, y).
    pub gait_clips: [u32; 4],
    /// The herd's ground speed ÷ its own, per gait: its clips' time rate,
    /// so that its feet stay planted at the herd's pace (1 for the model
    /// the herd's speeds are from).
    pub gait_rates: [f32; 4],
    /// Its last `undrawn` instances are not drawn this frame: a
    /// technique's instance cap shared out over the models
    /// ([`Self::share_cap`]; 0 when nothing is capped).
    pub undrawn: u32,
    /// Its drawn instances' per-instance data (palettes, skinned slots)
    /// start at slot `first_instance - slot_shift`: the instances of the
    /// models before it that are not drawn take none.
    pub slot_shift: u32,
    pub _pad: [u32; 2],
}
const _: () = assert!(std::mem::size_of::<CrowdModelGpu>() == 96);

/// [`CrowdModelGpu::joins`]: its loops, whatever the behaviour.
pub const JOINS_NOTHING: u32 = 0;
/// [`CrowdModelGpu::joins`]: the herd.
pub const JOINS_HERD: u32 = 1;
/// [`CrowdModelGpu::joins`]: the flock.
pub const JOINS_FLOCK: u32 = 2;

impl CrowdModelGpu {
    /// The one model of a single-model scene: the frame's own fields.
    pub fn single(frame: &FrameUniform) -> Self {
        Self {
            first_instance: 0,
            count: frame.instance_count,
            first_clip: 0,
            clip_count: frame.clip_count,
            clip: frame.clip,
            motion: frame.motion,
            field_radius: frame.field_radius,
            model_size: frame.model_size,
            offset: [0.0; 2],
            joins: JOINS_NOTHING,
            rank_base: 0,
            gait_clips: [0; 4],
            gait_rates: [1.0; 4],
            ..Self::default()
        }
    }

    /// Its instances drawn this frame: the first `count - undrawn`.
    pub fn drawn(&self) -> u32 {
        self.count - self.undrawn.min(self.count)
    }

    /// Every model's drawn instances: the slots `table` uses.
    pub fn drawn_total(table: &[Self]) -> u32 {
        table.iter().map(Self::drawn).sum()
    }

    /// The slot of its first drawn instance.
    pub fn first_slot(&self) -> u32 {
        self.first_instance - self.slot_shift
    }

    /// Shares `cap` drawn instances out over the models of `table` (every
    /// instance when they fit): each model in proportion to its count
    /// (rounded down, then one more for the first models while some are
    /// left), so that a cap leaves every model its share of the crowd
    /// instead of drawing the first models whole and the last not at all.
    /// Sets each entry's `undrawn` and `slot_shift`; returns the instances
    /// drawn (the slots used).
    pub fn share_cap(table: &mut [Self], cap: u32) -> u32 {
        // Each share is kept as `undrawn` (count - share) as it is made:
        // no allocation in a frame.
        let total: u64 = table.iter().map(|e| e.count as u64).sum();
        for e in table.iter_mut() {
            let share = if total <= cap as u64 {
                e.count
            } else {
                (cap as u64 * e.count as u64 / total) as u32
            };
            e.undrawn = e.count - share;
        }
        // Rounding down leaves fewer than one per model.
        let mut left = cap.saturating_sub(Self::drawn_total(table));
        for e in table.iter_mut() {
            if left > 0 && e.undrawn > 0 {
                e.undrawn -= 1;
                left -= 1;
            }
        }
        let mut slot = 0;
        for e in table.iter_mut() {
            e.slot_shift = e.first_instance - slot;
            slot += e.drawn();
        }
        slot
    }

    /// The slot of instance `index` of `table`, when it is drawn. The twin
    /// of `instance_drawn` and `palette_slot` in crowd.wgsl.
    pub fn slot_of(table: &[Self], index: u32) -> Option<u32> {
        let e = table.get(Self::model_of(table, index))?;
        let local = index.checked_sub(e.first_instance)?;
        (local < e.drawn()).then(|| index - e.slot_shift)
    }

    /// The frame as this model's instances see it (its own clips counted
    /// from 0, its field, motion and size): what the CPU twins of the
    /// placement and the clip time take for it (then add [`Self::offset`]).
    pub fn frame_for(&self, frame: &FrameUniform) -> FrameUniform {
        FrameUniform {
            clip: self.clip,
            clip_count: self.clip_count,
            motion: self.motion,
            field_radius: self.field_radius,
            model_size: self.model_size,
            ..*frame
        }
    }

    /// Where its field is centred.
    pub fn offset(&self) -> glam::Vec3 {
        glam::Vec3::new(self.offset[0], 0.0, self.offset[1])
    }

    /// The model instance `index` belongs to in `table` (entries in
    /// instance order; empty entries end it). The twin of `model_of` in
    /// crowd.wgsl.
    pub fn model_of(table: &[Self], index: u32) -> usize {
        let mut m = 0;
        for (k, e) in table.iter().enumerate().skip(1) {
            if e.count == 0 || index < e.first_instance {
                break;
            }
            m = k;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_find_their_model() {
        let entry = |first_instance, count| CrowdModelGpu {
            first_instance,
            count,
            ..Default::default()
        };
        let table = [entry(0, 3), entry(3, 2), entry(5, 4), entry(0, 0)];
        let models: Vec<usize> = (0..9).map(|i| CrowdModelGpu::model_of(&table, i)).collect();
        assert_eq!(models, [0, 0, 0, 1, 1, 2, 2, 2, 2]);
        assert_eq!(CrowdModelGpu::model_of(&table[..1], 7), 0);
    }

    #[test]
    fn a_cap_is_shared_out_over_the_models() {
        let entry = |first_instance, count| CrowdModelGpu {
            first_instance,
            count,
            ..Default::default()
        };
        let scene = [entry(0, 40), entry(40, 30), entry(70, 30)];
        // Under the cap: everything, slots the instance indices.
        let mut table = scene;
        assert_eq!(CrowdModelGpu::share_cap(&mut table, 100), 100);
        assert!(table.iter().all(|e| e.undrawn == 0 && e.slot_shift == 0));
        assert_eq!(CrowdModelGpu::slot_of(&table, 75), Some(75));
        // 61 of 100: 24, 18, 18 by proportion, the one left to the first.
        let mut table = scene;
        assert_eq!(CrowdModelGpu::share_cap(&mut table, 61), 61);
        let drawn: Vec<u32> = table.iter().map(|e| e.drawn()).collect();
        assert_eq!(drawn, [25, 18, 18]);
        let slots: Vec<u32> = table.iter().map(|e| e.first_slot()).collect();
        assert_eq!(slots, [0, 25, 43]);
        // Every drawn instance has its own slot, below the cap, in order.
        let mut seen = Vec::new();
        for i in 0..100 {
            let m = CrowdModelGpu::model_of(&table, i);
            let local = i - table[m].first_instance;
            match CrowdModelGpu::slot_of(&table, i) {
                Some(slot) => {
                    assert!(local < table[m].drawn());
                    seen.push(slot);
                }
                None => assert!(local >= table[m].drawn()),
            }
        }
        assert_eq!(seen, (0..61).collect::<Vec<_>>());
        // A cap below the model count: the first models get one each.
        let mut table = scene;
        assert_eq!(CrowdModelGpu::share_cap(&mut table, 2), 2);
        let drawn: Vec<u32> = table.iter().map(|e| e.drawn()).collect();
        assert_eq!(drawn, [1, 1, 0]);
        assert_eq!(table[2].first_slot(), 2);
        // One model: its first `cap`.
        let mut one = [entry(0, 10)];
        assert_eq!(CrowdModelGpu::share_cap(&mut one, 4), 4);
        assert_eq!((one[0].undrawn, one[0].slot_shift), (6, 0));
    }
}
