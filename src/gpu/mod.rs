//! Plain wgpu setup: instance, adapter, device and what the adapter can do.
//!
//! Nothing here knows about crowds; the renderer and the window app build on
//! a [`GpuContext`].

mod dispatch;
mod limitations;
mod texture_read;

pub use dispatch::{MAX_DISPATCH_ROW, dispatch_rows, dispatch_rows_within};
pub use limitations::limitations;

use std::sync::{Arc, Mutex};
use std::time::Duration;
use web_time::Instant;

/// A wait for the GPU says it is still waiting after this long, and again
/// every time this much more has passed.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// The environment variable that bounds every wait for the GPU, in
/// seconds (unset: wait as long as the device is alive).
pub const TIMEOUT_VAR: &str = "STAMPEDE_GPU_TIMEOUT";

/// The bound `STAMPEDE_GPU_TIMEOUT` sets, if any.
pub fn wait_limit() -> Option<Duration> {
    std::env::var(TIMEOUT_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
}

/// Why no device could be made.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error(
        "no GPU adapter found: install a Vulkan driver (on Debian/Ubuntu: apt-get install mesa-vulkan-drivers libvulkan1), or try WGPU_BACKEND=gl ({0})"
    )]
    NoAdapter(String),
    #[error(
        "this browser has WebGPU but offers no adapter for it ({0}): WebGPU may be turned off or the GPU blocked by the browser. Use a current Chrome, Edge, Firefox or Safari with WebGPU on, or the native viewer (cargo run --release)"
    )]
    NoBrowserAdapter(String),
    #[error("the adapter '{adapter}' refused to create a device: {source}")]
    Device {
        adapter: String,
        #[source]
        source: wgpu::RequestDeviceError,
    },
    #[error("could not create a window surface: {0}")]
    Surface(#[from] wgpu::CreateSurfaceError),
    #[error("reading back a GPU buffer failed: {0}")]
    Readback(String),
    #[error(
        "the GPU did not finish {what} within {seconds:.0} s ({TIMEOUT_VAR}); the device was still alive, so it may only be slow: raise or unset {TIMEOUT_VAR}"
    )]
    Timeout { what: String, seconds: f64 },
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),
}

/// What the renderer may use on this device.
#[derive(Clone, Copy, Debug)]
pub struct Capabilities {
    /// GPU timings are possible (timestamps in and around passes).
    pub timestamps: bool,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period: f32,
    /// Rgba32Float textures can be sampled with a filtering sampler.
    pub float32_filterable: bool,
    pub max_texture_dimension_2d: u32,
    pub max_texture_array_layers: u32,
    pub max_storage_buffer_binding_size: u64,
    pub max_buffer_size: u64,
}

/// What a test's device leaves out even where the adapter has it
/// ([`GpuContext::headless_withholding`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Withheld {
    pub features: wgpu::Features,
    /// At most this many storage buffers per shader stage.
    pub storage_buffers: Option<u32>,
}

/// Instance, adapter, device and queue, shared by everything that draws.
pub struct GpuContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub caps: Capabilities,
    /// What this device cannot do that a desktop GPU can, one line each
    /// for the panel (a browser's WebGPU lacks several).
    pub limitations: Vec<String>,
    /// Why the device can no longer be used (lost, or an uncaptured error).
    lost: Arc<Mutex<Option<String>>>,
}

