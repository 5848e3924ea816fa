// Scene time for long uptimes: the frame carries the time as `time_hi`
// (at most 16 significant bits) + `time_lo` (the small rest), split by
// `crowd::scene_time::split_time` from the CPU's f64. `scene_cycles` is
// the twin of `crowd::scene_time::scene_cycles`: the same f32 steps, so
// day 30 is as smooth as second 3. Needs nothing (the compute tests use it
// alone).

// `x` with only the top 8 (12) significant bits of its significand. Masks,
// not arithmetic: exact whatever the compiler fuses.
fn keep_8_bits(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) & 0xffff0000u);
}

fn keep_12_bits(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
}

// (time × num / den) mod 1, in [0, 1), time = time_hi + time_lo: cycles of
// a period den / num seconds long. 0 when den is not positive.
fn scene_cycles(time_hi: f32, time_lo: f32, num: f32, den: f32) -> f32 {
    if !(den > 0.0) {
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
    // time_hi × c2 (up to T × c × 2^-24 cycles: hundreds for fast rates) as
    // an exact product and a small one.
    let d = keep_8_bits(c2);
    let pd = time_hi * d;
    let high = (pa - floor(pa)) + (pb - floor(pb)) + (pc - floor(pc)) + (pd - floor(pd)) + time_hi * (c2 - d);
    let cycles = (high - floor(high)) + (time_lo * c1 + time_lo * c2);
    let f = cycles - floor(cycles);
    // 1 - tiny rounds to 1 in f32; keep the result in [0, 1).
    return select(f, 0.0, f >= 1.0);
}
