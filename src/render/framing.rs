//! Where the camera looks: the opening view of the herd, the flock or the
//! standing crowd, and a box around the whole crowd for framing.

use crate::Aabb;
use crate::crowd::Motion;
use crate::crowd::placement::Placement;
use crate::render::{Camera, Renderer};

impl Renderer {
    /// Keeps the left `pixels` of the target for something drawn on top
    /// (the window's panel): the 3D view is drawn beside them.
    pub fn set_view_left(&mut self, pixels: u32) {
        self.view_left = pixels;
    }

    /// The 3D view's left edge and width in pixels.
    pub fn view_span(&self) -> (u32, u32) {
        let w = self.targets.width;
        // Keep at least a quarter of the target for the view.
        let left = self.view_left.min(w * 3 / 4);
        (left, w - left)
    }

    /// The 3D view's width over its height.
    pub fn aspect(&self) -> f32 {
        let (_, w) = self.view_span();
        w as f32 / self.targets.height.max(1) as f32
    }

    /// A view of the herd at scene time `time` (with `playback`), from
    /// ahead and to the side. A herd that runs as a band (up to
    /// [`crate::crowd::herd::BAND_MAX`] horses) is framed from a front
    /// three-quarter view, a little above, as close as its horses' outlines
    /// fit (`outline_kept`: whole up to 5 horses, the middle half of each
    /// from 20, so the nearest may be cut by the frame's edge); a larger
    /// herd is seen low and nearly side-on from beside its front third,
    /// close enough that the nearest horses read as horses and the rest
    /// recede into the fog. `None` when there is no herd.
    pub fn herd_camera(&mut self, time: f64, playback: f32) -> Option<Camera> {
        if !self.data.behaviour.settings().enabled {
            return None;
        }
        // The herd of a scene of several models (its ground models'
        // instances) is framed as a large herd is, so that the view shows
        // every model (the band's fit reads one model's instances).
        let count = self.data.behaviour.herd_count();
        let one_model = self.scene.models.len() == 1;
        let (centre, forward) = self
            .data
            .behaviour
            .herd_centre(&self.gpu.queue, time * playback as f64)?;
        let (lo, hi) = self.data.behaviour.herd_box(&self.gpu.queue)?;
        let extent = (hi - lo) * 0.5;
        let size = self.layout.model_size;
        let right = glam::Vec2::new(-forward.y, forward.x);
        // A large herd is seen nearly side-on, from a little ahead; a small
        // one from further ahead and above (a front three-quarter view),
        // which shortens the herd's length on screen and spreads its depth
        // up the picture, so its horses can be framed larger.
        let side = (forward * 0.4 + right * 0.92).normalize();
        let three_quarter = (forward * 0.8 + right * 0.6).normalize();
        let crowd_view = size * 12.0 + extent.x * 0.5;
        // A herd that runs as a band is framed from where its horses are.
        const FRAMED: u32 = crate::crowd::herd::BAND_MAX;
        let mut positions = Vec::new();
        let band = count <= FRAMED && one_model;
        if band {
            let t = time * playback as f64;
            self.data
                .behaviour
                .herd_positions(&self.gpu.queue, t, &mut positions);
        }
        let ground = self.layout.ground_y;
        let aspect = self.aspect();
        let framed = band
            .then(|| {
                let mut camera = Camera {
                    yaw: three_quarter.x.atan2(three_quarter.y),
                    pitch: SMALL_HERD_PITCH,
                    ..Camera::default()
                };
                let shape = self
                    .outline
                    .get_or_init(|| silhouette(&self.scene.models[0].vat));
                let seed = self.data.crowd.seed();
                let horses: Vec<Placement> = positions
                    .iter()
                    .map(|p| Placement {
                        origin: glam::Vec3::new(p.x, ground, p.y),
                        forward: glam::Vec3::new(forward.x, 0.0, forward.y),
                        up: glam::Vec3::Y,
                    })
                    .collect();
                let scales: Vec<f32> = (0..count)
                    .map(|i| crate::crowd::generate(seed, i).scale)
                    .collect();
                fit_horses(&mut camera, &horses, &scales, shape, size, aspect);
                camera
            })
            .filter(|c| c.distance <= crowd_view);
        let camera = framed.unwrap_or_else(|| {
            let target = centre + forward * extent.y * 0.35;
            Camera {
                target: glam::Vec3::new(target.x, ground + size * 0.3, target.y),
                yaw: side.x.atan2(side.y),
                pitch: 0.14,
                distance: crowd_view,
                ..Camera::default()
            }
        });
        Some(camera)
    }