impl GpuContext {
    /// A device with no window: for screenshots, tests and benchmarks.
    pub fn headless() -> Result<Arc<Self>, GpuError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        pollster::block_on(Self::new(instance, None)).map(Arc::new)
    }

    /// A device with no window on one of `backends` only (tests compare
    /// backends; [`Self::headless`] follows `WGPU_BACKEND`).
    pub fn headless_on(backends: wgpu::Backends) -> Result<Arc<Self>, GpuError> {
        let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        descriptor.backends = backends;
        let instance = wgpu::Instance::new(descriptor);
        pollster::block_on(Self::new(instance, None)).map(Arc::new)
    }

    /// A device with no window that leaves out `withheld` even where the
    /// adapter has it: tests draw what a device without it (a browser's
    /// WebGPU) draws.
    pub fn headless_withholding(withheld: Withheld) -> Result<Arc<Self>, GpuError> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        pollster::block_on(Self::withholding(instance, None, withheld)).map(Arc::new)
    }

    /// A device for `instance`, able to present to `surface` when given.
    pub async fn new(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self, GpuError> {
        Self::withholding(instance, surface, Withheld::default()).await
    }

    async fn withholding(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
        withheld: Withheld,
    ) -> Result<Self, GpuError> {
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: surface,
                apply_limit_buckets: false,
            })
            .await
            .map_err(|e| {
                if cfg!(target_arch = "wasm32") {
                    GpuError::NoBrowserAdapter(e.to_string())
                } else {
                    GpuError::NoAdapter(e.to_string())
                }
            })?;
        let info = adapter.get_info();
        let available = adapter.features();
        let wanted = wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES
            | wgpu::Features::FLOAT32_FILTERABLE
            // The cull pass's single multi-draw (else one draw per level).
            | wgpu::Features::INDIRECT_FIRST_INSTANCE
            // The impostors' depth test before their fragments.
            | wgpu::Features::SHADER_EARLY_DEPTH_TEST;
        let mut withheld = withheld;
        if info.backend == wgpu::Backend::Gl {
            // wgpu offers it on any GL context of GLES 3.1's level without
            // checking the extension naga's GLSL ES then requires
            // (GL_EXT_conservative_depth; Mesa 22.3 lists only the ARB and
            // AMD ones): where it is missing the impostor shaders would
            // not compile. GL is the fallback; it does without.
            withheld.features |= wgpu::Features::SHADER_EARLY_DEPTH_TEST;
        }
        let required_features = available & (wanted - withheld.features);
        let adapter_limits = adapter.limits();
        // Ask for what the adapter has: big crowds want big storage buffers
        // and big VATs want wide textures.
        let mut required_limits = wgpu::Limits {
            max_storage_buffer_binding_size: adapter_limits.max_storage_buffer_binding_size,
            max_buffer_size: adapter_limits.max_buffer_size,
            max_texture_dimension_2d: adapter_limits.max_texture_dimension_2d,
            max_texture_array_layers: adapter_limits.max_texture_array_layers,
            // Occlusion culling's variant of the cull pass binds 13, the
            // splats' 11.
            max_storage_buffers_per_shader_stage: adapter_limits
                .max_storage_buffers_per_shader_stage
                .max(wgpu::Limits::default().max_storage_buffers_per_shader_stage),
            ..wgpu::Limits::default().using_resolution(adapter_limits.clone())
        };
        if let Some(n) = withheld.storage_buffers {
            let limit = &mut required_limits.max_storage_buffers_per_shader_stage;
            *limit = (*limit).min(n);
        }
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("stampede device"),
                required_features,
                required_limits: required_limits.clone(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|source| GpuError::Device {
                adapter: info.name.clone(),
                source,
            })?;
        let caps = Capabilities {
            timestamps: required_features.contains(wgpu::Features::TIMESTAMP_QUERY),
            timestamp_period: queue.get_timestamp_period(),
            float32_filterable: required_features.contains(wgpu::Features::FLOAT32_FILTERABLE),
            max_texture_dimension_2d: required_limits.max_texture_dimension_2d,
            max_texture_array_layers: required_limits.max_texture_array_layers,
            max_storage_buffer_binding_size: required_limits.max_storage_buffer_binding_size,
            max_buffer_size: required_limits.max_buffer_size,
        };
        log::info!("GPU: {}", describe(&info));
        let lost = watch(&device);
        let limitations = limitations(required_features, &required_limits);
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            info,
            caps,
            limitations,
            lost,
        })
    }

    /// Why the device is unusable: it was lost (destroyed, a driver reset)
    /// or raised an error no error scope caught (validation, out of
    /// memory). `None` while it works. The first reason is kept.
    pub fn lost(&self) -> Option<String> {
        self.lost.lock().ok().and_then(|l| l.clone())
    }

    /// `Err(DeviceLost)` once [`lost`](Self::lost) has a reason.
    pub fn check(&self) -> Result<(), GpuError> {
        match self.lost() {
            Some(reason) => Err(GpuError::DeviceLost(reason)),
            None => Ok(()),
        }
    }

    /// Like [`read_buffer`], but a lost device gives `DeviceLost` (before
    /// waiting, or as the reason a wait failed), and the wait reports
    /// progress and lasts as long as the device is alive.
    pub fn read(&self, buffer: &wgpu::Buffer, len: u64) -> Result<Vec<u8>, GpuError> {
        self.check()?;
        read_buffer_while(&self.device, buffer, len, || self.lost()).map_err(|e| {
            match self.lost() {
                Some(reason) => GpuError::DeviceLost(reason),
                None => e,
            }
        })
    }

    /// Waits until the GPU has finished everything submitted so far: as
    /// long as the device is alive (or [`TIMEOUT_VAR`] allows), saying so
    /// every [`PROGRESS_EVERY`] once that much has passed. `what` names
    /// the work in those lines ("the frame", "the screenshot").
    pub fn wait_idle(&self, what: &str) -> Result<(), GpuError> {
        self.check()?;
        let mut waiting = Waiting::new(what);
        loop {
            match self.device.poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: Some(Duration::from_millis(500)),
            }) {
                Ok(_) => return self.check(),
                Err(wgpu::PollError::Timeout) => {}
                Err(e) => {
                    return Err(match self.lost() {
                        Some(reason) => GpuError::DeviceLost(reason),
                        None => GpuError::Readback(e.to_string()),
                    });
                }
            }
            if let Some(reason) = self.lost() {
                return Err(GpuError::DeviceLost(reason));
            }
            waiting.tick()?;
        }
    }

    /// One line naming the adapter, its type and backend.
    pub fn description(&self) -> String {
        describe(&self.info)
    }

    /// The largest MSAA sample count up to 4 that both formats support.
    pub fn msaa_samples(&self, color: wgpu::TextureFormat, depth: wgpu::TextureFormat) -> u32 {
        let c = self.adapter.get_texture_format_features(color).flags;
        let d = self.adapter.get_texture_format_features(depth).flags;
        [4, 2]
            .into_iter()
            .find(|&n| c.sample_count_supported(n) && d.sample_count_supported(n))
            .unwrap_or(1)
    }
}

