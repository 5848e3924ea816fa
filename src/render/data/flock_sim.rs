//! The flock's GPU objects and one simulation step (five compute passes).

use crate::crowd::flock::{Boid, FlockParams, FlockUniform, initial_boid};
use crate::gpu::{GpuError, compute_storage, read_buffer};
use crate::render::util::shaders;

/// The flock's state buffers grow to at most twice the largest flock
/// (`crowd::MAX_FLOCK`, which the renderer checks); that stays inside
/// 128 MiB, the storage binding every WebGPU device offers, so no flock the
/// crowd accepts can ask for a buffer over the limit.
const _: () =
    assert!(2 * (crate::crowd::MAX_FLOCK as u64) * std::mem::size_of::<Boid>() as u64 <= 128 << 20);

const WORKGROUP: u32 = 64;

const PASSES: [&str; 5] = [
    "clear_cells",
    "count_cells",
    "scan_cells",
    "scatter_boids",
    "update_boids",
];

/// The flock: two state buffers (read one, write the other), the grid, and
/// the pipelines of a step.
pub struct FlockSim {
    params: FlockParams,
    seed: u64,
    count: u32,
    capacity: u32,
    /// Index of the buffer holding the current state.
    current: usize,
    states: [wgpu::Buffer; 2],
    uniform: wgpu::Buffer,
    grid: [wgpu::Buffer; 5],
    layout: wgpu::BindGroupLayout,
    bind_groups: [wgpu::BindGroup; 2],
    pipelines: Vec<wgpu::ComputePipeline>,
    cells: u32,
    /// The cells the grid buffers hold ([`grid_room`]: at least `cells`).
    grid_cells: u32,
    /// Bumped when the state buffers are replaced (bind groups that read them
    /// must be rebuilt).
    pub generation: u64,
}

