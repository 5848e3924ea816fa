//! A small mappable copy of GPU data, read without stalling: the copy is
//! recorded with a frame, mapping starts after that frame's submit, and the
//! bytes are read once the map has landed (a frame or two later). The
//! timestamp read-backs and the cull pass's argument read-backs share it.

use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum State {
    #[default]
    Idle,
    /// The copy is recorded; mapping starts after the submit.
    Copied,
    /// Mapping was asked for.
    Pending,
    /// Mapped: the bytes can be read.
    Ready,
}

pub struct MappedCopy {
    buffer: wgpu::Buffer,
    state: Arc<Mutex<State>>,
}

impl MappedCopy {
    pub fn new(device: &wgpu::Device, label: &str, size: u64) -> Self {
        Self {
            buffer: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            state: Arc::default(),
        }
    }

    fn is(&self, state: State) -> bool {
        self.state.lock().is_ok_and(|s| *s == state)
    }

    fn set(&self, state: State) {
        if let Ok(mut s) = self.state.lock() {
            *s = state;
        }
    }

    /// True when no copy is recorded, mapping or unread (a new copy may be
    /// recorded).
    pub fn is_idle(&self) -> bool {
        self.is(State::Idle)
    }

    /// Records a copy of the first `bytes` of `source` (at most the copy's
    /// size). Call only when [`Self::is_idle`].
    pub fn record(&self, encoder: &mut wgpu::CommandEncoder, source: &wgpu::Buffer, bytes: u64) {
        let bytes = bytes.min(self.buffer.size());
        encoder.copy_buffer_to_buffer(source, 0, &self.buffer, 0, bytes);
        self.set(State::Copied);
    }

    /// After the submit: starts mapping a recorded copy (nothing otherwise).
    pub fn start_map(&self) {
        if !self.is(State::Copied) {
            return;
        }
        self.set(State::Pending);
        let state = self.state.clone();
        self.buffer
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                if let Ok(mut s) = state.lock() {
                    *s = if r.is_ok() { State::Ready } else { State::Idle };
                }
            });
    }

    /// Reads the bytes with `read` once the map has landed (poll the device
    /// first), then makes the copy idle again; `None` before that.
    pub fn take<T>(&self, read: impl FnOnce(&[u8]) -> T) -> Option<T> {
        if !self.is(State::Ready) {
            return None;
        }
        let out = self
            .buffer
            .slice(..)
            .get_mapped_range()
            .ok()
            .map(|view| read(&view));
        self.buffer.unmap();
        self.set(State::Idle);
        out
    }
}
