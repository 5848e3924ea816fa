//! The skin pass's dispatch parameters: one slot per view of each
//! skinning step of the frame, then one per level, each at
//! [`PARAMS_STRIDE`] in one buffer bound with a dynamic offset.

use crate::render::data::gpu_data::SkinParams;
use crate::render::passes::techniques::MAX_VIEWS;
use crate::render::passes::techniques::compute_skinning::MAX_SKIN_LEVELS;

/// Bytes between dispatch parameters (the largest storage offset
/// alignment WebGPU allows).
pub const PARAMS_STRIDE: u64 = 256;
/// The steps of a frame that skin (`Technique::before_passes`): the whole
/// or early one, and occlusion culling's late one. Each writes its views'
/// parameters into its own bank: a queue write lands before the frame's
/// commands run, so a bank shared by both steps would hand the early
/// step's dispatches the late step's views.
const STEPS: usize = 2;
/// The views' parameter slots: one bank of [`MAX_VIEWS`] per step.
pub const VIEW_SLOTS: usize = STEPS * MAX_VIEWS;
/// Parameter slots: the views' banks, then one per level.
const PARAMS_SLOTS: usize = VIEW_SLOTS + MAX_SKIN_LEVELS;

/// Writes `slots` into `bytes`, each at its [`PARAMS_STRIDE`].
fn pack(slots: &[SkinParams], bytes: &mut [u8]) {
    for (i, p) in slots.iter().enumerate() {
        let at = i * PARAMS_STRIDE as usize;
        bytes[at..at + std::mem::size_of::<SkinParams>()].copy_from_slice(bytemuck::bytes_of(p));
    }
}

/// The buffer's first contents: the levels' parameters, which are fixed
/// (the views' are written per step).
pub fn initial_bytes() -> Vec<u8> {
    let mut slots = [SkinParams::default(); PARAMS_SLOTS];
    for (l, p) in slots[VIEW_SLOTS..].iter_mut().enumerate() {
        p.level = l as u32;
    }
    let mut bytes = vec![0u8; PARAMS_SLOTS * PARAMS_STRIDE as usize];
    pack(&slots, &mut bytes);
    bytes
}

/// The first view slot of the frame's `step`th skinning step (its bank; a
/// step past the last shares the last bank).
pub fn first_slot(step: usize) -> usize {
    step.min(STEPS - 1) * MAX_VIEWS
}

/// Writes the views' parameters into `params` at the bank from
/// `first_slot`; the bank's byte offset, to which a view's
/// `i * PARAMS_STRIDE` adds.
pub fn write_views(
    queue: &wgpu::Queue,
    params: &wgpu::Buffer,
    first_slot: usize,
    views: &[SkinParams; MAX_VIEWS],
) -> u64 {
    let mut bytes = [0u8; MAX_VIEWS * PARAMS_STRIDE as usize];
    pack(views, &mut bytes);
    let at = first_slot as u64 * PARAMS_STRIDE;
    queue.write_buffer(params, at, &bytes);
    at
}

/// The dynamic offset of level `l`'s fixed parameters.
pub fn level_offset(l: u32) -> u32 {
    ((VIEW_SLOTS as u64 + l as u64) * PARAMS_STRIDE) as u32
}
