//! Scene time for long uptimes: the CPU keeps it in f64 seconds; the GPU
//! gets it as two f32 ([`split_time`]) and reduces every product with a
//! rate modulo its period with [`scene_cycles`], the twin of `scene_cycles`
//! in shaders/scene_time.wgsl (same f32 steps).
//!
//! Why: an f32 second counter has a resolution of 1/16 s after 11 days, so
//! the animation would advance in steps. Splitting the time into a high
//! part with few significant bits and a small remainder, and the rate into
//! byte-sized pieces, makes every large product exact in f32; only the
//! fraction of a cycle is kept, so day 30 is as smooth as second 3.

/// Below this many seconds the time is sent whole (`time_hi` = 0): the
/// shaders then use the plain products they always did.
pub const SPLIT_FROM_S: f64 = 256.0;

/// Significant bits `time_hi` keeps (so `time_hi × byte` is exact in f32).
const HI_BITS: i32 = 16;

/// Scene time `t` as `(time_hi, time_lo)`, `t = time_hi + time_lo`:
/// `time_hi` has at most 16 significant bits (a multiple of at least 256 s,
/// rounded towards zero) and `time_lo` is the small remainder, the same sign
/// as `t`. Below [`SPLIT_FROM_S`] it is `(0, t as f32)`.
pub fn split_time(t: f64) -> (f32, f32) {
    if !t.is_finite() || t.abs() < SPLIT_FROM_S {
        return (0.0, t as f32);
    }
    let exponent = t.abs().log2().floor() as i32;
    let quantum = 2f64.powi((exponent - (HI_BITS - 1)).max(8));
    let hi = (t / quantum).trunc() * quantum;
    (hi as f32, (t - hi) as f32)
}

/// `x` with only the top 8 significant bits of its significand (exact:
/// `x - keep_8_bits(x)` is representable).
fn keep_8_bits(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0xffff_0000)
}

/// `x` with only the top 12 significant bits of its significand.
fn keep_12_bits(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0xffff_f000)
}

/// The fraction of a cycle `(time × num / den) mod 1`, in `[0, 1)`, for a
/// time split by [`split_time`]: cycles of a period `den / num` seconds
/// long (a clip's duration over its playback rate, a lap's length over the
/// ground speed). Accurate to about 1e-6 cycles plus `time_lo`'s f32
/// rounding, whatever the time; 0 when `den` is not positive. The twin of
/// `scene_cycles` in shaders/scene_time.wgsl: keep the steps identical.
pub fn scene_cycles(time_hi: f32, time_lo: f32, num: f32, den: f32) -> f32 {
    if den.is_nan() || den <= 0.0 {
        return 0.0;
    }
    // num / den as c1 + c2: the residual num - c1 × den is exact from
    // 12-bit halves (every partial product fits in 24 bits).
    let c1 = num / den;
    let c1h = keep_12_bits(c1);
    let c1l = c1 - c1h;
    let dh = keep_12_bits(den);
    let dl = den - dh;
    let residual = (((num - c1h * dh) - c1h * dl) - c1l * dh) - c1l * dl;
    let c2 = residual / den;
    // time_hi × c1 in three exact products (16 bits × 8 bits each).
    let a = keep_8_bits(c1);
    let b = keep_8_bits(c1 - a);
    let c = (c1 - a) - b;
    let pa = time_hi * a;
    let pb = time_hi * b;
    let pc = time_hi * c;
    // time_hi × c2 (up to T × c × 2⁻²⁴ cycles: hundreds for fast rates) as
    // an exact product and a small one.
    let d = keep_8_bits(c2);
    let pd = time_hi * d;
    let high = (pa - pa.floor())
        + (pb - pb.floor())
        + (pc - pc.floor())
        + (pd - pd.floor())
        + time_hi * (c2 - d);
    let cycles = (high - high.floor()) + (time_lo * c1 + time_lo * c2);
    let f = cycles - cycles.floor();
    // 1 - tiny rounds to 1 in f32; keep the result in [0, 1).
    if f >= 1.0 { 0.0 } else { f }
}

#[cfg(test)]
mod tests;
