//! The instance storage buffer shared by every technique: grows
//! geometrically, uploading only the instances that are new.

use crate::crowd::scene::{CrowdModelGpu, MAX_SCENE_MODELS};
use crate::crowd::{CountError, Instance, generate, grow_capacity, validate_count};

/// The instance storage buffer shared by every technique.
pub struct CrowdBuffer {
    pub buffer: wgpu::Buffer,
    seed: u64,
    capacity: u32,
    /// Instances generated and uploaded so far (`>= count`).
    generated: u32,
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
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        seed: u64,
        count: u32,
        max_binding: u64,
    ) -> Result<Self, CountError> {
        let count = validate_count(count as u64, max_binding)?;
        let capacity = grow_capacity(0, count);
        let mut crowd = Self {
            buffer: Self::allocate(device, capacity),
            seed,
            capacity,
            generated: 0,
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
        crowd.set_count(device, queue, count)?;
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

    pub fn count(&self) -> u32 {
        self.count
    }

    /// The instances of a scene of several models, `counts[m]` of model
    /// `m` one after the other: model 0's are those a crowd of it alone
    /// has (grown from `seed`), each further model's grown from its own
    /// seed ([`scene_seed`]). The count is fixed (a new count is a new
    /// buffer).
    pub fn for_scene(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        seed: u64,
        counts: &[u32],
        max_binding: u64,
    ) -> Result<Self, CountError> {
        let total: u64 = counts.iter().map(|&c| c as u64).sum();
        let total = validate_count(total, max_binding)?;
        let crowd = Self::new(device, queue, seed, total, max_binding)?;
        let mut first = counts.first().copied().unwrap_or(0) as u64;
        for (m, &count) in counts.iter().enumerate().skip(1) {
            let instances: Vec<Instance> = (0..count)
                .map(|i| generate(scene_seed(seed, m), i))
                .collect();
            let offset = first * std::mem::size_of::<Instance>() as u64;
            queue.write_buffer(&crowd.buffer, offset, bytemuck::cast_slice(&instances));
            first += count as u64;
        }
        Ok(crowd)
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

    /// Changes the number of instances drawn. Lowering it only changes the
    /// draw range; raising it generates and uploads only the new instances,
    /// reallocating (and copying on the GPU) when the capacity runs out.
    pub fn set_count(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        count: u32,
    ) -> Result<(), CountError> {
        let count = validate_count(count as u64, self.max_binding)?;
        if count > self.capacity {
            let capacity = grow_capacity(self.capacity, count)
                .min((self.max_binding / std::mem::size_of::<Instance>() as u64) as u32)
                .max(count);
            let buffer = Self::allocate(device, capacity);
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("crowd grow"),
            });
            let used = self.generated as u64 * std::mem::size_of::<Instance>() as u64;
            if used > 0 {
                encoder.copy_buffer_to_buffer(&self.buffer, 0, &buffer, 0, used);
            }
            queue.submit([encoder.finish()]);
            self.buffer = buffer;
            self.capacity = capacity;
            self.generation += 1;
            self.allocations += 1;
        }
        if count > self.generated {
            let new: Vec<Instance> = (self.generated..count)
                .map(|i| generate(self.seed, i))
                .collect();
            let offset = self.generated as u64 * std::mem::size_of::<Instance>() as u64;
            queue.write_buffer(&self.buffer, offset, bytemuck::cast_slice(&new));
            self.generated = count;
        }
        self.count = count;
        Ok(())
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
