//! The crowd's per-instance data: generated deterministically from a seed,
//! one instance at a time, and kept in a storage buffer that grows
//! geometrically. Every technique draws from the same buffer, so switching
//! techniques keeps the same crowd.

use super::gpu_data::{CLIP_MIXED, FrameUniform, Instance};
use crate::pose_batch::ClipTime;
use crate::vat::VatClip;

/// The most instances the viewer accepts.
pub const MAX_INSTANCES: u32 = 1_000_000;

/// How the crowd moves (computed on the GPU from time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    /// Gallop around a wide ring track.
    Track = 0,
    /// Circle and undulate in 3D.
    Flock = 1,
    /// Stand in a field, animating in place.
    Stand = 2,
}

/// Why the crowd cannot take a count.
#[derive(Debug, thiserror::Error)]
pub enum CrowdError {
    #[error("the instance count must be at least 1")]
    Zero,
    #[error(
        "{count} instances need {bytes} bytes, more than this GPU's storage buffer limit of {limit} bytes (at most {max} instances)"
    )]
    TooMany {
        count: u64,
        bytes: u64,
        limit: u64,
        max: u64,
    },
}

/// SplitMix64: a small, good, seekable generator.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Instance `index` of the crowd grown from `seed`. It depends on nothing
/// else, so growing the crowd never changes the instances already there.
pub fn generate(seed: u64, index: u32) -> Instance {
    let mut state = splitmix(seed ^ splitmix(index as u64));
    let mut next = || {
        state = splitmix(state);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    let lane = next();
    let phase = next() * std::f32::consts::TAU;
    let scale = 0.88 + 0.24 * next();
    let time_offset = next();
    let speed = 0.94 + 0.12 * next();
    let clip = (next() * 1024.0) as u32;
    // Coat tints: mostly near white, some warmer or darker.
    let shade = 0.72 + 0.28 * next();
    let warm = next() * 0.12;
    let tint = [shade, shade * (1.0 - warm * 0.5), shade * (1.0 - warm), 1.0];
    let tint = u32::from_le_bytes(tint.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8));
    let height = next();
    Instance {
        lane,
        phase,
        scale,
        time_offset,
        speed,
        clip,
        tint,
        height,
    }
}

/// The clip an instance plays and its clip time in seconds (before wrapping
/// or clamping), computed exactly as `instance_clip` and `instance_clip_time`
/// in shaders/crowd.wgsl do. Keep in sync with crowd.wgsl: the CPU techniques
/// and the parity checks use this to show the pose the GPU shows.
pub fn instance_clip_time(
    inst: &Instance,
    frame: &FrameUniform,
    clips: &[VatClip],
) -> (usize, f32) {
    let count = frame.clip_count.max(1);
    let clip = if frame.clip == CLIP_MIXED {
        inst.clip % count
    } else {
        frame.clip.min(frame.clip_count.saturating_sub(1))
    } as usize;
    let duration = clips.get(clip).map_or(0.0, |c| c.duration);
    let rate = frame.playback * inst.speed;
    (
        clip,
        frame.time * rate + inst.time_offset * frame.spread * duration,
    )
}

/// The clip time to sample a pose at for VAT clip time `t`: wrapped for a
/// looping clip, clamped otherwise (the VAT's `frame_at`).
pub fn pose_time(clip: &VatClip, t: f32) -> f32 {
    let segments = clip.segments();
    if segments == 0 {
        0.0
    } else {
        clip.frame_at(t) / segments as f32 * clip.duration
    }
}

/// What to sample for an instance: the model clip and the clip time that
/// the VAT shows for it this frame (exact, not lerped between frames).
pub fn instance_pose(inst: &Instance, frame: &FrameUniform, clips: &[VatClip]) -> ClipTime {
    let (c, t) = instance_clip_time(inst, frame, clips);
    match clips.get(c) {
        Some(clip) => (clip.source, pose_time(clip, t)),
        None => (None, 0.0),
    }
}

/// A CPU copy of the first instances of a crowd, for the techniques that
/// animate on the CPU. Grows like the GPU buffer, generating only new ones.
#[derive(Clone, Debug, Default)]
pub struct CrowdMirror {
    seed: u64,
    instances: Vec<Instance>,
}

impl CrowdMirror {
    /// The first `count` instances of the crowd grown from `seed`.
    pub fn get(&mut self, seed: u64, count: u32) -> &[Instance] {
        if seed != self.seed {
            self.instances.clear();
            self.seed = seed;
        }
        let have = self.instances.len() as u32;
        if count > have {
            self.instances.reserve((count - have) as usize);
            self.instances
                .extend((have..count).map(|i| generate(seed, i)));
        }
        &self.instances[..count as usize]
    }
}

/// The capacity to allocate for `needed` instances when `current` is too
/// small: at least double, so a rising slider reallocates O(log n) times.
pub fn grow_capacity(current: u32, needed: u32) -> u32 {
    if needed <= current {
        current
    } else {
        needed
            .max(current.saturating_mul(2))
            .max(64)
            .next_power_of_two()
            .min(MAX_INSTANCES.next_power_of_two())
    }
}

/// Checks a requested count against the limits; returns it when usable.
pub fn validate_count(count: u64, max_binding: u64) -> Result<u32, CrowdError> {
    let size = std::mem::size_of::<Instance>() as u64;
    let max = (max_binding / size).min(MAX_INSTANCES as u64);
    if count == 0 {
        return Err(CrowdError::Zero);
    }
    if count > max {
        return Err(CrowdError::TooMany {
            count,
            bytes: count.saturating_mul(size),
            limit: max_binding,
            max,
        });
    }
    Ok(count as u32)
}

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
}

impl CrowdBuffer {
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        seed: u64,
        count: u32,
        max_binding: u64,
    ) -> Result<Self, CrowdError> {
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
    ) -> Result<(), CrowdError> {
        let count = validate_count(count as u64, self.max_binding)?;
        if count > self.capacity {
            let capacity = grow_capacity(self.capacity, count)
                .min((self.max_binding / 32) as u32)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic_and_independent_of_count() {
        assert_eq!(generate(7, 123), generate(7, 123));
        assert_ne!(generate(7, 123), generate(8, 123));
        assert_ne!(generate(7, 123), generate(7, 124));
        let i = generate(1, 5);
        assert!((0.0..1.0).contains(&i.lane) && (0.0..1.0).contains(&i.time_offset));
        assert!(i.scale > 0.8 && i.scale < 1.2 && i.speed > 0.9 && i.speed < 1.1);
    }

    #[test]
    fn capacity_grows_geometrically() {
        let mut cap = 0;
        let mut reallocations = 0;
        for needed in 1..=100_000 {
            let next = grow_capacity(cap, needed);
            if next != cap {
                reallocations += 1;
                assert!(next >= needed && next >= cap * 2);
                cap = next;
            }
        }
        assert!(
            reallocations <= 12,
            "{reallocations} reallocations for 100k slider steps"
        );
        // Going down never reallocates.
        assert_eq!(grow_capacity(cap, 10), cap);
    }

    #[test]
    fn bad_counts_are_refused() {
        assert!(matches!(validate_count(0, 1 << 27), Err(CrowdError::Zero)));
        assert!(matches!(
            validate_count(5_000_000, 1 << 27),
            Err(CrowdError::TooMany { .. })
        ));
        assert!(matches!(
            validate_count(1000, 3200),
            Err(CrowdError::TooMany { max: 100, .. })
        ));
        assert_eq!(validate_count(1000, 1 << 27).ok(), Some(1000));
    }
}
