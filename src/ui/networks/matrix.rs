//! Matrix heatmap of the thresholded network in atlas, module or network order, as a texture; the
//! selected region's row and column are outlined; click a cell to select its row.

use super::{Cmd, OpenNetwork};
use crate::network::plot::matrix::cell_colour;
use crate::ui::widgets::heatmap::diverging;
use egui::{Color32, Rect, Sense, Stroke, pos2, vec2};

/// Draws the heatmap in a square of at most `max_h` points.
pub fn show(ui: &mut egui::Ui, o: &mut OpenNetwork, max_h: f32) {
    ui.label(format!("Matrix ({} order) — {}", o.order.name(), o.selected_caption()));
    let n = o.connectome.n;
    let order = o.ordered();
    let key = (o.generation * 4 + o.order as u64) ^ o.color_limit.to_bits().rotate_left(17);
    if o.matrix_texture.as_ref().is_none_or(|(k, _)| *k != key) {
        let mut img = egui::ColorImage::filled([n, n], Color32::WHITE);
        let max_abs = o.prepared.iter().fold(0.0f64, |m, w| m.max(w.abs()));
        for (r, &i) in order.iter().enumerate() {
            for (c, &j) in order.iter().enumerate() {
                let [red, g, b] = cell_colour(o.prepared[i * n + j], max_abs, o.color_limit);
                img.pixels[r * n + c] = Color32::from_rgb(red, g, b);
            }
        }
        let tex = ui.ctx().load_texture("network-matrix", img, egui::TextureOptions::NEAREST);
        o.matrix_texture = Some((key, tex));
    }
    let side = (ui.available_width().min(max_h - 24.0)).max(50.0);
    let (rect, response) = ui.allocate_exact_size(vec2(side, side), Sense::click());
    let painter = ui.painter_at(rect);
    if let Some((_, tex)) = &o.matrix_texture {
        painter.image(tex.id(), rect, Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)), Color32::WHITE);
    }
    let cell = side / n as f32;
    if let Some(sel) = o.selected
        && let Some(r) = order.iter().position(|&i| i == sel)
    {
        let stroke = Stroke::new(1.5, Color32::from_rgb(255, 200, 0));
        painter.rect_stroke(
            Rect::from_min_size(pos2(rect.left(), rect.top() + r as f32 * cell), vec2(side, cell)),
            0.0,
            stroke,
            egui::StrokeKind::Outside,
        );
        painter.rect_stroke(
            Rect::from_min_size(pos2(rect.left() + r as f32 * cell, rect.top()), vec2(cell, side)),
            0.0,
            stroke,
            egui::StrokeKind::Outside,
        );
    }
    // Colour scale: the matrix shown is scaled to max |w| = 1 (weighted) or 0/1 (binary).
    ui.horizontal(|ui| {
        let (bar, _) = ui.allocate_exact_size(vec2(120.0, 10.0), Sense::hover());
        for k in 0..60 {
            let v = -1.0 + 2.0 * k as f64 / 59.0;
            let x = bar.left() + bar.width() * k as f32 / 60.0;
            ui.painter().rect_filled(
                Rect::from_min_size(pos2(x, bar.top()), vec2(bar.width() / 60.0 + 0.5, bar.height())),
                0.0,
                diverging(v, 1.0),
            );
        }
        let id = ui.label(format!("−{0} … 0 … +{0} (weights scaled by max |w|); limit", o.color_limit)).id;
        let l = ui.add(egui::DragValue::new(&mut o.color_limit).range(0.01..=1.0).speed(0.01)).labelled_by(id);
        if l.changed() {
            o.matrix_texture = None;
        }
    });
    if let Some(p) = response.hover_pos() {
        let (r, c) = (((p.y - rect.top()) / cell) as usize, ((p.x - rect.left()) / cell) as usize);
        if r < n && c < n {
            let (i, j) = (order[r], order[c]);
            response.clone().on_hover_text(format!(
                "{} – {}: {:.4}",
                o.connectome.labels[i],
                o.connectome.labels[j],
                o.prepared[i * n + j]
            ));
            if response.clicked() {
                o.commands.push(Cmd::Select(Some(i)));
            }
        }
    }
}