impl FlockSim {
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        count: u32,
        seed: u64,
        params: FlockParams,
    ) -> Self {
        let layout = Self::layout(device);
        let module = shaders::FLOCK.create(device);
        let pipelines = PASSES
            .iter()
            .map(|entry| {
                crate::render::util::pipeline::compute_pipeline(
                    device,
                    entry,
                    &[Some(&layout)],
                    &module,
                    entry,
                )
            })
            .collect();
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("flock uniform"),
            size: std::mem::size_of::<FlockUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let capacity = count.max(1);
        let states = Self::state_buffers(device, capacity);
        let cells = params.uniform(count, 0.0).grid_dims[3];
        let grid = Self::grid_buffers(device, capacity, cells);
        let bind_groups = Self::bind_groups(device, &layout, &uniform, &states, &grid);
        let mut sim = Self {
            params,
            seed,
            count: 0,
            capacity,
            current: 0,
            states,
            uniform,
            grid,
            layout,
            bind_groups,
            pipelines,
            cells,
            grid_cells: grid_room(&params, count),
            generation: 0,
        };
        sim.write_new(queue, 0, count);
        sim.count = count;
        sim
    }

    fn layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
        let mut entries = vec![wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }];
        entries.push(compute_storage(1, true));
        entries.extend((2..8).map(|b| compute_storage(b, false)));
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("flock layout"),
            entries: &entries,
        })
    }

    fn state_buffers(device: &wgpu::Device, capacity: u32) -> [wgpu::Buffer; 2] {
        ["flock state a", "flock state b"].map(|label| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: capacity as u64 * std::mem::size_of::<Boid>() as u64,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        })
    }

    /// cell counts, cell starts, per-bird cell, per-bird slot, sorted birds.
    fn grid_buffers(device: &wgpu::Device, capacity: u32, cells: u32) -> [wgpu::Buffer; 5] {
        let sizes = [cells, cells, capacity, capacity, capacity];
        let labels = [
            "flock cell counts",
            "flock cell starts",
            "flock bird cells",
            "flock bird slots",
            "flock sorted birds",
        ];
        std::array::from_fn(|i| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(labels[i]),
                size: sizes[i].max(1) as u64 * 4,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        })
    }

    fn bind_groups(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        uniform: &wgpu::Buffer,
        states: &[wgpu::Buffer; 2],
        grid: &[wgpu::Buffer; 5],
    ) -> [wgpu::BindGroup; 2] {
        [(0, 1), (1, 0)].map(|(src, dst)| {
            let mut entries = vec![
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: states[src].as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: states[dst].as_entire_binding(),
                },
            ];
            entries.extend(grid.iter().enumerate().map(|(i, b)| wgpu::BindGroupEntry {
                binding: 3 + i as u32,
                resource: b.as_entire_binding(),
            }));
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(if src == 0 {
                    "flock step a→b"
                } else {
                    "flock step b→a"
                }),
                layout,
                entries: &entries,
            })
        })
    }

    /// Uploads the initial state of birds `from..to` into the current buffer.
    fn write_new(&self, queue: &wgpu::Queue, from: u32, to: u32) {
        if to <= from {
            return;
        }
        let boids: Vec<Boid> = (from..to)
            .map(|i| initial_boid(self.seed, i, &self.params))
            .collect();
        let offset = from as u64 * std::mem::size_of::<Boid>() as u64;
        queue.write_buffer(
            &self.states[self.current],
            offset,
            bytemuck::cast_slice(&boids),
        );
    }

    /// Bytes of the simulation's buffers (both states, the grid, the
    /// uniform).
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.states
            .iter()
            .chain(&self.grid)
            .map(|b| b.size())
            .sum::<u64>()
            + self.uniform.size()
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    pub fn params(&self) -> &FlockParams {
        &self.params
    }

    /// Changes the parameters from the next step on (the grid's buffers
    /// grow when it needs more cells than they hold).
    pub fn set_params(&mut self, device: &wgpu::Device, params: FlockParams) {
        self.params = params;
        self.cells = params.uniform(self.count, 0.0).grid_dims[3];
        if self.cells > self.grid_cells {
            self.grid_cells = grid_room(&params, self.count);
            self.grid = Self::grid_buffers(device, self.capacity, self.grid_cells);
            self.bind_groups = Self::bind_groups(
                device,
                &self.layout,
                &self.uniform,
                &self.states,
                &self.grid,
            );
        }
    }

    /// Changes the number of birds. New birds start from their seeded state;
    /// the buffers grow geometrically (the old state is copied on the GPU).
    pub fn set_count(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, count: u32) {
        if count > self.capacity {
            let capacity = count.max(self.capacity.saturating_mul(2));
            let states = Self::state_buffers(device, capacity);
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("flock grow"),
            });
            let used = self.count as u64 * std::mem::size_of::<Boid>() as u64;
            if used > 0 {
                encoder.copy_buffer_to_buffer(
                    &self.states[self.current],
                    0,
                    &states[self.current],
                    0,
                    used,
                );
            }
            queue.submit([encoder.finish()]);
            self.states = states;
            self.capacity = capacity;
            self.grid = Self::grid_buffers(device, capacity, self.grid_cells);
            self.bind_groups = Self::bind_groups(
                device,
                &self.layout,
                &self.uniform,
                &self.states,
                &self.grid,
            );
            self.generation += 1;
        }
        if count > self.count {
            self.write_new(queue, self.count, count);
        }
        self.count = count;
    }

    /// Records `steps` simulation steps of `dt` seconds each.
    pub fn step(
        &mut self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        dt: f32,
        steps: u32,
    ) {
        if self.count == 0 || steps == 0 {
            return;
        }
        queue.write_buffer(
            &self.uniform,
            0,
            bytemuck::bytes_of(&self.params.uniform(self.count, dt)),
        );
        let birds = self.count.div_ceil(WORKGROUP);
        let groups = [self.cells.div_ceil(WORKGROUP), birds, 1, birds, birds];
        for _ in 0..steps {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("flock step"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &self.bind_groups[self.current], &[]);
            for (pipeline, &n) in self.pipelines.iter().zip(&groups) {
                pass.set_pipeline(pipeline);
                pass.dispatch_workgroups(n, 1, 1);
            }
            drop(pass);
            self.current = 1 - self.current;
        }
    }

    /// Which of the two state buffers is current (it flips every step), for
    /// callers that cache bind groups on [`Self::state`].
    pub fn state_index(&self) -> usize {
        self.current
    }

    /// Puts every bird back in its seeded initial state (time ran backwards).
    pub fn reset(&mut self, queue: &wgpu::Queue) {
        self.write_new(queue, 0, self.count);
    }

    /// The buffer holding the current state (`count()` [`Boid`]s).
    pub fn state(&self) -> &wgpu::Buffer {
        &self.states[self.current]
    }

    /// Copies the current state back to the CPU (tests and diagnostics).
    pub fn read_back(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<Vec<Boid>, GpuError> {
        let bytes = self.count as u64 * std::mem::size_of::<Boid>() as u64;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("flock readback"),
            size: bytes.max(4),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("flock readback"),
        });
        encoder.copy_buffer_to_buffer(self.state(), 0, &staging, 0, bytes);
        queue.submit([encoder.finish()]);
        let data = read_buffer(device, &staging, bytes)?;
        Ok(bytemuck::pod_collect_to_vec(&data))
    }
}

/// The cells a grid of `params`' box gets room for: one more along each
/// axis, since a box that moves (a scene's flock follows its herd) rounds
/// to a cell more or fewer from frame to frame, and its buffers and bind
/// groups are not made again each time it does.
fn grid_room(params: &FlockParams, count: u32) -> u32 {
    let [x, y, z, _] = params.uniform(count, 0.0).grid_dims;
    (x + 1) * (y + 1) * (z + 1)
}
