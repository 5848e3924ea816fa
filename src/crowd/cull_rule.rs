//! The CPU twin of the cull pass's per-instance rule (`cull_instance`
//! and `camera_level` in shaders/cull.wgsl), over the parameters
//! [`CullUniform`] holds: the frustum and the receivers' sweep, the size
//! a sphere projects to, the impostor band, then the coarsest mesh level
//! whose animated error fits the pixel budget and the nearest-frame bit.

use super::*;

impl CullUniform {
    /// Model 0's mesh level `l`'s animated error.
    pub fn level_error(&self, l: u32) -> f32 {
        self.models[0].level_error(l)
    }

    /// Pixels the diameter of an instance's sphere at `centre` (radius
    /// already scaled) covers: seen from its centre's distance.
    pub fn diameter_px(&self, centre: Vec3, radius: f32) -> f32 {
        let size = 2.0 * radius * self.eye[3];
        if self.orthographic != 0 {
            return size;
        }
        size / (centre - Vec3::from_slice(&self.eye[..3]))
            .length()
            .max(1e-4)
    }

    /// Pixels `error` model units project to on an instance of `scale`
    /// whose sphere is at `centre` (radius already scaled): as if at the
    /// sphere's nearest point to the eye (`project_error`).
    pub fn project(&self, error: f32, scale: f32, centre: Vec3, radius: f32) -> f32 {
        let size = error * scale * self.eye[3];
        if self.orthographic != 0 {
            return size;
        }
        let dist = (centre - Vec3::from_slice(&self.eye[..3])).length() - radius;
        size / dist.max(1e-4)
    }

    /// [`Self::cull_model`] for model 0 (a scene of one model).
    pub fn cull(&self, centre: Vec3, radius: f32, scale: f32) -> Option<u32> {
        self.cull_model(&self.models[0], centre, radius, scale)
    }

    /// The CPU twin of `cull_instance`: `None` when culled, else the entry
    /// bits above the index (the model's region bits and nearest flag).
    pub fn cull_model(
        &self,
        m: &CullModelGpu,
        centre: Vec3,
        radius: f32,
        scale: f32,
    ) -> Option<u32> {
        if m.hidden != 0 {
            return None;
        }
        let planes = self.planes.map(Vec4::from_array);
        if self.flags & FLAG_FRUSTUM != 0 && sphere_margin(&planes, centre, radius) < 0.0 {
            return None;
        }
        if self.flags & FLAG_RECEIVERS != 0 {
            let receivers = self.receivers.map(Vec4::from_array);
            let sweep = Vec4::from_array(self.sweep);
            let r = radius + sweep.w;
            let length = (self.flags & FLAG_GROUND != 0)
                .then(|| sweep_length(centre, r, sweep.truncate(), self.ground))
                .flatten();
            if !sweep_reaches(&receivers, centre, r, sweep.truncate(), length) {
                return None;
            }
        }
        let size = self.diameter_px(centre, radius);
        if self.flags & FLAG_MIN_SIZE != 0 && size < self.min_size_px {
            return None;
        }
        // A light's view with the camera's rule: the casters the camera
        // would draw as impostors cast as impostors.
        let seen = if self.flags & FLAG_CAMERA_LOD != 0 {
            self.camera_diameter(centre, radius)
        } else {
            size
        };
        if self.flags & FLAG_IMPOSTOR != 0 && seen <= self.impostor_px {
            return Some(m.impostor_bits.min(MAX_LEVELS as u32) << INDEX_BITS);
        }
        let mut level = 0;
        if self.flags & FLAG_LOD != 0 {
            for l in (1..m.levels.min(MAX_LEVELS as u32)).rev() {
                let e = m.level_error(l);
                if self.project(e, scale, centre, radius) <= self.budget_px {
                    level = l;
                    break;
                }
            }
        }
        if self.flags & FLAG_CAMERA_LOD != 0 {
            level = level.max(self.camera_level(m, centre, radius, scale));
        }
        let nearest = self.flags & FLAG_ANIM_LOD != 0
            && self.project(m.nearest_error, scale, centre, radius) <= self.budget_px;
        Some((level << INDEX_BITS) | if nearest { NEAREST_BIT } else { 0 })
    }

    /// With [`FLAG_CAMERA_LOD`]: the pixels the sphere's diameter covers
    /// in the camera (`camera_diameter` in cull.wgsl).
    pub fn camera_diameter(&self, centre: Vec3, radius: f32) -> f32 {
        let eye = Vec3::from_slice(&self.camera[..3]);
        2.0 * radius * self.camera[3] / (centre - eye).length().max(1e-4)
    }

    /// With [`FLAG_CAMERA_LOD`]: the finest level the camera's rule lets a
    /// caster at `centre` have (`camera_level` in cull.wgsl).
    pub fn camera_level(&self, m: &CullModelGpu, centre: Vec3, radius: f32, scale: f32) -> u32 {
        let eye = Vec3::from_slice(&self.camera[..3]);
        let distance = (centre - eye).length();
        let size = self.camera_diameter(centre, radius);
        if self.flags & FLAG_LOD == 0 {
            return 0;
        }
        let mut level = 0;
        for l in (1..m.levels.min(MAX_LEVELS as u32)).rev() {
            let px = m.level_error(l) * scale * self.camera[3] / (distance - radius).max(1e-4);
            if px <= self.budget_px {
                level = l;
                break;
            }
        }
        if size <= self.impostor_px && m.far_level < m.levels {
            level = level.max(m.far_level);
        }
        level
    }
}
