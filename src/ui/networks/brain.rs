//! The glass brain as nilearn draws it (`network::plot::glass`: its outlines, projections, edge rule), with
//! the display mode, edge percentile, node size and node colour; click selects a region everywhere,
//! hover names it, and the regions an agent or knowledge item cites are ringed.

use super::OpenNetwork;
use crate::network::plot::{NodeColour, NodeValue, Style, glass};

/// The display modes offered (nilearn's names).
const MODES: [&str; 9] = ["ortho", "lzry", "lyrz", "lr", "x", "y", "z", "l", "r"];

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

/// Draws the glass brain, or says why there is none (the atlas has no coordinates).
pub fn show(ui: &mut egui::Ui, o: &mut OpenNetwork) {
    if o.atlas.as_ref().is_none_or(|a| a.coords.is_none()) {
        ui.label("Glass brain: this atlas has no coordinates (give an atlas with x, y, z, e.g. a .node file); the circle shows the network instead.");
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("Glass brain — {}", o.selected_caption()));
        egui::ComboBox::from_label("display").selected_text(o.style.display_mode.clone()).show_ui(ui, |ui| {
            for m in MODES {
                ui.selectable_value(&mut o.style.display_mode, m.to_string(), m);
            }
        });
        figure_controls(ui, &mut o.style);
        export(ui, o, true);
    });
    let style = Style { selected: o.selected, highlight: o.highlight.clone(), ..o.style.clone() };
    let key = (format!("{style:?}"), o.generation, o.path.clone());
    let mut cache = std::mem::take(&mut o.glass_cache);
    let (w, h) = (ui.available_width(), (ui.available_height() - 40.0).max(80.0));
    match cache.show(ui, key, "glass brain figure", w, h, || glass::draw(&o.input(), &style)) {
        Ok((placed, figure)) => {
            super::circle::pick(o, figure, &placed);
            for note in &figure.notes {
                ui.weak(note);
            }
        }
        Err(e) => {
            ui.colored_label(ui.visuals().error_fg_color, format!("Glass brain: {e}"));
        }
    }
    o.glass_cache = cache;
}
