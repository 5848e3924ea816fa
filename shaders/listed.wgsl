// The visible list a crowd or impostor draw reads (render::cull), and the
// state the cull pass resolved for what it lists (resolved.wgsl).
// requires: resolved

// Each entry is an instance index (low 28 bits), its LOD level (bits 28
// to 30) and the nearest-frame flag (bit 31). Bound with the level's
// region offset, or whole with the region's start as the first instance
// (then `frame.resolved` is 1 and the list ends with its state).
@group(3) @binding(0) var<storage, read> visible: array<u32>;

// The list's state stride (0 when it keeps no state or is not bound
// whole).
fn listed_stride() -> u32 {
    if frame.resolved == 0u {
        return 0u;
    }
    return visible[arrayLength(&visible) - 1u];
}

// The state of listed instance `index` as the cull pass resolved it, this
// frame's or (`previous`) the previous frame's; the list's stride must be
// `listed_stride()`, not 0, and at least 2 * STATE_WORDS for `previous`.
fn listed_state(index: u32, stride: u32, previous: bool) -> AnimState {
    let at = state_word(arrayLength(&visible), index, stride) + select(0u, STATE_WORDS, previous);
    var w: array<u32, 16>;
    for (var k = 0u; k < STATE_WORDS; k++) {
        w[k] = visible[at + k];
    }
    return unpack_state(w);
}

// This frame's state of listed instance `index`: the list's when it keeps
// it, else computed.
fn entry_state(index: u32, inst: Instance) -> AnimState {
    let stride = listed_stride();
    if stride != 0u {
        return listed_state(index, stride, false);
    }
    return anim_state(index, inst);
}

// The state of listed instance `index` when the previous frame was drawn:
// the list's when it keeps it, else computed.
fn entry_previous_state(index: u32, inst: Instance) -> AnimState {
    let stride = listed_stride();
    if stride >= 2u * STATE_WORDS {
        return listed_state(index, stride, true);
    }
    return previous_anim_state(index, inst);
}
