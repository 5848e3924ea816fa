//! What a device leaves out that a desktop GPU has, and what that changes
//! on screen: one line each for the panel.

/// What a device with `features` and `limits` leaves out, and what that
/// changes on screen.
pub fn limitations(features: wgpu::Features, limits: &wgpu::Limits) -> Vec<String> {
    let mut out = Vec::new();
    if !features.contains(wgpu::Features::TIMESTAMP_QUERY) {
        out.push("no timestamp queries: GPU times are not measured".to_string());
    }
    if !features.contains(wgpu::Features::INDIRECT_FIRST_INSTANCE) {
        out.push(
            "no indirect-first-instance: the culled crowd is one indirect draw per level \
             and model instead of one multi-draw"
                .to_string(),
        );
    }
    if !features.contains(wgpu::Features::SHADER_EARLY_DEPTH_TEST) {
        out.push(
            "no early depth test for shaders that write depth: the impostors' fragments \
             are depth-tested after they are shaded"
                .to_string(),
        );
    }
    // The cascades' cull over the camera's list, with its parameters as a
    // uniform (render::passes::cull::listed).
    if limits.max_storage_buffers_per_shader_stage
        < crate::crowd::caster_list::LISTED_STORAGE_BUFFERS
    {
        out.push(format!(
            "{} storage buffers per shader stage: the shadow cascades' cull passes go over \
             every instance, not the camera's list",
            limits.max_storage_buffers_per_shader_stage
        ));
    }
    let binding = limits.max_storage_buffer_binding_size;
    if binding < 1 << 30 {
        out.push(format!(
            "storage buffers bind at most {} MiB: the crowd's count is capped to fit",
            binding >> 20
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::limitations;

    #[test]
    fn the_panel_says_what_a_device_leaves_out() {
        // WebGPU's defaults with no optional feature: all five are off
        // (8 storage buffers a stage).
        let off = limitations(wgpu::Features::empty(), &wgpu::Limits::default());
        assert_eq!(off.len(), 5, "{off:?}");
        assert!(off[0].contains("timestamp") && off[1].contains("multi-draw"));
        assert!(off[2].contains("early depth"), "{off:?}");
        assert!(off[3].contains("camera's list"), "{off:?}");
        assert!(off[4].contains("128 MiB"), "{off:?}");
        let all = wgpu::Features::TIMESTAMP_QUERY
            | wgpu::Features::INDIRECT_FIRST_INSTANCE
            | wgpu::Features::SHADER_EARLY_DEPTH_TEST;
        let big = wgpu::Limits {
            max_storage_buffer_binding_size: 2 << 30,
            max_storage_buffers_per_shader_stage: 10,
            ..Default::default()
        };
        assert!(limitations(all, &big).is_empty());
    }
}
