//! The files of the collection: each a (model, paradigm, run) triple taken from its experiment block, editable
//! (for files that do not say) and applied to every view; files that could not be read, with why.

use super::Loaded;

#[derive(Debug, Clone, Default)]
pub struct State {
    /// Edits in progress: (model, paradigm, run) per file.
    pub edits: Vec<(String, String, String)>,
}

/// Draws the file list; returns true when edits were applied (the report must be rebuilt).
pub fn show(ui: &mut egui::Ui, data: &mut Loaded, st: &mut State) -> bool {
    let not_read = data.collection.not_read();
    let problems = data.collection.problems.clone();
    let runs = &mut data.collection.runs;
    if st.edits.len() != runs.len() {
        st.edits = runs.iter().map(|r| (r.model.clone(), r.paradigm.clone(), r.run.to_string())).collect();
    }
    let mut apply = false;
    ui.horizontal(|ui| {
        ui.strong("Result files");
        ui.label("model and paradigm come from experiment.models.target and experiment.evaluation_mode; edit them when a file does not say");
        apply = ui.button("Apply edits").clicked();
    });
    egui::ScrollArea::both().id_salt("bench_files").show(ui, |ui| {
        egui::Grid::new("bench_files_grid").striped(true).show(ui, |ui| {
            let ids: Vec<egui::Id> = ["file", "model", "paradigm", "run", "instances", "score", "simulated"]
                .iter()
                .map(|h| ui.strong(*h).id)
                .collect();
            ui.end_row();
            for (i, r) in runs.iter().enumerate() {
                ui.label(r.path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default())
                    .on_hover_text(r.path.display().to_string());
                let (m, p, k) = &mut st.edits[i];
                ui.add(egui::TextEdit::singleline(m).desired_width(160.0).id_salt(("model", i))).labelled_by(ids[1]);
                ui.add(egui::TextEdit::singleline(p).desired_width(100.0).id_salt(("paradigm", i))).labelled_by(ids[2]);
                ui.add(egui::TextEdit::singleline(k).desired_width(40.0).id_salt(("run", i))).labelled_by(ids[3]);
                ui.label(r.result.instances.len().to_string());
                ui.label(format!(
                    "{:.2}",
                    r.result.summary.get("total_score").and_then(|v| v.as_f64()).unwrap_or(f64::NAN)
                ));
                ui.label(if r.simulated { "yes" } else { "" });
                ui.end_row();
            }
        });
        if let Some(line) = &not_read {
            ui.label(line);
        }
        for p in &problems {
            ui.colored_label(egui::Color32::from_rgb(220, 60, 60), p);
        }
    });
    if apply {
        for (r, (m, p, k)) in runs.iter_mut().zip(&st.edits) {
            r.model = m.trim().to_string();
            r.paradigm = crate::bench::collection::paradigm_of(Some(p));
            if let Ok(n) = k.trim().parse::<u32>() {
                r.result.experiment.insert("run".into(), serde_json::json!(n));
            }
        }
        st.edits.clear();
    }
    apply
}