    /// Where "follow the herd" aims at scene time `time`: the opening
    /// view's target ([`Self::herd_camera`]), carried along with the herd:
    /// its offset from the herd's centre is kept in the herd's own axes
    /// (across, up, along), so following costs one lookup of the centre a
    /// frame instead of a fresh fit of every horse (which takes a few
    /// milliseconds for a band). The offset is measured again when the
    /// count or the view's aspect changes. `None` when there is no herd.
    pub fn herd_target(&mut self, time: f64, playback: f32) -> Option<glam::Vec3> {
        let key = (self.data.crowd.count(), self.aspect().to_bits());
        let t = time * playback as f64;
        let (centre, forward) = self.data.behaviour.herd_centre(&self.gpu.queue, t)?;
        let right = glam::Vec2::new(-forward.y, forward.x);
        let offset = match self.follow_offset {
            Some((k, offset)) if k == key => offset,
            _ => {
                let target = self.herd_camera(time, playback)?.target;
                let d = glam::Vec2::new(target.x - centre.x, target.z - centre.y);
                let offset = glam::Vec3::new(d.dot(right), target.y, d.dot(forward));
                self.follow_offset = Some((key, offset));
                offset
            }
        };
        let p = centre + right * offset.x + forward * offset.z;
        Some(glam::Vec3::new(p.x, offset.y, p.y))
    }

    /// A view of the flock as it is now (its state read back from the GPU,
    /// so call it after a frame has stepped the flock): from below and to
    /// the side of its middle, so the birds stand against the sky, close
    /// enough that the core of the flock fills the view's height.
    /// `None` when there is no flock yet.
    pub fn flock_camera(&mut self) -> Option<Camera> {
        let sim = self.data.behaviour.flock_sim()?;
        let boids = sim.read_back(&self.gpu.device, &self.gpu.queue).ok()?;
        if boids.is_empty() {
            return None;
        }
        let n = boids.len() as f32;
        let centre = boids
            .iter()
            .fold(glam::Vec3::ZERO, |s, b| s + glam::Vec3::from(b.pos))
            / n;
        let mut radii: Vec<f32> = boids
            .iter()
            .map(|b| glam::Vec3::from(b.pos).distance(centre))
            .collect();
        radii.sort_by(f32::total_cmp);
        // The core: where half the birds are.
        let core = radii[radii.len() / 2];
        let size = self.layout.model_size;
        let mut camera = Camera {
            target: centre,
            yaw: 0.6,
            pitch: -0.12,
            ..Camera::default()
        };
        let tan_v = (camera.fov_y * 0.5).tan();
        camera.distance = (core / tan_v * 0.8).max(size * 3.0);
        // Keep the eye above the ground.
        let lowest = self.layout.ground_y + size;
        if camera.eye().y < lowest {
            camera.pitch = ((lowest - centre.y) / camera.distance)
                .clamp(-0.9, 0.9)
                .asin();
        }
        Some(camera)
    }

    /// The opening view at scene time `time`: the herd's when there is one,
    /// else [`Self::default_camera`]. It depends only on the time, never on
    /// what was drawn before; the flock's view, which reads the simulation
    /// back, is [`Self::flock_camera`].
    pub fn camera_at(&mut self, time: f64, playback: f32) -> Camera {
        self.herd_camera(time, playback)
            .unwrap_or_else(|| self.default_camera())
    }

    /// A box around the whole crowd at the current count.
    pub fn crowd_bounds(&self) -> Aabb {
        self.scene.bounds
    }

    /// The opening view: low, beside the track, the herd coming past.
    pub fn default_camera(&self) -> Camera {
        if self.scene.models.len() > 1 {
            // The ground models' fields side by side, seen from above one
            // side (a flat field's bounding sphere is larger than it looks
            // from there); the flyers circle over them.
            let mut camera = Camera {
                yaw: 1.75,
                pitch: 0.42,
                ..Camera::default()
            };
            camera.frame(&self.scene.ground_bounds, self.aspect());
            camera.distance *= 0.62;
            return camera;
        }
        let r = self.layout.field_radius(self.data.crowd.count());
        let size = self.layout.model_size;
        match self.layout.motion {
            Motion::Track => Camera {
                target: glam::Vec3::new(r * 0.81, size * 0.2, 0.0),
                yaw: 2.3,
                pitch: 0.16,
                distance: r * 0.45 + size * 2.0,
                ..Camera::default()
            },
            Motion::Flock => Camera {
                target: glam::Vec3::new(0.0, size * 7.0, 0.0),
                yaw: 0.6,
                pitch: 0.05,
                distance: r * 1.6 + size * 6.0,
                ..Camera::default()
            },
            Motion::Stand => {
                let mut c = Camera {
                    yaw: 0.6,
                    pitch: 0.35,
                    ..Camera::default()
                };
                c.frame(&self.crowd_bounds(), self.aspect());
                c.distance *= 0.8;
                c
            }
        }
    }
}

