use super::*;

fn params() -> HerdParams {
    HerdParams {
        seed: 11,
        clips: [1, 0, 2],
        speeds: [1.3, 8.5, 0.0],
        mix: [0.4, 0.4, 0.2],
        segment: 6.0,
        fade: 0.25,
        spacing: 3.2,
        lag_speed: 12.0,
    }
}

#[test]
fn formation_neighbours_keep_their_distance() {
    let s = 3.2;
    let slots: Vec<Vec2> = (0..2500).map(|i| formation_slot(i, s)).collect();
    for (i, a) in slots.iter().enumerate() {
        for b in &slots[i + 1..] {
            let d = (*a - *b).abs();
            assert!(d.y >= s || d.x >= s / 2.5, "{a} and {b} too close");
        }
    }
}

#[test]
fn the_path_is_measured_in_arc_length_and_turns_gently() {
    let path = HerdPath::new(3, 100.0);
    let step = path.length / PATH_SAMPLES as f32;
    let mut worst_turn = 0.0f32;
    for i in 0..PATH_SAMPLES {
        let (a, ta) = path.at(i as f32 * step, 0.0);
        let (b, tb) = path.at((i + 1) as f32 * step, 0.0);
        assert!(
            (a.distance(b) - step).abs() < 0.01 * step,
            "uneven spacing at {i}"
        );
        worst_turn = worst_turn.max(ta.angle_to(tb).abs() / step);
    }
    // Curvature at most 1 / (0.3 R): a gentle loop, no hairpins.
    assert!(
        worst_turn < 1.0 / 30.0,
        "sharpest turn radius {}",
        1.0 / worst_turn
    );
    // Closed: the end meets the start.
    assert!(path.at(path.length, 0.0).0.distance(path.at(0.0, 0.0).0) < 1e-3 * path.length);
}

#[test]
fn the_gait_mix_is_respected() {
    let herd = Herd::new(params(), 100);
    let mut counts = [0; 3];
    for k in 0..3000 {
        counts[herd.gait(k) as usize] += 1;
    }
    let share = counts.map(|c| c as f32 / 3000.0);
    assert!(
        (share[0] - 0.4).abs() < 0.05
            && (share[1] - 0.4).abs() < 0.05
            && (share[2] - 0.2).abs() < 0.05,
        "{share:?}"
    );
    let mut only_walk = params();
    only_walk.mix = [1.0, 0.0, 0.0];
    let herd = Herd::new(only_walk, 100);
    assert!((0..100).all(|k| herd.gait(k) == Gait::Walk));
}

#[test]
fn distance_is_continuous_and_speed_follows_the_gait() {
    let mut herd = Herd::new(params(), 100);
    let dt = 1.0 / 60.0;
    let mut last: Option<f32> = None;
    for f in 0..(60 * 90) {
        let t = f as f32 * dt;
        let table = herd.table(t);
        // Horse 0 sits near the centre: it sees the schedule shifted by its
        // small lag.
        let h = herd.instance(&table, 0, t);
        let lag = -formation_slot(0, params().spacing).y / params().lag_speed;
        if let Some(prev) = last {
            let v = (h.distance - prev) / dt;
            assert!((-1e-3..=8.5 * 1.01).contains(&v), "speed {v} at {t}");
            let tau = t - lag;
            let k = (tau / 6.0).floor();
            let local = tau - k * 6.0;
            if local > 0.3 {
                let g = herd.gait(k as i64);
                let expected = params().speeds[g as usize];
                assert!(
                    (v - expected).abs() < 0.05,
                    "at {t}: {v} vs {expected} ({g:?})"
                );
                assert_eq!(h.clip, params().clips[g as usize]);
                assert_eq!(h.weight, 1.0);
            }
        }
        last = Some(h.distance);
    }
}

#[test]
fn the_table_gives_the_same_horse_whatever_frame_it_was_made_for() {
    let mut herd = Herd::new(params(), 500);
    for &t in &[0.1f32, 5.9, 6.1, 37.0, 200.0] {
        let table = herd.table(t);
        let shifted = herd.table(t + 0.5);
        for i in [0u32, 7, 99, 499] {
            let a = herd.instance(&table, i, t);
            let b = herd.instance(&shifted, i, t);
            assert!((a.distance - b.distance).abs() < 1e-3, "horse {i} at {t}");
            assert_eq!((a.clip, a.previous), (b.clip, b.previous));
        }
    }
}

#[test]
fn horses_never_run_into_each_other() {
    let count = 150;
    let mut herd = Herd::new(params(), count);
    let mut closest = f32::INFINITY;
    for f in 0..400 {
        let t = f as f32 * 0.15;
        let table = herd.table(t);
        let p: Vec<Vec2> = (0..count)
            .map(|i| herd.instance(&table, i, t).position)
            .collect();
        for (i, a) in p.iter().enumerate() {
            for b in &p[i + 1..] {
                closest = closest.min(a.distance(*b));
            }
        }
    }
    // Slots are a spacing apart along the path or 1/2.5 of it across (the
    // formation test); gait changes only stretch the herd, so over the run
    // no pair comes closer than the formation allows.
    assert!(closest > 0.4 * params().spacing, "closest pair {closest}");
}
