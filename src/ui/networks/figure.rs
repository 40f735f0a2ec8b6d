//! What the Networks room's figure views share: the node under the pointer named and the one clicked
//! selected, the style controls (edge percentile, node size, node colour) and "Save figure…".

use super::{Cmd, OpenNetwork};
use crate::network::plot::{Figure, NodeColour, NodeValue, Style};
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

/// Edge percentile, node size and node colour: shared by the glass brain and the circle.
pub fn figure_controls(ui: &mut egui::Ui, style: &mut Style) {
    ui.add(egui::Slider::new(&mut style.edge_percentile, 0.0..=100.0).text("edges above percentile"))
        .on_hover_text("nilearn's edge_threshold: |weight| at or above this percentile of all region pairs");
    egui::ComboBox::from_label("node size").selected_text(style.node_size.name()).show_ui(ui, |ui| {
        for v in NodeValue::ALL {
            ui.selectable_value(&mut style.node_size, v, v.name());
        }
    });
    let name = |c: NodeColour| match c {
        NodeColour::Module => "module".to_string(),
        NodeColour::Network => "network".to_string(),
        NodeColour::Metric(v) => v.name().to_string(),
    };
    egui::ComboBox::from_label("node colour").selected_text(name(style.node_colour)).show_ui(ui, |ui| {
        let all = [NodeColour::Network, NodeColour::Module]
            .into_iter()
            .chain(NodeValue::ALL.into_iter().skip(1).map(NodeColour::Metric));
        for c in all {
            ui.selectable_value(&mut style.node_colour, c, name(c));
        }
    });
}

/// "Save PNG/SVG…" for the glass brain (`glass`) or the circle: the figure on screen, written as
/// `network plot` writes it.
pub fn export(ui: &mut egui::Ui, o: &mut OpenNetwork, glass: bool) {
    if ui.button("Save figure…").on_hover_text("PNG at 2× or SVG of this view").clicked() {
        let cache = if glass { &o.glass_cache } else { &o.circle_cache };
        let name = if glass { "glass-brain.png" } else { "circle.png" };
        if let (Some(f), Some(path)) = (cache.figure(), crate::ui::widgets::scene::save_dialog(name, true)) {
            o.figure_note = Some((glass, crate::ui::widgets::scene::save_figure(f, &path)));
        }
    }
    if let Some((g, note)) = &o.figure_note
        && *g == glass
    {
        crate::ui::widgets::outcome(ui, &Some(note.clone()));
    }
}
