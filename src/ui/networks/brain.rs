//! Glass-brain projections (axial, sagittal, coronal) of regions with MNI coordinates, nodes sized by
//! strength and coloured by module, links of the thresholded network above its 95th weight percentile
//! (nilearn `plot_connectome(edge_threshold="95%")`). The head outline is a schematic ellipse, not a
//! brain surface.

use super::Cmd;
use super::OpenNetwork;
use crate::ui::widgets::palette::category;
use egui::{Color32, Sense, Stroke, pos2, vec2};

/// Draws the three projections, or a note when the atlas has no coordinates.
pub fn show(ui: &mut egui::Ui, o: &mut OpenNetwork) {
    let Some(coords) = o.atlas.as_ref().and_then(|a| a.coords.clone()) else {
        ui.label("Glass brain: this atlas has no coordinates; the circle shows the network instead.");
        return;
    };
    let from = o.atlas.as_ref().and_then(|a| a.coords_from.clone()).unwrap_or_default();
    ui.label(format!("Glass brain (schematic outline; links above the 95th percentile) — {}", o.selected_caption()))
        .on_hover_text(format!("Node positions: {from}"));
    ui.weak(format!("positions: {from}"));
    let n = o.connectome.n;
    let mut weights: Vec<f64> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .map(|(i, j)| o.prepared[i * n + j].abs())
        .filter(|w| *w > 0.0)
        .collect();
    weights.sort_by(f64::total_cmp);
    let cut = weights.get(weights.len() * 95 / 100).copied().unwrap_or(f64::INFINITY);
    let max_strength = o.metrics.nodes.iter().fold(0.0f64, |m, x| m.max(x.strength)).max(1e-12);
    let side = (ui.available_width() / 3.0 - 8.0).min(ui.available_height() - 6.0).max(60.0);
    ui.horizontal(|ui| {
        // (axis for horizontal, axis for vertical, sign of vertical, name); MNI x −90..90, y −126..90, z −72..108.
        for (hx, vy, name) in [(0usize, 1usize, "axial (x, y)"), (1, 2, "sagittal (y, z)"), (0, 2, "coronal (x, z)")] {
            let (rect, response) = ui.allocate_exact_size(vec2(side, side), Sense::click());
            let painter = ui.painter_at(rect);
            let lim = [(-90.0, 90.0), (-126.0, 90.0), (-72.0, 108.0)];
            let to = |p: [f64; 3]| {
                let fx = ((p[hx] - lim[hx].0) / (lim[hx].1 - lim[hx].0)) as f32;
                let fy = ((p[vy] - lim[vy].0) / (lim[vy].1 - lim[vy].0)) as f32;
                pos2(rect.left() + fx * rect.width(), rect.bottom() - fy * rect.height())
            };
            painter.add(egui::Shape::ellipse_stroke(
                rect.center(),
                rect.size() * 0.47,
                Stroke::new(1.0, ui.visuals().weak_text_color()),
            ));
            painter.text(
                rect.left_top() + vec2(3.0, 2.0),
                egui::Align2::LEFT_TOP,
                name,
                egui::FontId::proportional(10.0),
                ui.visuals().weak_text_color(),
            );
            for i in 0..n {
                for j in i + 1..n {
                    let w = o.prepared[i * n + j].abs().max(o.prepared[j * n + i].abs());
                    let sel = o.selected == Some(i) || o.selected == Some(j);
                    if w > 0.0 && (w >= cut || sel) {
                        let c = if sel {
                            Color32::from_rgb(255, 200, 0)
                        } else {
                            Color32::from_rgb(200, 60, 60).gamma_multiply(0.6)
                        };
                        painter
                            .line_segment([to(coords[i]), to(coords[j])], Stroke::new(if sel { 1.2 } else { 0.8 }, c));
                    }
                }
            }
            for i in 0..n {
                let r = 2.0 + 4.0 * (o.metrics.nodes[i].strength / max_strength) as f32;
                painter.circle_filled(
                    to(coords[i]),
                    if o.selected == Some(i) { r + 3.0 } else { r },
                    category(o.metrics.nodes[i].module),
                );
                if o.highlight.contains(&i) {
                    painter.circle_stroke(to(coords[i]), r + 4.0, Stroke::new(2.0, Color32::from_rgb(80, 220, 255)));
                }
            }
            if response.clicked()
                && let Some(p) = response.interact_pointer_pos()
            {
                let near = (0..n).min_by(|&a, &b| to(coords[a]).distance(p).total_cmp(&to(coords[b]).distance(p)));
                if let Some(i) = near.filter(|&i| to(coords[i]).distance(p) < 10.0) {
                    o.commands.push(Cmd::Select(Some(i)));
                }
            }
        }
    });
}
