//! Ground speeds measured from the animation, against the speeds the horse
//! generator was built to (its planted hooves move back at exactly those).

mod common;

use stampede::gait;
use stampede::procgen::{HORSE_GALLOP_SPEED, HORSE_WALK_SPEED};

#[test]
fn the_horse_travels_at_its_designed_speeds() {
    let horse = stampede::assets::load_model("horse").unwrap();
    let speed = |name: &str| gait::measure(&horse, horse.clip_index(name).unwrap());
    let walk = speed("Walk");
    let gallop = speed("Gallop");
    let idle = speed("Idle");
    eprintln!("walk {walk:?}\ngallop {gallop:?}\nidle {idle:?}");
    assert!(
        (walk.speed - HORSE_WALK_SPEED).abs() < 0.05 * HORSE_WALK_SPEED,
        "walk {}",
        walk.speed
    );
    assert!(
        (gallop.speed - HORSE_GALLOP_SPEED).abs() < 0.05 * HORSE_GALLOP_SPEED,
        "gallop {}",
        gallop.speed
    );
    assert_eq!(idle.speed, 0.0, "grazing does not travel");
    assert_eq!(walk.forward, glam::Vec3::Z, "the horse faces +Z");
}

#[test]
fn the_fox_and_the_deer_walk_slower_than_they_run() {
    let fox = stampede::Model::load(model_or_skip!("Fox.glb")).unwrap();
    let walk = gait::measure(&fox, fox.clip_index("Walk").unwrap());
    let run = gait::measure(&fox, fox.clip_index("Run").unwrap());
    eprintln!("fox walk {walk:?}\nfox run {run:?}");
    assert!(walk.speed > 0.0 && run.speed > 1.5 * walk.speed);
    let deer = stampede::Model::load(model_or_skip!("QuaterniusDeer.gltf")).unwrap();
    let walk = gait::measure(&deer, deer.clip_index("Walk").unwrap());
    let gallop = gait::measure(&deer, deer.clip_index("Gallop").unwrap());
    let eat = gait::measure(&deer, deer.clip_index("Eating").unwrap());
    eprintln!("deer walk {walk:?}\ndeer gallop {gallop:?}\ndeer eating {eat:?}");
    assert!(walk.speed > 0.0 && gallop.speed > 1.5 * walk.speed);
    assert_eq!(eat.speed, 0.0);
}
