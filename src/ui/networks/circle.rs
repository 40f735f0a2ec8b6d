//! Circular layout: regions on a circle grouped by network (or lobe) when the atlas gives one, else by
//! module; links of the thresholded network as chords, the selected region's links highlighted.

use super::Cmd;
use super::OpenNetwork;
use crate::ui::widgets::palette::category;
use egui::{Color32, Pos2, Sense, Stroke, pos2, vec2};

/// Draws the circle in a square of at most `max_h` points.
pub fn show(ui: &mut egui::Ui, o: &mut OpenNetwork, max_h: f32) {
    let grouped_by = if o.atlas.as_ref().is_some_and(|a| a.networks.is_some()) { "network" } else { "module" };
    ui.label(format!("Circle (grouped by {grouped_by}) — {}", o.selected_caption()));
    let n = o.connectome.n;
    let mut order: Vec<usize> = (0..n).collect();
    let group = |i: usize| -> String {
        o.network_of(i).map_or_else(|| format!("{:03}", o.metrics.nodes[i].module), str::to_string)
    };
    order.sort_by_key(|&i| (group(i), i));
    let groups: Vec<String> = {
        let mut g: Vec<String> = order.iter().map(|&i| group(i)).collect();
        g.dedup();
        g
    };
    let side = ui.available_width().min(max_h - 24.0).max(50.0);
    let (rect, response) = ui.allocate_exact_size(vec2(side, side), Sense::click());
    let painter = ui.painter_at(rect);
    let center = rect.center();
    let radius = side * 0.42;
    let mut pos = vec![Pos2::ZERO; n];
    for (k, &i) in order.iter().enumerate() {
        let a = k as f32 / n as f32 * std::f32::consts::TAU - std::f32::consts::FRAC_PI_2;
        pos[i] = center + vec2(a.cos(), a.sin()) * radius;
    }
    let link = ui.visuals().text_color().gamma_multiply(0.35);
    for i in 0..n {
        for j in i + 1..n {
            let w = o.prepared[i * n + j].abs().max(o.prepared[j * n + i].abs());
            if w != 0.0 && o.selected != Some(i) && o.selected != Some(j) {
                painter.line_segment(
                    [pos[i], pos[j]],
                    Stroke::new(0.6, link.gamma_multiply((0.3 + 0.7 * w.abs().min(1.0)) as f32)),
                );
            }
        }
    }
    if let Some(s) = o.selected {
        for j in 0..n {
            if o.prepared[s * n + j] != 0.0 || o.prepared[j * n + s] != 0.0 {
                painter.line_segment([pos[s], pos[j]], Stroke::new(1.5, Color32::from_rgb(255, 200, 0)));
            }
        }
    }
    for i in 0..n {
        let g = groups.iter().position(|x| *x == group(i)).unwrap_or(0);
        let r = if o.selected == Some(i) { 6.0 } else { 3.5 };
        painter.circle_filled(pos[i], r, category(g));
    }
    for (g, name) in groups.iter().enumerate().take(12) {
        painter.text(
            pos2(rect.left() + 4.0, rect.top() + 4.0 + g as f32 * 13.0),
            egui::Align2::LEFT_TOP,
            name.trim_start_matches('0'),
            egui::FontId::proportional(11.0),
            category(g),
        );
    }
    if response.clicked()
        && let Some(p) = response.interact_pointer_pos()
    {
        let nearest = (0..n).min_by(|&a, &b| pos[a].distance(p).total_cmp(&pos[b].distance(p)));
        if let Some(i) = nearest.filter(|&i| pos[i].distance(p) < 10.0) {
            o.commands.push(Cmd::Select(Some(i)));
        }
    }
}