/// Installs the device-lost callback and the uncaptured-error handler
/// (wgpu's default one panics): both log and record the first reason.
fn watch(device: &wgpu::Device) -> Arc<Mutex<Option<String>>> {
    let lost = Arc::new(Mutex::new(None));
    let record = |lost: &Arc<Mutex<Option<String>>>, reason: String| {
        if let Ok(mut l) = lost.lock()
            && l.is_none()
        {
            *l = Some(reason);
        }
    };
    let on_lost = lost.clone();
    device.set_device_lost_callback(move |why, message| {
        let reason = match why {
            wgpu::DeviceLostReason::Destroyed => format!("destroyed ({message})"),
            wgpu::DeviceLostReason::Unknown => message,
        };
        log::error!("GPU device lost: {reason}");
        record(&on_lost, reason);
    });
    let on_error = lost.clone();
    device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
        let reason = match &error {
            wgpu::Error::OutOfMemory { .. } => format!("out of GPU memory: {error}"),
            wgpu::Error::Validation { description, .. } => {
                format!("validation error: {description}")
            }
            wgpu::Error::Internal { description, .. } => format!("internal error: {description}"),
        };
        log::error!("GPU error: {reason}");
        record(&on_error, reason);
    }));
    lost
}

fn describe(info: &wgpu::AdapterInfo) -> String {
    // Browsers keep the adapter's name to themselves.
    let name = if info.name.is_empty() {
        "unnamed adapter"
    } else {
        &info.name
    };
    format!("{name} ({:?}, {:?})", info.device_type, info.backend)
}

