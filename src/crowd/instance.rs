//! The crowd's members: generated deterministically from a seed, one
//! instance at a time, so growing the crowd never changes the instances
//! already there. Every technique draws the same instances.

use super::rng::{splitmix64, unit_f32};
use bytemuck::{Pod, Zeroable};

/// One member of the crowd, generated once from the seed.
/// Mirrors `Instance` in shaders/crowd.wgsl (checked by tests/gpu_layout.rs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable, PartialEq)]
pub struct Instance {
    pub lane: f32,
    pub phase: f32,
    pub scale: f32,
    pub time_offset: f32,
    pub speed: f32,
    pub clip: u32,
    pub tint: u32,
    pub height: f32,
}
const _: () = assert!(std::mem::size_of::<Instance>() == 32);

/// The most instances the viewer accepts.
pub const MAX_INSTANCES: u32 = 10_000_000;

/// The most birds one flock simulates: its two state buffers (48 bytes a
/// bird) then fit 128 MiB, the storage binding every WebGPU device
/// offers. A crowd may hold more instances than that (`MAX_INSTANCES`),
/// but not more flying ones: [`validate_flock`] refuses them.
pub const MAX_FLOCK: u32 = 1_000_000;

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
pub enum CountError {
    #[error("the instance count must be at least 1")]
    Zero,
    #[error("{given} counts for a crowd of {models} models: give one count per model")]
    Counts { given: usize, models: usize },
    #[error("a crowd of {models} models needs at least one instance of each, not {given} in all")]
    FewerThanModels { given: u32, models: usize },
    #[error(
        "{count} instances need {bytes} bytes, more than this GPU's storage buffer limit of {limit} bytes (at most {max} instances)"
    )]
    TooMany {
        count: u64,
        bytes: u64,
        limit: u64,
        max: u64,
    },
    #[error("{count} instances are more than a crowd holds: at most {max}")]
    OverMax { count: u64, max: u32 },
    #[error(
        "{count} instances need a visible list of {bytes} bytes (the cull pass's {regions} \
         regions, one per model and level), more than this GPU's storage buffer limit of \
         {limit} bytes"
    )]
    Lists {
        count: u64,
        regions: usize,
        bytes: u64,
        limit: u64,
    },
    #[error(
        "{birds} birds are more than a flock holds: at most {max} birds fly in one flock \
         (its state must fit a 128 MiB storage binding); fewer birds, or other models for the rest"
    )]
    Flock { birds: u64, max: u32 },
}

/// Instance `index` of the crowd grown from `seed`. It depends on nothing
/// else, so growing the crowd never changes the instances already there.
pub fn generate(seed: u64, index: u32) -> Instance {
    let mut state = splitmix64(seed ^ splitmix64(index as u64));
    let mut next = || {
        state = splitmix64(state);
        unit_f32(state)
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

/// Checks the birds of a crowd's flock (every instance of a model that
/// flies in the flock, behaviour on or not) against [`MAX_FLOCK`].
pub fn validate_flock(birds: u64) -> Result<(), CountError> {
    if birds > MAX_FLOCK as u64 {
        return Err(CountError::Flock {
            birds,
            max: MAX_FLOCK,
        });
    }
    Ok(())
}

/// Checks a requested count against the limits; returns it when usable.
pub fn validate_count(count: u64, max_binding: u64) -> Result<u32, CountError> {
    let size = std::mem::size_of::<Instance>() as u64;
    let max = (max_binding / size).min(MAX_INSTANCES as u64);
    if count == 0 {
        return Err(CountError::Zero);
    }
    if count > max && max == MAX_INSTANCES as u64 {
        return Err(CountError::OverMax {
            count,
            max: MAX_INSTANCES,
        });
    }
    if count > max {
        return Err(CountError::TooMany {
            count,
            bytes: count.saturating_mul(size),
            limit: max_binding,
            max,
        });
    }
    Ok(count as u32)
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
        assert!(matches!(validate_count(0, 1 << 27), Err(CountError::Zero)));
        // Over the crowd's own limit: said as that, not as the GPU's
        // (whose binding would hold it).
        let over = validate_count(20_000_000, 1 << 30).unwrap_err();
        assert!(matches!(over, CountError::OverMax { .. }), "{over}");
        assert!(over.to_string().contains("at most 10000000"), "{over}");
        // WebGPU's default binding (128 MiB) holds 4,194,304 instances.
        assert!(matches!(
            validate_count(5_000_000, 1 << 27),
            Err(CountError::TooMany { max: 4_194_304, .. })
        ));
        assert!(matches!(
            validate_count(1000, 3200),
            Err(CountError::TooMany { max: 100, .. })
        ));
        assert!(validate_flock(MAX_FLOCK as u64).is_ok());
        let flock = validate_flock(MAX_FLOCK as u64 + 1).unwrap_err();
        assert!(
            flock.to_string().contains("at most 1000000 birds"),
            "{flock}"
        );
        assert_eq!(validate_count(10_000_000, 1 << 30).ok(), Some(10_000_000));
        assert_eq!(validate_count(1000, 1 << 27).ok(), Some(1000));
    }
}
