//! The GUI: an eframe app with three rooms. Thin over the core: everything it shows comes from `signal`
//! (and later `network`, `bench`) functions that the CLI also exposes.

pub mod app;
pub mod bench;
pub mod jobs;
pub mod llm;
pub mod networks;
pub mod recordings;
pub mod room;
pub mod screenshot;
pub mod settings;
pub mod widgets;

use std::path::PathBuf;

/// The recording opened when `brainlens` starts with no arguments.
pub fn sample_workspace() -> PathBuf {
    if let Ok(p) = std::env::var("BRAINLENS_SAMPLE") {
        return PathBuf::from(p);
    }
    crate::util::paths::bundled("fixtures/eeg/mne_sample_eeg60.edf")
}

/// The connectome offered as the sample network (real HCP group functional connectivity).
pub fn sample_network() -> PathBuf {
    crate::util::paths::bundled("fixtures/networks/group-train706_fc.npz")
}

/// The real connectomes under File > Open sample network: (menu text, bundled path).
pub const SAMPLE_NETWORKS: [(&str, &str); 4] = [
    ("HCP group FC, 706 subjects (Schaefer-100; cubnm)", "fixtures/networks/group-train706_fc.npz"),
    (
        "HCP subject 899885 FC, median (Schaefer-100; brainspace)",
        "fixtures/networks/hcp_brainspace/HCP_899885_median_schaefer_100.csv",
    ),
    (
        "HCP subject 395251 FC, median (Schaefer-200; brainspace)",
        "fixtures/networks/hcp_brainspace/HCP_395251_median_schaefer_200.csv",
    ),
    (
        "HCP hold-out group mean FC (Schaefer-200; brainspace)",
        "fixtures/networks/hcp_brainspace/schaefer_200_mean_connectivity_matrix.csv",
    ),
];

/// Command-line options of the GUI.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Render the first settled frame to this PNG and exit.
    pub screenshot: Option<PathBuf>,
    /// Page through the file for this many frames, print frame times and exit.
    pub frame_stats: Option<u32>,
    /// Initial page length in seconds.
    pub page_s: Option<f64>,
    /// The room shown first: "recordings", "networks" or "bench".
    pub room: Option<String>,
    /// The Networks room's brain view first: "glass" or "3d".
    pub network_view: Option<String>,
    /// Open the Recordings room's spectrum panel.
    pub spectrum: bool,
    /// Zoom the spectrum panel's PSD to this range (Hz), the read-out at its middle.
    pub spectrum_zoom: Option<(f64, f64)>,
    /// Open the HRV window and compute it on the recording's ECG channel.
    pub hrv: bool,
    /// Open the language-model window.
    pub model_window: bool,
    /// Open the Networks room's HARK and CARD panels.
    pub evidence: bool,
    /// Open the BrainAgent panel and analyse the network with this method (and the saved model settings).
    pub agent: Option<String>,
    /// Open the BrainAgent panel on a saved trace.
    pub agent_trace: Option<PathBuf>,
    /// Open the BrainAgent panel's batch results on these run files (comma-separated).
    pub agent_runs: Option<String>,
    /// Open the Cohort model panel with this model and analyse the open network.
    pub cohort_model: Option<PathBuf>,
}

/// Opens the main window on `file` (or the sample workspace).
pub fn run(file: Option<PathBuf>, opts: RunOptions) -> anyhow::Result<()> {
    let file = file.unwrap_or_else(sample_workspace);
    let spectrum = opts.spectrum;
    let spectrum_zoom = opts.spectrum_zoom;
    let hrv = opts.hrv;
    let model_window = opts.model_window;
    let evidence = opts.evidence;
    let agent = opts.agent.clone();
    let agent_trace = opts.agent_trace.clone();
    let agent_runs = opts.agent_runs.clone();
    let cohort_model = opts.cohort_model.clone();
    let room = opts.room.clone();
    let network_view = opts.network_view.clone();
    launch(opts, move |app| {
        app.open(file);
        if network_view.as_deref() == Some("3d") {
            app.networks.brain_view = networks::BrainView::ThreeD;
        }
        match room.as_deref() {
            Some("networks") => app.room = app::Room::Networks,
            Some("bench") => app.room = app::Room::Bench,
            Some(_) => app.room = app::Room::Recordings,
            None => {}
        }
        if spectrum {
            app.recordings.open_spectrum();
        }
        if let (Some((lo, hi)), Some(sp)) =
            (spectrum_zoom, app.recordings.current.as_mut().and_then(|o| o.spectrum.as_mut()))
        {
            sp.zoom_to = Some((lo, hi));
            sp.cursor_hz = Some((lo + hi) / 2.0);
        }
        if hrv {
            app.recordings.open_hrv();
        }
        app.llm.open = model_window;
        app.networks.hark.open = evidence;
        app.networks.card.open = evidence;
        if let Some(m) = &agent {
            match crate::agent::graph::Method::parse(m) {
                Ok(method) => app.networks.agent.settings = crate::agent::graph::Settings::for_method(method),
                Err(e) => app.networks.agent.error = Some(e.to_string()),
            }
            app.networks.agent.open = true;
            app.networks.agent.autostart = true;
        }
        if let Some(p) = &agent_trace {
            app.networks.agent.open_trace(p);
        }
        if let Some(runs) = &agent_runs {
            app.room = app::Room::Networks;
            app.networks.agent.open = true;
            app.networks.agent.batch.paths = runs.clone();
            app.networks.agent.batch.load();
        }
        if let Some(m) = &cohort_model {
            app.room = app::Room::Networks;
            app.networks.cohort_model.model_path = m.display().to_string();
            app.networks.cohort_model.open = true;
            app.networks.cohort_model.autostart = true;
        }
    })
}

/// Opens the main window in the Bench room on result files or folders (the sample recording stays open in
/// the Recordings room).
pub fn run_bench(results: Vec<PathBuf>, view: Option<String>, opts: RunOptions) -> anyhow::Result<()> {
    if let Some(v) = &view
        && !bench::BenchRoom::default().select_view(v)
    {
        anyhow::bail!("unknown Bench view {v:?}");
    }
    launch(opts, move |app| {
        app.open(sample_workspace());
        app.open_bench(results);
        if let Some(v) = view {
            app.bench.select_view(&v);
        }
    })
}

fn launch(opts: RunOptions, setup: impl FnOnce(&mut app::BrainLensApp) + 'static) -> anyhow::Result<()> {
    let RunOptions { screenshot, frame_stats, page_s, .. } = opts;
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("BrainLens")
            .with_inner_size([1280.0, 800.0])
            .with_drag_and_drop(true),
        persist_window: screenshot.is_none() && frame_stats.is_none(),
        ..Default::default()
    };
    let result = eframe::run_native(
        "BrainLens",
        options,
        Box::new(move |cc| {
            let mut app = app::BrainLensApp::new(cc.storage, screenshot.is_none() && frame_stats.is_none());
            if let Some(p) = page_s.filter(|p| p.is_finite() && *p > 0.0) {
                app.settings.page_s = p;
            }
            setup(&mut app);
            app.screenshot = screenshot.map(screenshot::ScreenshotRequest::new);
            app.frame_stats = frame_stats.map(screenshot::FrameStats::new);
            Ok(Box::new(app))
        }),
    );
    result.map_err(|e| anyhow::anyhow!("could not open a window: {e}"))?;
    Ok(())
}
