//! Node metrics table: sortable by any column, click a row to select its region, export as CSV.

use super::Cmd;
use super::OpenNetwork;

/// Column the table is sorted by (descending for metrics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Index,
    Degree,
    Strength,
    Clustering,
    Betweenness,
    Module,
    Participation,
}

/// Draws the table.
pub fn show(ui: &mut egui::Ui, o: &mut OpenNetwork, message: &mut Option<String>) {
    ui.horizontal(|ui| {
        ui.strong("Node metrics");
        if ui.button("Export CSV").clicked() {
            let path = o.path.with_extension("metrics.csv");
            *message = Some(match export_csv(o, &path) {
                Ok(()) => format!("wrote {}", path.display()),
                Err(e) => format!("export failed: {e:#}"),
            });
        }
    });
    let nodes = &o.metrics.nodes;
    let mut idx: Vec<usize> = (0..nodes.len()).collect();
    let key = |i: usize| -> f64 {
        let m = &nodes[i];
        match o.sort {
            SortKey::Index => -(i as f64),
            SortKey::Degree => m.degree,
            SortKey::Strength => m.strength,
            SortKey::Clustering => m.clustering,
            SortKey::Betweenness => m.betweenness,
            SortKey::Module => -(m.module as f64),
            SortKey::Participation => m.participation,
        }
    };
    idx.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
    let mut clicked = None;
    egui::ScrollArea::vertical().id_salt("node_table").show(ui, |ui| {
        egui::Grid::new("nodes").striped(true).num_columns(7).show(ui, |ui| {
            for (k, name) in [
                (SortKey::Index, "region"),
                (SortKey::Degree, "degree"),
                (SortKey::Strength, "strength"),
                (SortKey::Clustering, "clustering"),
                (SortKey::Betweenness, "betweenness"),
                (SortKey::Module, "module"),
                (SortKey::Participation, "particip."),
            ] {
                if ui.selectable_label(o.sort == k, name).clicked() {
                    o.sort = k;
                }
            }
            ui.end_row();
            for &i in &idx {
                let m = &nodes[i];
                if ui.selectable_label(o.selected == Some(i), &m.label).clicked() {
                    clicked = Some(i);
                }
                ui.label(format!("{}", m.degree));
                ui.label(format!("{:.3}", m.strength));
                ui.label(format!("{:.4}", m.clustering));
                ui.label(format!("{:.1}", m.betweenness));
                ui.label(m.module.to_string());
                ui.label(format!("{:.3}", m.participation));
                ui.end_row();
            }
        });
    });
    if clicked.is_some() {
        o.commands.push(Cmd::Select(clicked));
    }
}

fn export_csv(o: &OpenNetwork, path: &std::path::Path) -> anyhow::Result<()> {
    let mut s = String::from(
        "region,degree,strength,clustering,betweenness,module,participation,within_module_z,local_efficiency\n",
    );
    for m in &o.metrics.nodes {
        let eloc = m.local_efficiency.map_or(String::new(), |v| v.to_string());
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{eloc}\n",
            m.label, m.degree, m.strength, m.clustering, m.betweenness, m.module, m.participation, m.within_module_z
        ));
    }
    std::fs::write(path, s)?;
    Ok(())
}
