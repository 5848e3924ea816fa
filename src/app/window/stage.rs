//! The scene's own sRGB texture where the surface has no sRGB format (a
//! browser's canvas). Rendering straight into the canvas's sRGB view works,
//! except that Chromium resolves MSAA into that view as if it were plain,
//! leaving the picture unencoded (too dark); so the scene renders and
//! resolves here, and the frame copies it to the canvas (the two formats
//! differ only in sRGB, so the copy keeps the encoded bytes).

pub(super) struct Stage {
    texture: wgpu::Texture,
    pub view: wgpu::TextureView,
}

impl Stage {
    /// Whether a surface of `surface` format needs a stage for a scene of
    /// `scene` format.
    pub fn needed(surface: wgpu::TextureFormat, scene: wgpu::TextureFormat) -> bool {
        surface != scene
    }

    /// `stage` fitted to `width`×`height` of `format` (remade when not).
    pub fn fit<'a>(
        stage: &'a mut Option<Stage>,
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        (width, height): (u32, u32),
    ) -> &'a Stage {
        let fits = stage.as_ref().is_some_and(|s| {
            s.texture.width() == width
                && s.texture.height() == height
                && s.texture.format() == format
        });
        if !fits {
            let texture = device.create_texture(&wgpu::TextureDescriptor {
                label: Some("scene stage"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            });
            let view = texture.create_view(&Default::default());
            *stage = Some(Stage { texture, view });
        }
        stage.as_ref().expect("made above")
    }

    /// Copies the staged scene to `frame`.
    pub fn copy_to(&self, encoder: &mut wgpu::CommandEncoder, frame: &wgpu::Texture) {
        encoder.copy_texture_to_texture(
            self.texture.as_image_copy(),
            frame.as_image_copy(),
            self.texture.size(),
        );
    }
}
