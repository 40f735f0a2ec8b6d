//! GUI behaviour of the Recordings room's spectrum panel with egui_kittest on the real 60-channel sample:
//! the panel computes the page's Welch PSD (the same numbers as the core function), the band-power table
//! shows them absolute and relative, channels can be picked for the plot.
#![cfg(feature = "gui")]

use brainlens::signal::spectrum::file::channel_psds;
use brainlens::signal::spectrum::{Integration, WelchParams, band_power};
use brainlens::ui::app::BrainLensApp;
use brainlens::util::cancel::Cancel;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::Path;

fn harness() -> Harness<'static, BrainLensApp> {
    let mut app = BrainLensApp::new(None, false);
    app.open(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eeg/mne_sample_eeg60.edf"));
    let mut h =
        Harness::builder().with_size([1280.0, 900.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h.get_by_label("Spectrum").click();
    settle(&mut h);
    h
}

/// Steps frames until the spectrum job has finished.
fn settle(h: &mut Harness<'static, BrainLensApp>) {
    // A change made by a click is seen by the panel on the next frame, which then starts the job.
    h.run_steps(2);
    for _ in 0..400 {
        h.run_steps(1);
        let busy = h.state().recordings.current.as_ref().and_then(|o| o.spectrum.as_ref()).is_some_and(|s| s.busy());
        if !busy {
            h.run_steps(2);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("spectrum job did not finish");
}

#[test]
fn the_panel_shows_the_pages_welch_psd_and_band_power() {
    let mut h = harness();
    let (alpha, rel) = {
        let o = h.state().recordings.current.as_ref().unwrap();
        let sp = o.spectrum.as_ref().unwrap();
        let psds = sp.psds.as_ref().expect("computed");
        assert_eq!(psds.len(), 61);
        // The same page through the core: 10-s page at 0 s, 2-s Hann segments, 50 % overlap.
        let p = WelchParams { nperseg: Some(500), ..Default::default() };
        let core = channel_psds(&o.rec, &[0], 0.0, Some(o.view.page_s), &p, &Cancel::default(), &|_| {}).unwrap();
        assert_eq!(psds[0].psd, core[0].psd);
        let alpha = band_power(&core[0], 8.0, 12.0, Integration::Trapezoid).unwrap();
        let total = band_power(&core[0], 0.5, 45.0, Integration::Trapezoid).unwrap();
        (alpha, 100.0 * alpha / total)
    };
    h.get_by_label(&format!("{alpha:.3}"));
    h.get_by_label("relative % of 0.5–45 Hz").click();
    h.run_steps(2);
    let sp = h.state().recordings.current.as_ref().unwrap().spectrum.as_ref().unwrap();
    assert!(sp.relative);
    assert!((sp.value(0, 8.0, 12.0).unwrap() - rel).abs() < 1e-9);
    assert!(h.query_all_by_label(&format!("{rel:.1}")).count() >= 1, "the table shows {rel:.1}");
}

#[test]
fn channels_are_picked_for_the_plot_and_the_whole_recording_can_be_analysed() {
    let mut h = harness();
    h.get_by_role_and_label(egui::accesskit::Role::CheckBox, "EEG 005").click();
    h.run_steps(2);
    let shown = h.state().recordings.current.as_ref().unwrap().spectrum.as_ref().unwrap().shown.clone();
    assert_eq!(shown, [0, 1, 2, 4]);
    h.get_by_label("whole recording").click();
    settle(&mut h);
    let o = h.state().recordings.current.as_ref().unwrap();
    let sp = o.spectrum.as_ref().unwrap();
    // 24 s at 250 Hz in 500-sample segments with 250 overlap: (6000 − 250) / 250 = 23 segments.
    assert_eq!(sp.psds.as_ref().unwrap()[0].segments, 23);
    // The whole-recording spectrogram of the first shown channel: 24 s in 4-s segments → 6 columns.
    let (c, sg) = sp.spectrogram.as_ref().expect("spectrogram computed");
    assert_eq!((*c, sg.times.len(), sg.freqs.len()), (0, 6, 501));
    let csv = sp.table_csv(&o.rec);
    assert!(csv.starts_with("channel,delta 0.5-4 Hz (abs),theta 4-8 Hz (abs)"), "{csv}");
    assert_eq!(csv.lines().count(), 62);
}

#[test]
fn edited_band_edges_reach_the_table_and_reset_restores_the_core_table() {
    let mut h = harness();
    let alpha_8_13 = {
        let o = h.state().recordings.current.as_ref().unwrap();
        let psds = o.spectrum.as_ref().unwrap().psds.as_ref().expect("computed");
        band_power(&psds[0], 8.0, 13.0, Integration::Trapezoid).unwrap()
    };
    // The IFCN alpha (8–13 Hz) typed into the band editor's upper edge.
    h.state_mut().recordings.current.as_mut().unwrap().spectrum.as_mut().unwrap().bands[2].hi = 13.0;
    h.run_steps(2);
    h.get_by_label(&format!("{alpha_8_13:.3}"));
    h.get_by_label("Band edges").click();
    h.run_steps(4);
    h.get_by_label("Reset to the default table (YASA: alpha 8–12)").click();
    h.run_steps(2);
    let bands = h.state().recordings.current.as_ref().unwrap().spectrum.as_ref().unwrap().bands.clone();
    assert_eq!(bands, brainlens::signal::bands::table(), "reset gives signal::bands back");
}

fn psd_view(h: &Harness<'static, BrainLensApp>) -> brainlens::ui::widgets::explore::PlotView {
    h.state().recordings.current.as_ref().unwrap().spectrum.as_ref().unwrap().view.expect("the PSD plot was drawn")
}

/// The PSD plot is explored as egui_plot does it: a zoom over the plot (egui's zoom event, what Ctrl+wheel and a
/// pinch give) narrows the frequency range around the cursor; the read-out gives every shown channel's power at
/// the bin nearest the cursor (the panel's own PSDs: 2-s segments, 0.5-Hz bins); a band's button zooms to its
/// edges; the log axis switches off and on.
#[test]
fn the_psd_plot_zooms_and_reads_out_the_power_under_the_cursor() {
    let mut h = harness();
    let before = psd_view(&h);
    let at = before.screen(10.0, (before.y.0 + before.y.1) / 2.0);
    h.event(egui::Event::PointerMoved(at));
    h.run_steps(2);
    h.event(egui::Event::Zoom(2.0));
    h.run_steps(3);
    let after = psd_view(&h);
    let (w0, w1) = (before.x.1 - before.x.0, after.x.1 - after.x.0);
    assert!(w1 < 0.75 * w0, "zoomed in: {before:?} → {after:?}");
    assert!(after.x.0 < 10.0 && 10.0 < after.x.1, "around the cursor: {after:?}");
    // The read-out at the cursor, moved to 10 Hz in the zoomed view: within a pixel of 10 Hz, so its bin is
    // 10.0 Hz.
    h.event(egui::Event::PointerMoved(after.screen(10.0, (after.y.0 + after.y.1) / 2.0)));
    h.run_steps(2);
    let want = {
        let o = h.state().recordings.current.as_ref().unwrap();
        let sp = o.spectrum.as_ref().unwrap();
        let f = sp.cursor_hz.expect("the cursor was over the plot");
        assert!((f - 10.0).abs() < 0.25, "{f}");
        let psd = &sp.psds.as_ref().unwrap()[0];
        let k = psd.freqs.iter().position(|x| (*x - 10.0).abs() < 1e-9).unwrap();
        format!("{} {:.3e}", o.rec.channels()[0].label, psd.psd[k])
    };
    let line = h.get_by_label_contains("at 10.00 Hz").value().unwrap_or_default();
    assert!(line.contains(&want), "{line} has {want}");
    // alpha's button: the view is 8–12 Hz.
    h.get_by_role_and_label(egui::accesskit::Role::Button, "alpha").click();
    h.run_steps(3);
    let alpha = psd_view(&h);
    assert!((alpha.x.0 - 8.0).abs() < 0.05 && (alpha.x.1 - 12.0).abs() < 0.05, "{alpha:?}");
    // The power at 10 Hz is inside the view on the log axis (log10 of it) and, switched, on the linear one: the
    // switch refits the power to the frequencies shown.
    let v = {
        let sp = h.state().recordings.current.as_ref().unwrap().spectrum.as_ref().unwrap();
        let psd = &sp.psds.as_ref().unwrap()[0];
        psd.psd[psd.freqs.iter().position(|x| (*x - 10.0).abs() < 1e-9).unwrap()]
    };
    assert!(alpha.y.0 <= v.log10() && v.log10() <= alpha.y.1, "{alpha:?} has log10 {v}");
    h.get_by_label("log power").click();
    h.run_steps(4);
    let linear = psd_view(&h);
    assert!(linear.y.0 <= v && v <= linear.y.1 && (linear.x.0 - 8.0).abs() < 0.05, "{linear:?} has {v}");
}
