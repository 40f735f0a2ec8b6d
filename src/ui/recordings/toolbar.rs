//! The Recordings room's toolbar: open, page length, sensitivity, montage, display filters, grid.

use super::view::PAGE_LENGTHS;
use super::{Cmd, RecordingsRoom, pick_recording};
use crate::signal::montage::{Montage, double_banana, parse_chain};
use std::path::PathBuf;

const HIGHPASS: [Option<f64>; 7] = [None, Some(0.1), Some(0.3), Some(0.5), Some(1.0), Some(5.0), Some(10.0)];
const LOWPASS: [Option<f64>; 7] = [None, Some(15.0), Some(30.0), Some(35.0), Some(40.0), Some(70.0), Some(100.0)];
const NOTCH: [Option<f64>; 3] = [None, Some(50.0), Some(60.0)];

fn hz(v: Option<f64>) -> String {
    v.map_or("off".into(), |f| format!("{f} Hz"))
}

/// Draws the toolbar rows.
pub fn show(ui: &mut egui::Ui, room: &mut RecordingsRoom) {
    ui.horizontal(|ui| {
        if ui.button("Open…").clicked()
            && let Some(p) = pick_recording()
        {
            room.commands.push(Cmd::Open(p));
        }
        let field = ui.add(
            egui::TextEdit::singleline(&mut room.path_field)
                .hint_text("path to a recording (.edf, .bdf, .vhdr, .cnt, .set, .npy, …)")
                .desired_width(320.0),
        );
        let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if (ui.button("Open path").clicked() || enter) && !room.path_field.trim().is_empty() {
            room.commands.push(Cmd::Open(PathBuf::from(room.path_field.trim())));
        }
        if ui.button("BIDS…").on_hover_text("Export to a BIDS dataset; browse a dataset's recordings").clicked() {
            room.bids.open = !room.bids.open;
        }
    });
    let Some(o) = &mut room.current else { return };
    let cmds = &mut room.commands;
    ui.horizontal_wrapped(|ui| {
        let mut page = o.view.page_s;
        egui::ComboBox::from_label("Page").selected_text(format!("{page} s")).show_ui(ui, |ui| {
            for s in PAGE_LENGTHS {
                ui.selectable_value(&mut page, s, format!("{s} s"));
            }
        });
        if page != o.view.page_s {
            cmds.push(Cmd::SetPageLength(page));
        }
        if ui.button("< Page").on_hover_text("PgUp").clicked() {
            cmds.push(Cmd::PageBy(-1.0));
        }
        if ui.button("Page >").on_hover_text("PgDn").clicked() {
            cmds.push(Cmd::PageBy(1.0));
        }
        ui.separator();
        if ui.button("−").on_hover_text("Smaller traces (− key)").clicked() {
            cmds.push(Cmd::StepSensitivity(-1));
        }
        ui.label(format!("{} µV/mm", o.view.sensitivity));
        if ui.button("+").on_hover_text("Larger traces (+ key)").clicked() {
            cmds.push(Cmd::StepSensitivity(1));
        }
        ui.separator();
        montage_menu(ui, o, cmds);
        ui.separator();
        let mut f = o.view.filter.clone();
        egui::ComboBox::from_label("HP").selected_text(hz(f.highpass_hz)).show_ui(ui, |ui| {
            for v in HIGHPASS {
                ui.selectable_value(&mut f.highpass_hz, v, hz(v));
            }
        });
        egui::ComboBox::from_label("LP").selected_text(hz(f.lowpass_hz)).show_ui(ui, |ui| {
            for v in LOWPASS {
                ui.selectable_value(&mut f.lowpass_hz, v, hz(v));
            }
        });
        egui::ComboBox::from_label("Notch").selected_text(hz(f.notch_hz)).show_ui(ui, |ui| {
            for v in NOTCH {
                ui.selectable_value(&mut f.notch_hz, v, hz(v));
            }
        });
        if f != o.view.filter {
            cmds.push(Cmd::SetFilter(f));
        }
        let mut grid = o.view.epoch_grid;
        if ui.checkbox(&mut grid, "30-s epochs").changed() {
            cmds.push(Cmd::SetEpochGrid(grid));
        }
        ui.separator();
        let mut spectrum = o.spectrum.is_some();
        if ui
            .toggle_value(&mut spectrum, "Spectrum")
            .on_hover_text("Welch PSD and band power of the recorded channels")
            .changed()
        {
            o.spectrum = spectrum.then(|| super::spectrum::SpectrumPanel::new(&o.rec));
        }
        ui.toggle_value(&mut o.sleep.open, "Sleep");
        ui.toggle_value(&mut o.hrv.open, "HRV");
        ui.toggle_value(&mut o.connectivity.open, "Connectivity");
        ui.toggle_value(&mut o.stats.open, "Channel stats");
        if ui.button("Properties").clicked() {
            o.properties_open = true;
        }
    });
    if !o.montage_errors.is_empty() {
        ui.colored_label(ui.visuals().warn_fg_color, format!("Montage: {}", o.montage_errors.join("; ")));
    }
}

/// Montage choice, with the double banana when 10-20 labels exist and a user-defined bipolar chain.
fn montage_menu(ui: &mut egui::Ui, o: &mut super::OpenRecording, cmds: &mut Vec<Cmd>) {
    let banana = double_banana(o.rec.channels());
    let current = o.view.montage.clone();
    let current_name = match &current {
        Montage::Bipolar(p) if banana.as_ref() == Some(p) => "Double banana".to_string(),
        m => m.name().to_string(),
    };
    egui::ComboBox::from_label("Montage").selected_text(current_name).show_ui(ui, |ui| {
        if ui.selectable_label(current == Montage::AsRecorded, "As recorded").clicked() {
            cmds.push(Cmd::SetMontage(Montage::AsRecorded));
        }
        if ui.selectable_label(current == Montage::AverageReference, "Average reference").clicked() {
            cmds.push(Cmd::SetMontage(Montage::AverageReference));
        }
        if let Some(pairs) = &banana
            && ui.selectable_label(matches!(&current, Montage::Bipolar(p) if p == pairs), "Double banana").clicked()
        {
            cmds.push(Cmd::SetMontage(Montage::Bipolar(pairs.clone())));
        }
    });
    ui.add(egui::TextEdit::singleline(&mut o.bipolar_text).hint_text("bipolar: Fp1-F3, F3-C3").desired_width(150.0));
    if ui.button("Apply chain").clicked() {
        match parse_chain(&o.bipolar_text) {
            Ok(pairs) => cmds.push(Cmd::SetMontage(Montage::Bipolar(pairs))),
            Err(e) => o.montage_errors = vec![e.to_string()],
        }
    }
}
