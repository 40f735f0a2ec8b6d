//! Shows a figure of the core (glass brain, circle: a [`crate::util::chart::scene::Scene`]) in the space
//! available, scaled to fit, and maps the pointer back to figure pixels so the figure's own marks pick.

use egui::{Color32, Pos2, Rect, Sense, pos2, vec2};

/// Where a scene was painted: its rectangle on screen and the scale from figure pixels.
pub struct Placed {
    pub rect: Rect,
    pub scale: f32,
    pub response: egui::Response,
}

impl Placed {
    /// Figure pixels of a screen point.
    pub fn to_figure(&self, p: Pos2) -> [f32; 2] {
        [(p.x - self.rect.left()) / self.scale, (p.y - self.rect.top()) / self.scale]
    }
}

/// A figure drawn once into a texture (the scene rasterised as for PNG export) and re-drawn only when its
/// key changes: hundreds of translucent curves cost llvmpipe tens of milliseconds a frame as shapes, one
/// textured rectangle almost nothing. Picking still uses the figure's marks.
#[derive(Default)]
pub struct FigureCache {
    key: u64,
    figure: Option<crate::network::plot::Figure>,
    texture: Option<egui::TextureHandle>,
}

impl FigureCache {
    /// Shows the figure `make` draws for `key` (hashed with the space available) in at most `max_w` ×
    /// `max_h` points; `Err` when the figure cannot be drawn.
    pub fn show<E: std::fmt::Display>(
        &mut self,
        ui: &mut egui::Ui,
        key: impl std::hash::Hash,
        label: &str,
        max_w: f32,
        max_h: f32,
        make: impl FnOnce() -> Result<crate::network::plot::Figure, E>,
    ) -> Result<(Placed, &crate::network::plot::Figure), String> {
        use std::hash::{Hash, Hasher};
        let ppp = ui.ctx().pixels_per_point();
        let mut h = std::hash::DefaultHasher::new();
        (key, max_w.round() as i32, max_h.round() as i32, (ppp * 100.0) as i32).hash(&mut h);
        let key = h.finish();
        if self.figure.is_none() || self.key != key {
            let figure = make().map_err(|e| e.to_string())?;
            let scale = (max_w / figure.scene.width).min(max_h / figure.scene.height).max(0.05) * ppp;
            let (w, hgt, rgba) = crate::util::chart::png::rasterize(&figure.scene, scale).map_err(|e| e.to_string())?;
            let img = egui::ColorImage::from_rgba_unmultiplied([w as usize, hgt as usize], &rgba);
            match &mut self.texture {
                Some(t) => t.set(img, egui::TextureOptions::LINEAR),
                None => {
                    self.texture = Some(ui.ctx().load_texture(label.to_string(), img, egui::TextureOptions::LINEAR))
                }
            }
            (self.key, self.figure) = (key, Some(figure));
        }
        let (Some(figure), Some(tex)) = (&self.figure, &self.texture) else { return Err("no figure".into()) };
        let scale = (max_w / figure.scene.width).min(max_h / figure.scene.height).max(0.05);
        let size = vec2(figure.scene.width * scale, figure.scene.height * scale);
        let (rect, response) = ui.allocate_exact_size(size, Sense::click());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, label));
        let uv = Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0));
        ui.painter_at(rect).image(tex.id(), rect, uv, Color32::WHITE);
        Ok((Placed { rect, scale, response }, figure))
    }
}
