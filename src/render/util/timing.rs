//! Frame timing: CPU time, GPU time from timestamp queries (when the device
//! has them), and a short history for the graph.

use crate::render::util::mapped::MappedCopy;
use std::collections::VecDeque;

/// The last few seconds of samples.
#[derive(Clone, Debug)]
pub struct History {
    samples: VecDeque<(f64, f32)>,
    span_s: f64,
}

impl History {
    pub fn new(span_s: f64) -> Self {
        Self {
            samples: VecDeque::new(),
            span_s,
        }
    }

    pub fn add(&mut self, now_s: f64, value: f32) {
        self.samples.push_back((now_s, value));
        while self
            .samples
            .front()
            .is_some_and(|(t, _)| now_s - t > self.span_s)
        {
            self.samples.pop_front();
        }
    }

    pub fn values(&self) -> impl Iterator<Item = f32> + '_ {
        self.samples.iter().map(|(_, v)| *v)
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    pub fn mean(&self) -> Option<f32> {
        (!self.samples.is_empty()).then(|| self.values().sum::<f32>() / self.samples.len() as f32)
    }

    pub fn max(&self) -> Option<f32> {
        self.values().reduce(f32::max)
    }

    /// Samples per second over the history.
    pub fn rate(&self) -> Option<f32> {
        let (first, last) = (self.samples.front()?, self.samples.back()?);
        let span = last.0 - first.0;
        (span > 0.0).then(|| ((self.samples.len() - 1) as f64 / span) as f32)
    }
}

/// GPU time of a pass (or a span of passes), read back a frame or two late.
pub struct GpuTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: MappedCopy,
    period_ns: f32,
    pub last_ms: Option<f32>,
}

impl GpuTimer {
    /// `None` when the device has no timestamp queries.
    pub fn new(device: &wgpu::Device, caps: &crate::gpu::Capabilities) -> Option<Self> {
        if !caps.timestamps {
            return None;
        }
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("frame timestamps"),
            ty: wgpu::QueryType::Timestamp,
            // The start, the end, and the flush `mark` needs.
            count: 3,
        });
        Some(Self {
            queries,
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamp resolve"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: MappedCopy::new(device, "timestamp readback", 16),
            period_ns: caps.timestamp_period,
            last_ms: None,
        })
    }

    /// Timestamp writes for the pass, or `None` while the last reading is
    /// still on its way (that frame goes untimed).
    pub fn pass_writes(&self) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        self.ready().then_some(wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        })
    }

    /// Timestamp writes for a compute pass, or `None` while the last
    /// reading is still on its way (that frame goes untimed).
    pub fn compute_writes(&self) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        self.ready().then_some(wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        })
    }

    /// Forgets the last reading (a benchmark then counts fresh ones only).
    pub fn clear(&mut self) {
        self.last_ms = None;
    }

    /// Timestamp writes for one of several passes timed as one span: the
    /// start in the first, the end in the last. Check [`GpuTimer::ready`]
    /// once before the first.
    pub fn span_writes(
        &self,
        first: bool,
        last: bool,
    ) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        (first || last).then_some(wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: first.then_some(0),
            end_of_pass_write_index: last.then_some(1),
        })
    }

    /// Marks the start (`begin`) or the end of a span of several passes
    /// with an empty compute pass carrying the write (the end also
    /// records the resolve). Mark both ends or neither: check
    /// [`GpuTimer::ready`] once before the start.
    pub fn mark(&self, encoder: &mut wgpu::CommandEncoder, begin: bool) {
        let write = |encoder: &mut wgpu::CommandEncoder, index: u32| {
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some(if begin { "span start" } else { "span end" }),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &self.queries,
                    beginning_of_pass_write_index: Some(index),
                    end_of_pass_write_index: None,
                }),
            });
        };
        if begin {
            write(encoder, 0);
            // A second write, never read: llvmpipe (lavapipe) takes a
            // timestamp when it next flushes its rasterizer, which the
            // next write does; without it the start of a span of compute
            // passes is taken at their end (a million horses' cull passes
            // read 0.12 ms).
            write(encoder, 2);
        } else {
            write(encoder, 1);
            self.resolve(encoder);
        }
    }

    /// True when the last reading has been collected (a new span may be
    /// timed).
    pub fn ready(&self) -> bool {
        self.readback.is_idle()
    }

    /// Resolves the queries after a timed pass and records their copy.
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolve, 0);
        self.readback.record(encoder, &self.resolve, 16);
    }

    /// Call after every submit: starts reading a frame that was timed and
    /// collects a finished reading, if any.
    pub fn after_submit(&mut self, device: &wgpu::Device) {
        self.readback.start_map();
        let _ = device.poll(wgpu::PollType::Poll);
        let period_ns = self.period_ns as f64;
        let ms = self.readback.take(|bytes| {
            let t: &[u64] = bytemuck::cast_slice(bytes);
            (t[1] > t[0]).then(|| ((t[1] - t[0]) as f64 * period_ns / 1e6) as f32)
        });
        if let Some(Some(ms)) = ms {
            self.last_ms = Some(ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_drops_old_samples() {
        let mut h = History::new(1.0);
        for i in 0..100 {
            h.add(i as f64 * 0.1, i as f32);
        }
        assert_eq!(h.len(), 11);
        assert_eq!(h.max(), Some(99.0));
        assert!((h.rate().unwrap_or(0.0) - 10.0).abs() < 1e-3);
    }
}
