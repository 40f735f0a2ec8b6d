//! Header/properties dialog and the repair report banner.

use super::OpenRecording;

/// A one-line banner saying the file was repaired, with the itemised report on expansion.
pub fn repair_banner(ui: &mut egui::Ui, o: &OpenRecording) {
    egui::CollapsingHeader::new(format!(
        "Opened with {} repair(s) — the file violates the EDF spec in recoverable ways",
        o.repairs.len()
    ))
    .id_salt("repairs")
    .show(ui, |ui| {
        for r in &o.repairs {
            ui.label(r.to_string());
        }
    });
}

/// The header dialog: file facts, every signal's header fields, repairs.
pub fn window(ctx: &egui::Context, o: &mut OpenRecording) {
    let mut open = o.properties_open;
    let h = o.rec.header().clone();
    egui::Window::new("Recording properties").open(&mut open).default_size([720.0, 480.0]).show(ctx, |ui| {
        egui::Grid::new("props").num_columns(2).show(ui, |ui| {
            for (k, v) in [
                ("File", o.rec.path().display().to_string()),
                ("Format", h.format.name().to_string()),
                ("Patient", h.patient.clone()),
                ("Recording", h.recording.clone()),
                ("Start", h.start.iso8601()),
                ("Data records", format!("{} × {} s", h.record_count, h.record_duration)),
                ("Duration", super::traces::clock(o.duration_s)),
                ("File size", format!("{:.1} MB", o.rec.file().file_len() as f64 / 1e6)),
                ("Annotations", o.annotations.items().len().to_string()),
            ] {
                ui.label(k);
                ui.label(v);
                ui.end_row();
            }
        });
        ui.separator();
        egui::ScrollArea::both().max_height(260.0).show(ui, |ui| {
            egui::Grid::new("signals").striped(true).num_columns(8).show(ui, |ui| {
                for head in [
                    "Label",
                    "Rate (Hz)",
                    "Unit",
                    "Phys min",
                    "Phys max",
                    "Dig min",
                    "Dig max",
                    "Prefilter",
                    "Transducer",
                ] {
                    ui.strong(head);
                }
                ui.end_row();
                for c in o.rec.channels() {
                    let s = &h.signals[c.signal];
                    for v in [
                        s.label.clone(),
                        format!("{}", c.sample_rate),
                        s.physical_dimension.clone(),
                        format!("{}", s.physical_min),
                        format!("{}", s.physical_max),
                        format!("{}", s.digital_min),
                        format!("{}", s.digital_max),
                        s.prefilter.clone(),
                        s.transducer.clone(),
                    ] {
                        ui.label(v);
                    }
                    ui.end_row();
                }
            });
        });
        if !o.repairs.is_empty() {
            ui.separator();
            ui.strong("Repairs");
            for r in &o.repairs {
                ui.label(r.to_string());
            }
        }
    });
    o.properties_open = open;
}
