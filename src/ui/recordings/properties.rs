//! Header/properties dialog and the repair report banner.

use super::OpenRecording;
use crate::signal::info::file_info;

/// A one-line banner saying the file was repaired, with the itemised report on expansion.
pub fn repair_banner(ui: &mut egui::Ui, o: &OpenRecording) {
    egui::CollapsingHeader::new(format!(
        "Opened with {} repair(s) — the file violates its format's spec in recoverable ways",
        o.repairs.len()
    ))
    .id_salt("repairs")
    .show(ui, |ui| {
        for r in &o.repairs {
            ui.label(r.to_string());
        }
    });
}

/// The header dialog: file facts, every channel's header fields (those its format has), repairs.
pub fn window(ctx: &egui::Context, o: &mut OpenRecording) {
    let mut open = o.properties_open;
    let info = file_info(&o.rec);
    egui::Window::new("Recording properties").open(&mut open).default_size([720.0, 480.0]).show(ctx, |ui| {
        let info = match &info {
            Ok(i) => i,
            Err(e) => {
                ui.colored_label(ui.visuals().error_fg_color, e.to_string());
                return;
            }
        };
        let opt = |v: Option<String>| v.unwrap_or_else(|| "–".into());
        egui::Grid::new("props").num_columns(2).show(ui, |ui| {
            for (k, v) in [
                ("File", info.path.clone()),
                ("Format", info.format.clone()),
                ("Patient", info.patient.clone()),
                ("Recording", info.recording.clone()),
                ("Start", info.start.clone()),
                (
                    "Data records",
                    opt(info.record_count.zip(info.record_duration_s).map(|(n, d)| format!("{n} × {d} s"))),
                ),
                ("Duration", super::traces::clock(o.duration_s)),
                ("File size", format!("{:.1} MB", o.rec.file_len() as f64 / 1e6)),
                ("Annotations", o.annotations.items().len().to_string()),
                ("Bad channels", if info.bads.is_empty() { "none marked".into() } else { info.bads.join(", ") }),
            ] {
                ui.label(k);
                ui.label(v);
                ui.end_row();
            }
        });
        ui.separator();
        egui::ScrollArea::both().max_height(260.0).show(ui, |ui| {
            egui::Grid::new("signals").striped(true).num_columns(10).show(ui, |ui| {
                for head in [
                    "Label",
                    "Rate (Hz)",
                    "Unit",
                    "Type",
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
                for c in &info.channels {
                    for v in [
                        c.label.clone(),
                        format!("{}", c.sample_rate),
                        c.physical_dimension.clone(),
                        c.kind.name().to_string(),
                        opt(c.physical_min.map(|v| v.to_string())),
                        opt(c.physical_max.map(|v| v.to_string())),
                        opt(c.digital_min.map(|v| v.to_string())),
                        opt(c.digital_max.map(|v| v.to_string())),
                        c.prefilter.clone(),
                        c.transducer.clone(),
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
