//! The crowd's GPU data, long-lived and shared by every pass: the models'
//! vertices and mesh levels, the instances with the model table, and the
//! herd or flock. A frame hands the passes this data with its uniform
//! ([`CrowdGpu::frame`]); the passes own only their own GPU objects.

use crate::crowd::FrameUniform;
use crate::gpu::GpuContext;
use crate::render::data::behaviour::Behaviour;
use crate::render::data::crowd_buffer::CrowdBuffer;
use crate::render::data::model_gpu::ModelGpu;
use crate::render::passes::techniques::FrameContext;

/// See the module's comment.
pub struct CrowdGpu {
    pub model: ModelGpu,
    pub crowd: CrowdBuffer,
    /// The herd or the flock, bound next to the crowd.
    pub behaviour: Behaviour,
}

impl CrowdGpu {
    /// What the passes of the frame with `uniform` read.
    pub fn frame<'a>(&'a self, gpu: &'a GpuContext, uniform: &'a FrameUniform) -> FrameContext<'a> {
        FrameContext {
            device: &gpu.device,
            queue: &gpu.queue,
            crowd: &self.crowd,
            model: &self.model,
            frame: uniform,
            behaviour: &self.behaviour,
            models: self.crowd.models_written(),
        }
    }

    /// GPU bytes of the mesh, the instances and the behaviour.
    pub fn gpu_memory_bytes(&self) -> u64 {
        self.crowd.buffer.size() + self.model.gpu_memory_bytes() + self.behaviour.gpu_memory_bytes()
    }
}
