//! The instance storage buffer shared by every technique: each model's
//! instances one after the other (model `m`'s grown from its own seed,
//! [`scene_seed`]); grows geometrically, uploading only the instances that
//! are new or that moved.

use crate::crowd::scene::{CrowdModelGpu, MAX_SCENE_MODELS};
use crate::crowd::{CountError, Instance, generate, grow_capacity, validate_count};

/// The instance storage buffer shared by every technique.
pub struct CrowdBuffer {
    pub buffer: wgpu::Buffer,
    seed: u64,
    capacity: u32,
    /// Instances uploaded so far, from the start, that are in place for
    /// `counts` (`>= count`: the last model's beyond its count stay).
    generated: u32,
    /// Each model's instances, in the buffer's order.
    counts: Vec<u32>,
    count: u32,
    max_binding: u64,
    /// Bumped whenever `buffer` is replaced, so bind groups get rebuilt.
    pub generation: u64,
    /// How many times the buffer was (re)allocated, for tests and the panel.
    pub allocations: u32,
    /// The scene's models (`crowd_models` in crowd.wgsl), written every
    /// frame; its size never changes.
    pub models: wgpu::Buffer,
    /// The table last written (skipped when unchanged).
    last_models: Vec<CrowdModelGpu>,
}

impl CrowdBuffer {
    /// The instances of `counts[m]` of each model `m`, one model after the
    /// other: model 0's are those a crowd of it alone has (grown from
    /// `seed`), each further model's grown from its own seed.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        seed: u64,
        counts: &[u32],
        max_binding: u64,
    ) -> Result<Self, CountError> {
        let total = validate_count(counts.iter().map(|&c| c as u64).sum(), max_binding)?;
        let capacity = grow_capacity(0, total)
            .min((max_binding / std::mem::size_of::<Instance>() as u64) as u32)
            .max(total);
        let mut crowd = Self {
            buffer: Self::allocate(device, capacity),
            seed,
            capacity,
            generated: 0,
            counts: vec![0; counts.len()],
            count: 0,
            max_binding,
            generation: 0,
            allocations: 1,
            models: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("crowd models"),
                size: (MAX_SCENE_MODELS * std::mem::size_of::<CrowdModelGpu>()) as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            last_models: Vec::new(),
        };
        crowd.set_counts(device, queue, counts)?;
        Ok(crowd)
    }

    fn allocate(device: &wgpu::Device, capacity: u32) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("crowd instances"),
            size: capacity as u64 * std::mem::size_of::<Instance>() as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    }

    /// Every model's instances together.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Each model's instances.
    pub fn counts(&self) -> &[u32] {
        &self.counts
    }

    /// Writes the scene's model table (at most [`MAX_SCENE_MODELS`]
    /// entries; the rest stay empty) when it changed.
    pub fn write_models(&mut self, queue: &wgpu::Queue, table: &[CrowdModelGpu]) {
        let table = &table[..table.len().min(MAX_SCENE_MODELS)];
        if self.last_models == table {
            return;
        }
        let mut padded = [CrowdModelGpu::default(); MAX_SCENE_MODELS];
        padded[..table.len()].copy_from_slice(table);
        queue.write_buffer(&self.models, 0, bytemuck::cast_slice(&padded));
        self.last_models.clear();
        self.last_models.extend_from_slice(table);
    }

    /// The model table last written (empty before the first frame).
    pub fn models_written(&self) -> &[CrowdModelGpu] {
        &self.last_models
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Changes the one model's instances (the first model's, in a crowd of
    /// several: see [`Self::set_counts`]).
    pub fn set_count(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        count: u32,
    ) -> Result<(), CountError> {
        let mut counts = self.counts.clone();
        counts[0] = count;
        self.set_counts(device, queue, &counts)
    }

    /// Changes each model's instances. The instances before the first
    /// model whose count changed stay where they are, and so do that
    /// model's own up to the smaller count (all of them when it is the
    /// last model: lowering its count only changes the draw range); the
    /// rest are generated and uploaded. The buffer is reallocated (its
    /// kept instances copied on the GPU) when the capacity runs out.
    pub fn set_counts(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        counts: &[u32],
    ) -> Result<(), CountError> {
        let total = validate_count(counts.iter().map(|&c| c as u64).sum(), self.max_binding)?;
        let kept = self.kept_for(counts);
        if total > self.capacity {
            let capacity = grow_capacity(self.capacity, total)
                .min((self.max_binding / std::mem::size_of::<Instance>() as u64) as u32)
                .max(total);
            let buffer = Self::allocate(device, capacity);
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("crowd grow"),
            });
            let used = kept as u64 * std::mem::size_of::<Instance>() as u64;
            if used > 0 {
                encoder.copy_buffer_to_buffer(&self.buffer, 0, &buffer, 0, used);
            }
            queue.submit([encoder.finish()]);
            self.buffer = buffer;
            self.capacity = capacity;
            self.generation += 1;
            self.allocations += 1;
        }
        if total > kept {
            let mut first = 0u32;
            let mut new = Vec::with_capacity((total - kept) as usize);
            for (m, &count) in counts.iter().enumerate() {
                let from = kept.max(first) - first;
                new.extend((from..count).map(|i| generate(scene_seed(self.seed, m), i)));
                first += count;
            }
            let offset = kept as u64 * std::mem::size_of::<Instance>() as u64;
            queue.write_buffer(&self.buffer, offset, bytemuck::cast_slice(&new));
        }
        self.generated = kept.max(total);
        self.counts = counts.to_vec();
        self.count = total;
        Ok(())
    }

    /// The instances from the start of the buffer that are in place for
    /// `counts`.
    fn kept_for(&self, counts: &[u32]) -> u32 {
        let mut first = 0u32;
        for (m, (&old, &new)) in self.counts.iter().zip(counts).enumerate() {
            let last = m + 1 == self.counts.len() && m + 1 == counts.len();
            if last {
                // Past the last model's count, its instances are still its.
                return self
                    .generated
                    .min(first + new.max(old).max(self.generated - first));
            }
            if old != new {
                return first + old.min(new);
            }
            first += old;
        }
        first.min(self.generated)
    }
}

/// The seed model `m` of a scene grows its instances from: the scene's own
/// for the first model (so it is the crowd that model alone would have).
pub fn scene_seed(seed: u64, m: usize) -> u64 {
    if m == 0 {
        seed
    } else {
        crate::crowd::rng::splitmix64(seed ^ (m as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }
}