/// A wait for the GPU that says how long it has waited (on standard error,
/// every [`PROGRESS_EVERY`] once that much has passed) and gives up only
/// past [`wait_limit`].
struct Waiting<'a> {
    what: &'a str,
    started: Instant,
    next: Duration,
    limit: Option<Duration>,
}

impl<'a> Waiting<'a> {
    fn new(what: &'a str) -> Self {
        Self {
            what,
            started: Instant::now(),
            next: PROGRESS_EVERY,
            limit: wait_limit(),
        }
    }

    /// After each bounded poll: the progress line when due, the timeout
    /// when reached.
    fn tick(&mut self) -> Result<(), GpuError> {
        let waited = self.started.elapsed();
        if let Some(limit) = self.limit
            && waited > limit
        {
            return Err(GpuError::Timeout {
                what: self.what.to_string(),
                seconds: limit.as_secs_f64(),
            });
        }
        if waited >= self.next {
            eprintln!(
                "still waiting for the GPU to finish {}: {} s so far (the device is alive: a slow adapter, not an error)",
                self.what,
                waited.as_secs()
            );
            self.next += PROGRESS_EVERY;
        }
        Ok(())
    }
}

/// Waits for the GPU and copies a mappable buffer's first `len` bytes out
/// (as long as it takes; see [`GpuContext::read`] for a wait that stops
/// when the device is lost).
pub fn read_buffer(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    len: u64,
) -> Result<Vec<u8>, GpuError> {
    read_buffer_while(device, buffer, len, || None)
}

/// [`read_buffer`], giving up when `lost` has a reason.
fn read_buffer_while(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
    len: u64,
    lost: impl Fn() -> Option<String>,
) -> Result<Vec<u8>, GpuError> {
    let slice = buffer.slice(..len);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    // Bounded polls, so that a lost device (or the limit) ends the wait
    // and the progress lines come out.
    let mut waiting = Waiting::new("a read-back");
    let mapped = loop {
        let waited = device.poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: Some(Duration::from_millis(500)),
        });
        match rx.try_recv() {
            Ok(result) => break result,
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                return Err(GpuError::Readback("the mapping was dropped".into()));
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {}
        }
        if let Some(reason) = lost() {
            return Err(GpuError::DeviceLost(reason));
        }
        match waited {
            Err(wgpu::PollError::Timeout) => {}
            Err(e) => return Err(GpuError::Readback(e.to_string())),
            // Nothing left to wait for, yet no answer: do not spin hot.
            Ok(_) => std::thread::sleep(Duration::from_millis(1)),
        }
        waiting.tick()?;
    };
    mapped.map_err(|e| GpuError::Readback(e.to_string()))?;
    let bytes = slice
        .get_mapped_range()
        .map_err(|e| GpuError::Readback(format!("{e:?}")))?
        .to_vec();
    buffer.unmap();
    Ok(bytes)
}

/// The layers to give a texture that is read through a `D2Array` view,
/// for one that holds `layers`. The GL backend takes a texture's view
/// dimension from its layer count (1: `D2`, 6 or a multiple of 6: a cube),
/// so there a one-layer array would be bound as a plain 2D texture and
/// every draw that reads it would draw nothing; it gets a spare layer
/// (none is ever read). Other backends get `layers`.
pub fn array_layers(device: &wgpu::Device, layers: u32) -> u32 {
    if device.adapter_info().backend != wgpu::Backend::Gl {
        return layers;
    }
    let layers = layers.max(2);
    if layers.is_multiple_of(6) {
        layers + 1
    } else {
        layers
    }
}

/// A compute-stage storage-buffer layout entry with no size limit.
pub fn compute_storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}
