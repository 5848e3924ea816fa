use super::*;

/// Cyclic distance between two fractions of a cycle.
fn cyclic(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(1.0);
    d.min(1.0 - d)
}

const DAY: f64 = 86_400.0;

/// Times from the first seconds to a year, including the 1e6 s.
const TIMES: [f64; 8] = [
    3.0,
    255.9,
    256.0,
    1.0e6,
    1.0e6 + 0.02,
    30.0 * DAY,
    30.0 * DAY + 0.1 / 30.0,
    365.0 * DAY + 0.37,
];

/// (num, den): clip rates over durations (speeds 0.94..1.06, a herd rate
/// over a scaled duration), a lap's ground speed over its length, and
/// large and tiny rates.
const RATES: [(f32, f32); 8] = [
    (1.0, 1.0),
    (1.0573, 0.8333333),
    (0.9412, 2.4),
    (1.0, 1.1731 * 0.76),
    (7.83, 6.283_185_5 * 41.7),
    (113.7, 0.9),
    (4567.25, 1.2345),
    (0.0123, 3.7),
];

#[test]
fn split_time_keeps_the_sum_and_few_bits_in_the_high_part() {
    assert_eq!(split_time(3.0), (0.0, 3.0));
    assert_eq!(split_time(255.5), (0.0, 255.5));
    assert_eq!(split_time(-7.25), (0.0, -7.25));
    for t in TIMES.into_iter().chain([-1.0e6, 1.0e9, 4.0e12]) {
        let (hi, lo) = split_time(t);
        // At most 16 significant bits: the low 7 of the 23 stored are 0.
        assert_eq!(hi.to_bits() & 0x7f, 0, "{t}: {hi}");
        assert!(
            lo.abs() as f64 <= (t.abs() * 2f64.powi(-15)).max(256.0),
            "{t}: {lo}"
        );
        assert!(t == 0.0 || lo == 0.0 || lo.signum() == t.signum() as f32);
        // Only f32's rounding of the small part is lost.
        let error = (hi as f64 + lo as f64 - t).abs();
        assert!(
            error <= lo.abs() as f64 * 2f64.powi(-24),
            "{t}: off by {error}"
        );
    }
}

/// `(T × num / den) mod 1` against f64, from 3 s to a year and for large
/// rates. Allowed: 2e-6 cycles, plus f32's rounding of `time_lo` and of
/// `time_lo × rate` (what the old f32 time had at 256 s, 1.5e-5 s per unit
/// of rate), plus 2⁻⁴⁶ of T × rate (the double-f32 rate: 1e-7 s at a
/// year), where the f32 time alone was off by up to 0.125 s at 30 days.
#[test]
fn scene_cycles_matches_f64_from_seconds_to_a_year() {
    let mut worst = 0.0f64;
    for t in TIMES {
        let (hi, lo) = split_time(t);
        for (num, den) in RATES {
            let c = num as f64 / den as f64;
            let exact = (t * c).rem_euclid(1.0);
            let got = scene_cycles(hi, lo, num, den) as f64;
            assert!((0.0..1.0).contains(&got), "{t} {num}/{den}: {got}");
            let lo_error = (hi as f64 + lo as f64 - t).abs();
            // c1 + c2 holds num / den to about 2⁻⁴⁷ of itself.
            let allowed = 2e-6
                + c * (lo_error + 3.0 * (lo.abs() as f64) * 2f64.powi(-24))
                + t.abs() * c * 2f64.powi(-46);
            let e = cyclic(got, exact);
            worst = worst.max(e / allowed);
            assert!(
                e <= allowed,
                "T {t}, rate {num}/{den}: {got} vs f64 {exact} (off {e:.3e}, allowed {allowed:.3e})"
            );
        }
    }
    eprintln!("worst error {worst:.3} of the allowance");
}

/// A tenth of a 30 fps frame later the phase has moved by a tenth of a
/// frame's worth at day 30 as at second 3 (the f32 time did not move).
#[test]
fn a_tenth_of_a_frame_moves_the_phase_at_day_30_as_at_second_3() {
    let dt = 0.1 / 30.0;
    for (num, den) in RATES {
        let c = num as f64 / den as f64;
        for t in [3.0, 30.0 * DAY] {
            let (h0, l0) = split_time(t);
            let (h1, l1) = split_time(t + dt);
            let moved = (scene_cycles(h1, l1, num, den) - scene_cycles(h0, l0, num, den)) as f64;
            let moved = moved - moved.round() + (dt * c).round();
            let want = dt * c;
            assert!(
                (moved - want).abs() <= 1e-6 + want * 0.01 + 4e-5 * c,
                "T {t}, rate {num}/{den}: moved {moved:.3e} cycles, want {want:.3e}"
            );
        }
    }
}

#[test]
fn scene_cycles_handles_zero_negative_and_degenerate_inputs() {
    assert_eq!(scene_cycles(0.0, 0.0, 1.0, 1.0), 0.0);
    assert_eq!(scene_cycles(65536.0, 12.5, 0.0, 1.0), 0.0);
    assert_eq!(scene_cycles(65536.0, 12.5, 1.0, 0.0), 0.0);
    assert_eq!(scene_cycles(65536.0, 12.5, 1.0, f32::NAN), 0.0);
    // Negative time (or rate): still in [0, 1), the same as f64.
    let (hi, lo) = split_time(-1.0e6 - 0.3);
    let got = scene_cycles(hi, lo, 1.0573, 0.8333333) as f64;
    let exact = ((-1.0e6 - 0.3) * (1.0573f32 as f64 / 0.8333333f32 as f64)).rem_euclid(1.0);
    assert!(cyclic(got, exact) < 1e-5, "{got} vs {exact}");
    let got = scene_cycles(hi, lo, -1.0573, 0.8333333) as f64;
    assert!(cyclic(got, 1.0 - exact) < 1e-5, "{got} vs {}", 1.0 - exact);
}
