//! The circle (`network::plot::circle`): regions grouped by network (or module) with the legend beside
//! it, edges above the glass brain's percentile bundled through the centre, labels on hover.

use super::{Cmd, OpenNetwork};
use crate::network::plot::{Figure, Style, circle};
use crate::ui::widgets::scene::Placed;

/// Names the node under the pointer and selects the one clicked (every figure view picks this way).
pub fn pick(o: &mut OpenNetwork, figure: &Figure, placed: &Placed) {
    if let Some(p) = placed.response.hover_pos()
        && let Some(i) = figure.pick(placed.to_figure(p))
    {
        let net = o.network_of(i).map(|n| format!(" · {n}")).unwrap_or_default();
        let m = &o.metrics.nodes[i];
        placed.response.clone().on_hover_text(format!(
            "{}{net} · module {} · strength {:.3} · degree {}",
            o.connectome.labels[i], m.module, m.strength, m.degree
        ));
    }
    if placed.response.clicked()
        && let Some(p) = placed.response.interact_pointer_pos()
        && let Some(i) = figure.pick(placed.to_figure(p))
    {
        o.commands.push(Cmd::Select(Some(i)));
    }
}

/// Draws the circle in at most `max_h` points of height.
pub fn show(ui: &mut egui::Ui, o: &mut OpenNetwork, max_h: f32) {
    ui.horizontal(|ui| {
        ui.label(format!("Circle — {}", o.selected_caption()));
        super::brain::export(ui, o, false);
    });
    let style = Style { selected: o.selected, highlight: o.highlight.clone(), ..o.style.clone() };
    let key = (format!("{style:?}"), o.generation, o.path.clone());
    let mut cache = std::mem::take(&mut o.circle_cache);
    let (w, h) = (ui.available_width(), (max_h - 24.0).max(60.0));
    match cache.show(ui, key, "circle figure", w, h, || circle::draw(&o.input(), &style)) {
        Ok((placed, figure)) => pick(o, figure, &placed),
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("Circle: {e}"));
        }
    }
    o.circle_cache = cache;
}
