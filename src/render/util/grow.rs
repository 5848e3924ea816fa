//! Buffers that grow with what they hold.

/// Grows a buffer geometrically: returns a new buffer when `needed` bytes
/// do not fit (the caller rebuilds its bind group), `None` when they do.
pub fn grow_buffer(
    device: &wgpu::Device,
    current: Option<&wgpu::Buffer>,
    label: &'static str,
    needed: u64,
    limit: u64,
    usage: wgpu::BufferUsages,
) -> Option<wgpu::Buffer> {
    let have = current.map_or(0, |b| b.size());
    if needed <= have && current.is_some() {
        return None;
    }
    // Never above `limit` (rounded down to 16 bytes) unless `needed` itself
    // is: callers cap their counts so that it is not.
    let grown = needed
        .max(have.saturating_mul(2))
        .max(256)
        .next_power_of_two()
        .min(limit / 16 * 16);
    let size = grown.max(needed.div_ceil(16) * 16);
    Some(device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    }))
}