/// How far a band's view looks down (about 23°): enough that the band's
/// rows spread up the picture instead of lining the horizon, still low
/// enough to see the horses from the side (0.3 framed 20 horses at 32 %
/// of the picture, 0.4 at 44 %).
const SMALL_HERD_PITCH: f32 = 0.4;

/// A model's outline as a few points in model space: every vertex at
/// eight instants of every baked clip, reduced to the extreme vertex along
/// each of 26 directions. Their hull lies inside the true one, and other
/// instants and headings differ a little, so the fit adds a margin.
fn silhouette(vat: &crate::vat::Vat) -> Vec<glam::Vec3> {
    let mut points = Vec::new();
    for clip in &vat.clips {
        for q in 0..8 {
            let frame = clip.frame_count.saturating_sub(1) * q / 8;
            points.extend(
                (0..vat.layout.vertex_count)
                    .map(|v| vat.position(vat.layout.texel_index(clip, frame, v))),
            );
        }
    }
    let mut extremes: Vec<glam::Vec3> = Vec::new();
    for a in -1i32..=1 {
        for b in -1i32..=1 {
            for c in -1i32..=1 {
                let d = glam::Vec3::new(a as f32, b as f32, c as f32);
                if d == glam::Vec3::ZERO {
                    continue;
                }
                let best = points
                    .iter()
                    .copied()
                    .max_by(|p, q| p.dot(d).total_cmp(&q.dot(d)));
                if let Some(p) = best
                    && !extremes.contains(&p)
                {
                    extremes.push(p);
                }
            }
        }
    }
    extremes
}

/// How much of each horse's outline a small herd's view keeps in frame:
/// all of it up to 5 horses; from there to 20 the view closes in until only
/// the middle half of each outline (about its box's centre) must fit, so
/// the horses nearest the camera may be cut by the frame's edge, as a
/// photographer fills the frame with a herd, and every horse's middle
/// stays in view.
fn outline_kept(count: usize) -> f32 {
    1.0 - 0.5 * ((count as f32 - 5.0) / 15.0).clamp(0.0, 1.0)
}

/// Aims `camera` (its yaw, pitch and field of view kept) at the middle of
/// the horses placed at `horses` (with `scales`) and sets the least distance
/// at which every horse's outline (`shape`, model space) is inside the
/// view. `size` is the model's size (the search's scale).
fn fit_horses(
    camera: &mut Camera,
    horses: &[Placement],
    scales: &[f32],
    shape: &[glam::Vec3],
    size: f32,
    aspect: f32,
) {
    let kept = outline_kept(horses.len());
    let middle = crate::Aabb::from_points(shape.iter().copied()).center();
    let points: Vec<glam::Vec3> = horses
        .iter()
        .zip(scales)
        .flat_map(|(h, &s)| {
            shape
                .iter()
                .map(move |p| h.to_world(middle + (*p - middle) * kept, s))
        })
        .collect();
    if points.is_empty() {
        return;
    }
    let (lo, hi) = points.iter().fold(
        (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    camera.target = (lo + hi) * 0.5;
    let fits = |camera: &Camera| {
        let view_proj = camera.view_proj(aspect);
        points.iter().all(|c| {
            let clip = view_proj * c.extend(1.0);
            clip.z >= 0.0 && clip.x.abs() <= clip.w && clip.y.abs() <= clip.w
        })
    };
    // Moving back draws every point towards the target on screen: bisect
    // between a distance that fits and one that does not.
    let tighten = |camera: &mut Camera| {
        let (mut near, mut far) = (size * 0.5, size * 4.0);
        camera.distance = far;
        while !fits(camera) && far < size * 1e4 {
            far *= 2.0;
            camera.distance = far;
        }
        for _ in 0..24 {
            camera.distance = (near + far) * 0.5;
            if fits(camera) {
                far = camera.distance;
            } else {
                near = camera.distance;
            }
        }
        camera.distance = far;
    };
    // Then aim at the middle of what is seen (perspective puts the near
    // horses off to one side) and fit again, six times (the aim settles in
    // a few); the last fit is at the last aim, with a small margin.
    for _ in 0..6 {
        tighten(camera);
        let view_proj = camera.view_proj(aspect);
        let (lo, hi) = points.iter().fold(
            (glam::Vec2::splat(f32::MAX), glam::Vec2::splat(f32::MIN)),
            |(lo, hi), c| {
                let clip = view_proj * c.extend(1.0);
                let ndc = glam::Vec2::new(clip.x, clip.y) / clip.w;
                (lo.min(ndc), hi.max(ndc))
            },
        );
        let mid = (lo + hi) * 0.5;
        let target = view_proj * camera.target.extend(1.0);
        let depth = target.z / target.w;
        camera.target = view_proj.inverse().project_point3(mid.extend(depth));
    }
    tighten(camera);
    camera.distance *= 1.03;
}
