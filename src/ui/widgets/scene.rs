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

/// Writes `figure` to `path`: `.svg` as vector, anything else as PNG at 2×. Returns what was written.
pub fn save_figure(figure: &crate::network::plot::Figure, path: &std::path::Path) -> Result<String, String> {
    let svg = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    let bytes = if svg {
        crate::util::chart::svg::scene(&figure.scene).into_bytes()
    } else {
        crate::util::chart::png::render(&figure.scene, 2.0).map_err(|e| format!("{}: {e}", path.display()))?
    };
    std::fs::write(path, bytes).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    Ok(format!("wrote {}{}", path.display(), if svg { "" } else { " (PNG at 2×)" }))
}

/// A save dialog for a figure (PNG or SVG); `None` when cancelled.
pub fn save_dialog(name: &str, svg: bool) -> Option<std::path::PathBuf> {
    let d = rfd::FileDialog::new().set_file_name(name);
    let d = if svg {
        d.add_filter("PNG (2×)", &["png"]).add_filter("SVG", &["svg"])
    } else {
        d.add_filter("PNG", &["png"])
    };
    d.save_file()
}

impl FigureCache {
    /// The figure last shown.
    pub fn figure(&self) -> Option<&crate::network::plot::Figure> {
        self.figure.as_ref()
    }

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

#[cfg(test)]
mod tests {
    /// A figure saved from the room: PNG at twice its size, SVG as text; an unwritable path is an error
    /// naming it.
    #[test]
    fn save_figure_png_and_svg() {
        let mut scene = crate::util::chart::scene::Scene::new(50.0, 20.0);
        scene.text(
            [5.0, 10.0],
            "x",
            10.0,
            crate::util::chart::scene::Rgba::BLACK,
            crate::util::chart::scene::Anchor::Start,
        );
        let f = crate::network::plot::Figure { scene, marks: vec![], panels: vec![], edges: 0, notes: vec![] };
        let d = tempfile::tempdir().unwrap();
        let png = d.path().join("f.png");
        assert!(super::save_figure(&f, &png).unwrap().contains("PNG at 2×"));
        let img = image::open(&png).unwrap();
        assert_eq!((img.width(), img.height()), (100, 40));
        let svg = d.path().join("f.SVG");
        super::save_figure(&f, &svg).unwrap();
        assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
        let e = super::save_figure(&f, &d.path().join("missing/f.png")).unwrap_err();
        assert!(e.contains("missing/f.png: cannot write"), "{e}");
    }
}
