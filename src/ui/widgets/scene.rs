//! Paints a [`Scene`] (a figure of the core: glass brain, circle, matrix) into the available space, scaled
//! to fit, and maps the pointer back to figure pixels so the figure's own marks do the picking.

use crate::util::chart::scene::{Anchor, Item, Rgba, Scene};
use egui::{Color32, Pos2, Rect, Sense, Stroke, pos2, vec2};

fn c(Rgba([r, g, b, a]): Rgba) -> Color32 {
    Color32::from_rgba_unmultiplied(r, g, b, a)
}

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

    /// Screen point of figure pixels.
    pub fn to_screen(&self, p: [f32; 2]) -> Pos2 {
        pos2(self.rect.left() + p[0] * self.scale, self.rect.top() + p[1] * self.scale)
    }
}

/// Paints `scene` at most `max_w` × `max_h` points (keeping its aspect), clickable, named `label` for
/// assistive technology (and tests).
pub fn show(ui: &mut egui::Ui, scene: &Scene, label: &str, max_w: f32, max_h: f32) -> Placed {
    let scale = (max_w / scene.width).min(max_h / scene.height).max(0.05);
    let (rect, response) = ui.allocate_exact_size(vec2(scene.width * scale, scene.height * scale), Sense::click());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Image, true, label));
    let placed = Placed { rect, scale, response };
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, c(scene.background));
    let at = |p: [f32; 2]| placed.to_screen(p);
    for item in &scene.items {
        match item {
            Item::Line { a, b, width, color } => {
                painter.line_segment([at(*a), at(*b)], Stroke::new(width * scale, c(*color)));
            }
            Item::Polyline { pts, width, color } => {
                painter.add(egui::Shape::line(
                    pts.iter().map(|p| at(*p)).collect(),
                    Stroke::new(width * scale, c(*color)),
                ));
            }
            Item::Circle { c: centre, r, fill, stroke } => {
                if fill.0[3] > 0 {
                    painter.circle_filled(at(*centre), r * scale, c(*fill));
                }
                if let Some((w, col)) = stroke {
                    painter.circle_stroke(at(*centre), r * scale, Stroke::new(w * scale, c(*col)));
                }
            }
            Item::Rect { min, max, fill } => {
                painter.rect_filled(Rect::from_min_max(at(*min), at(*max)), 0.0, c(*fill));
            }
            Item::Text { at: p, text, size, color, anchor } => {
                let align = match anchor {
                    Anchor::Start => egui::Align2::LEFT_CENTER,
                    Anchor::Middle => egui::Align2::CENTER_CENTER,
                    Anchor::End => egui::Align2::RIGHT_CENTER,
                };
                painter.text(at(*p), align, text, egui::FontId::proportional(size * scale), c(*color));
            }
        }
    }
    placed
}
