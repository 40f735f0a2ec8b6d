//! The Networks room: open a connectome, set the threshold, read the standard metrics (bctpy
//! definitions) in a sortable table and a summary card, and see the network as a matrix, a circle and a
//! glass brain — all linked by one selected region.

pub mod agent;
mod brain;
pub mod brain3d;
mod circle;
pub mod cohort;
pub mod cohort_train;
pub mod evidence;
mod figure;
mod matrix;
mod table;

use crate::llm::config::ProviderConfig;
use crate::network::atlas::Atlas;
use crate::network::connectome::Asymmetry;
use crate::network::error::NetworkError;
use crate::network::metrics::summary::{
    GraphMetrics, MetricsOptions, SmallWorldReport, prepare, small_world_of, summarize_prepared,
};
use crate::network::smallworld::SmallWorldParams;
use crate::network::threshold::Negatives;
use crate::network::{Connectome, io};
use crate::ui::jobs::{Job, JobSlot, cancel_all, running};
use crate::ui::room::{AppCmd, JobStatus, Room, Shell};
use std::path::{Path, PathBuf};

pub use crate::network::plot::matrix::Order;

/// An open connectome and its computed metrics.
pub struct OpenNetwork {
    pub path: PathBuf,
    pub connectome: Connectome,
    pub atlas: Option<Atlas>,
    /// Why the atlas was chosen (e.g. assumed from the region count).
    pub atlas_note: String,
    pub options: MetricsOptions,
    /// The thresholded, normalised (or binarised) matrix the metrics ran on.
    pub prepared: Vec<f64>,
    pub metrics: GraphMetrics,
    pub selected: Option<usize>,
    /// Regions highlighted on the glass brain (a knowledge item's regions, from the HARK panel).
    pub highlight: Vec<usize>,
    pub order: Order,
    /// How the glass brain and the circle draw (display mode, edge percentile, node size and colour).
    pub style: crate::network::plot::Style,
    pub sort: table::SortKey,
    /// Weight shown at full colour in the matrix (values beyond it saturate).
    pub color_limit: f64,
    matrix_texture: Option<(u64, egui::TextureHandle)>,
    /// The glass brain and circle figures as textures (redrawn when their key changes).
    pub(crate) glass_cache: crate::ui::widgets::scene::FigureCache,
    pub(crate) circle_cache: crate::ui::widgets::scene::FigureCache,
    /// What the atlas field holds, and why the last atlas given was refused (the previous one stays).
    pub atlas_field: String,
    pub atlas_error: Option<String>,
    /// The outcome of the last figure export (true: the glass brain's, false: the circle's).
    pub figure_note: Option<(bool, Result<String, String>)>,
    /// Bumped whenever the prepared matrix changes (textures and evidence panels recompute).
    pub generation: u64,
    /// σ/ω of the current threshold (None until computed; cleared when the threshold changes).
    pub small_world: Option<Result<SmallWorldReport, NetworkError>>,
    sw_job: Option<Job<Result<SmallWorldReport, NetworkError>>>,
    /// The prepared matrix and metrics for the current options, computed off the UI thread; until it ends
    /// the views show the previous ones.
    pub(crate) metrics_job: Option<Job<(Vec<f64>, GraphMetrics)>>,
    /// Widget actions of this frame, applied after it (`apply_commands`).
    pub commands: Vec<Cmd>,
}

/// Which brain view the room shows under the matrix and the circle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BrainView {
    #[default]
    Glass,
    ThreeD,
}

/// State of the Networks room.
#[derive(Default)]
pub struct NetworksRoom {
    pub current: Option<OpenNetwork>,
    pub error: Option<String>,
    pub message: Option<String>,
    pub path_field: String,
    pub hark: evidence::HarkPanel,
    pub card: evidence::CardPanel,
    pub review: evidence::ReviewPanel,
    pub case_review: evidence::CaseReviewPanel,
    pub gfm: evidence::GfmPanel,
    pub cohort_model: evidence::CohortModelPanel,
    pub agent: agent::AgentPanel,
    pub cohort: cohort::CohortPanel,
    /// The lower view: the glass brain or the 3-D view.
    pub brain_view: BrainView,
    pub view3d: brain3d::View3d,
    /// The first visit opened a network (the last one opened, else the bundled HCP group FC).
    pub visited: bool,
    /// Opened since the last frame (remembered as the room's network and on the recent list).
    opened: Option<PathBuf>,
}

/// True for the file types the Networks room opens.
pub fn is_network_file(path: &Path) -> bool {
    matches!(
        path.extension().map(|e| e.to_string_lossy().to_lowercase()).as_deref(),
        Some("npy" | "npz" | "csv" | "tsv" | "txt" | "edge")
    )
}

impl NetworksRoom {
    /// Opens a connectome; errors are shown and the current network stays open. Returns success.
    pub fn open(&mut self, path: PathBuf) -> bool {
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npz"))
            && crate::network::cohort::file::is_cohort(&path)
        {
            self.cohort.open_file(path);
            return true;
        }
        match io::load(&path, Asymmetry::Directed) {
            Ok(c) => {
                self.show_network(path.clone(), c);
                self.opened = Some(path);
                true
            }
            Err(e) => {
                self.error = Some(format!("{e:#}"));
                false
            }
        }
    }

    /// Shows a loaded connectome (from a file or a cohort's subject) with its atlas and metrics.
    fn show_network(&mut self, path: PathBuf, mut c: Connectome) {
        let (atlas, note) = crate::network::atlas::infer(&path, c.n);
        if let Some(a) = &atlas
            && c.labels.first().is_some_and(|l| l == "R1")
        {
            c.labels = a.labels.clone();
        }
        let note =
            if c.directed { format!("{note}; directed (asymmetric matrix, row to column)") } else { note.to_string() };
        let options = MetricsOptions { proportional: Some(0.2), local_efficiency: c.n <= 300, ..Default::default() };
        let prepared = prepare(&c, &options);
        let metrics = summarize_prepared(&c, &prepared, &options);
        // Loading fixes (diagonal zeroed, …) are reported once, when the file opens.
        self.message = (!c.fixes.is_empty()).then(|| format!("{}: {}", path.display(), c.fixes.join("; ")));
        self.path_field = path.display().to_string();
        self.current = Some(OpenNetwork {
            path,
            connectome: c,
            atlas,
            atlas_note: note,
            options,
            prepared,
            metrics,
            selected: None,
            highlight: Vec::new(),
            order: Order::Atlas,
            style: crate::network::plot::Style::default(),
            sort: table::SortKey::Index,
            color_limit: 1.0,
            matrix_texture: None,
            glass_cache: Default::default(),
            circle_cache: Default::default(),
            figure_note: None,
            atlas_field: String::new(),
            atlas_error: None,
            generation: 0,
            small_world: None,
            sw_job: None,
            metrics_job: None,
            commands: Vec::new(),
        });
        self.error = None;
    }

    /// Draws the room.
    fn draw(&mut self, ui: &mut egui::Ui, provider: &ProviderConfig) {
        let mut open_path = None;
        ui.horizontal_wrapped(|ui| {
            if ui.button("Open matrix…").clicked()
                && let Some(p) = rfd::FileDialog::new()
                    .add_filter("Connectome", &["npy", "npz", "csv", "tsv", "txt", "edge"])
                    .pick_file()
            {
                open_path = Some(p);
            }
            let l = ui.label("Matrix file").id;
            ui.add(egui::TextEdit::singleline(&mut self.path_field).desired_width(360.0)).labelled_by(l);
            if ui.button("Open matrix").clicked() && !self.path_field.trim().is_empty() {
                open_path = Some(PathBuf::from(self.path_field.trim()));
            }
            ui.separator();
            if ui.button("Knowledge (HARK)…").clicked() {
                self.hark.open = true;
            }
            if ui.button("Similar cases (CARD)…").clicked() {
                self.card.open = true;
            }
            if ui.button("Review knowledge…").clicked() {
                self.review.open = true;
            }
            if ui.button("Review cases…").on_hover_text("case reports the refining pass flagged for review").clicked()
            {
                self.case_review.open = true;
            }
            if ui
                .button("Cohort model…")
                .on_hover_text("this network against a saved cohort model: calibrated P(label) and its edges")
                .clicked()
            {
                self.cohort_model.open = true;
            }
            if ui.button("Graph encoder…").clicked() {
                self.gfm.open = true;
            }
            if ui.button("BrainAgent…").on_hover_text("Analyse this network with BrainAgent; batch results").clicked()
            {
                self.agent.open = true;
            }
            if ui
                .button("Cohort…")
                .on_hover_text("Import a cohort (ABIDE, ADHD-200, a folder of time series) or open one")
                .clicked()
            {
                self.cohort.open = true;
            }
        });
        if let Some(i) = self.cohort.show(ui.ctx()) {
            match self.cohort.subject_connectome(i) {
                Ok((path, c)) => self.show_network(path, c),
                Err(e) => self.cohort.error = Some(e),
            }
        }
        if let Some(model) = self.cohort.train.use_in_room.take() {
            self.cohort_model.model_path = model.display().to_string();
            self.cohort_model.open = true;
        }
        if let Some(p) = open_path {
            self.open(p);
        }
        if let Some(e) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, format!("Error: {e}"));
        }
        self.review.show(ui.ctx());
        self.case_review.show(ui.ctx());
        self.gfm.show(ui.ctx());
        let Some(o) = &mut self.current else {
            ui.vertical_centered(|ui| {
                ui.add_space(80.0);
                ui.heading("Open a connectome matrix");
                ui.label(".csv, .tsv, .txt, .edge, .npy or .npz; File > Open sample network for the HCP group FC.");
            });
            return;
        };
        o.poll(ui.ctx());
        let intents = self.agent.show(ui.ctx(), o, provider);
        if let Some(h) = intents.highlight {
            o.highlight = h;
        }
        if let Some(i) = intents.select_region {
            o.commands.push(Cmd::Select(Some(i)));
        }
        if let Some(r) = intents.show_round {
            show_round(&mut self.hark, &mut self.card, &r);
        }
        self.hark.show(ui.ctx(), o);
        self.card.show(ui.ctx(), o);
        self.cohort_model.show(ui.ctx(), o);
        o.controls(ui);
        egui::Panel::right("net_table").default_size(430.0).show(ui, |ui| table::show(ui, o, &mut self.message));
        egui::CentralPanel::default().show(ui, |ui| {
            let h = ui.available_height();
            let w = ui.available_width();
            ui.horizontal(|ui| {
                ui.vertical(|ui| {
                    ui.set_width(w * 0.5 - 6.0);
                    matrix::show(ui, o, h * 0.42);
                });
                ui.vertical(|ui| circle::show(ui, o, h * 0.42));
            });
            let has_coords = o.atlas.as_ref().is_some_and(|a| a.coords.is_some());
            if has_coords {
                ui.horizontal(|ui| {
                    ui.selectable_value(&mut self.brain_view, BrainView::Glass, "Glass brain");
                    ui.selectable_value(&mut self.brain_view, BrainView::ThreeD, "3-D");
                });
            }
            match self.brain_view {
                BrainView::ThreeD if has_coords => self.view3d.show(ui, o),
                _ => brain::show(ui, o),
            }
        });
        o.apply_commands();
    }
}

impl NetworksRoom {
    /// The frame-time benchmark's setting (`--room networks --frame-stats N`): the 3-D view of the open
    /// network at 21 % density with the strongest 1,000 edges drawn (for the 100-region sample: percentile
    /// 100 × (1 − 1000 / 4950)), turned 5° before each measured frame. True once that network is ready.
    pub fn measure_3d_frame(&mut self) -> bool {
        self.brain_view = BrainView::ThreeD;
        let Some(o) = &mut self.current else { return false };
        let pairs = (o.connectome.n * (o.connectome.n - 1) / 2).max(1) as f64;
        o.style.edge_percentile = 100.0 * (1.0 - (1000.0 / pairs).min(1.0));
        if o.recomputing() {
            return false;
        }
        if o.options.proportional != Some(0.21) {
            o.commands.push(Cmd::SetOptions(MetricsOptions { proportional: Some(0.21), ..o.options }));
            return false;
        }
        self.view3d.turn(5.0);
        true
    }
}

/// What the Networks room's widgets ask for, queued while the frame is drawn and applied after it (as the
/// Recordings room's `Cmd`): every view selects through `Select`, every control changes options through
/// `SetOptions`, so the order of effects does not depend on the order the panels are drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    /// Select a region everywhere (matrix, circle, glass brain, table), or clear the selection.
    Select(Option<usize>),
    /// New threshold/binarisation/negative-weight options: the metrics are recomputed (as a job).
    SetOptions(MetricsOptions),
    /// σ/ω with this many reference graphs, in the background.
    SmallWorld(usize),
    /// Use this atlas (a built-in name, a .node or a CSV file) for the labels, networks and positions.
    SetAtlas(String),
}

impl OpenNetwork {
    /// Applies the commands the frame queued.
    pub fn apply_commands(&mut self) {
        for c in std::mem::take(&mut self.commands) {
            match c {
                Cmd::Select(i) => self.selected = i,
                Cmd::SetOptions(o) => {
                    if o != self.options {
                        self.options = o;
                        self.recompute();
                    }
                }
                Cmd::SmallWorld(n) => self.start_small_world(n),
                Cmd::SetAtlas(spec) => self.set_atlas(&spec),
            }
        }
    }

    /// Recomputes the prepared matrix and the metrics after an option change, as a job (a newer change
    /// replaces, and so cancels, a running one).
    pub fn recompute(&mut self) {
        let (c, o) = (self.connectome.clone(), self.options);
        self.metrics_job = Some(Job::spawn("Graph metrics", 1, move |_, _| {
            let prepared = prepare(&c, &o);
            let metrics = summarize_prepared(&c, &prepared, &o);
            Ok(Some((prepared, metrics)))
        }));
        self.small_world = None;
        self.sw_job = None;
    }

    /// Uses atlas `spec` when it has one region per matrix row; otherwise says why and keeps the current one.
    pub fn set_atlas(&mut self, spec: &str) {
        match Atlas::load(spec) {
            Ok(a) if a.len() == self.connectome.n => {
                self.connectome.labels = a.labels.clone();
                self.atlas_note = format!("atlas {} (chosen)", a.name);
                self.atlas = Some(a);
                self.atlas_error = None;
                self.recompute();
            }
            Ok(a) => {
                self.atlas_error = Some(format!(
                    "{spec}: atlas {} has {} regions, the matrix {}; the current atlas stays",
                    a.name,
                    a.len(),
                    self.connectome.n
                ))
            }
            Err(e) => self.atlas_error = Some(format!("{e}; the current atlas stays")),
        }
    }

    /// The metrics job is running.
    pub fn recomputing(&self) -> bool {
        self.metrics_job.is_some()
    }

    /// Starts σ/ω with `nrand` references in the background.
    pub fn start_small_world(&mut self, nrand: usize) {
        let (c, o) = (self.connectome.clone(), self.options);
        let p = SmallWorldParams { niter: 5, nrand, seed: o.seed, weighted: false };
        self.sw_job =
            Some(Job::spawn("σ/ω references", 3 * nrand as u64, move |progress, cancel| {
                match small_world_of(&c, &o, &p, progress, cancel) {
                    Err(NetworkError::Cancelled) => Ok(None),
                    r => Ok(Some(r)),
                }
            }));
    }

    fn poll(&mut self, ctx: &egui::Context) {
        if let Some(job) = &mut self.metrics_job {
            match job.poll() {
                Some(Ok(Some((prepared, metrics)))) => {
                    (self.prepared, self.metrics) = (prepared, metrics);
                    self.generation += 1;
                    self.metrics_job = None;
                }
                // The work itself cannot fail; a cancelled (replaced) job leaves the newer one to finish.
                Some(_) => self.metrics_job = None,
                None => ctx.request_repaint_after(std::time::Duration::from_millis(20)),
            }
        }
        if let Some(job) = &mut self.sw_job {
            match job.poll() {
                Some(Ok(Some(r))) => {
                    self.small_world = Some(r);
                    self.sw_job = None;
                }
                Some(Ok(None)) => self.sw_job = None,
                Some(Err(e)) => {
                    self.small_world = Some(Err(NetworkError::Invalid(format!("{e:#}"))));
                    self.sw_job = None;
                }
                None => ctx.request_repaint_after(std::time::Duration::from_millis(50)),
            }
        }
    }

    /// Network (or lobe) of region `i`, when the atlas gives one.
    pub fn network_of(&self, i: usize) -> Option<&str> {
        self.atlas.as_ref()?.networks.as_ref()?.get(i).map(String::as_str)
    }

    /// Region indices in the chosen display order.
    pub fn ordered(&self) -> Vec<usize> {
        crate::network::plot::matrix::order(&self.input(), self.order)
    }

    /// How the figures draw now: the room's style with the current selection and highlighted regions.
    pub fn figure_style(&self) -> crate::network::plot::Style {
        crate::network::plot::Style { selected: self.selected, highlight: self.highlight.clone(), ..self.style.clone() }
    }

    /// What the figures draw: the prepared matrix, its metrics and the atlas.
    pub fn input(&self) -> crate::network::plot::Input<'_> {
        crate::network::plot::Input {
            n: self.connectome.n,
            weights: &self.prepared,
            metrics: &self.metrics,
            atlas: self.atlas.as_ref(),
        }
    }

    /// Name of the selected region for the captions under each view.
    pub fn selected_caption(&self) -> String {
        match self.selected {
            Some(i) => format!("selected: {}", self.connectome.labels[i]),
            None => "click a region to select it".into(),
        }
    }

    fn controls(&mut self, ui: &mut egui::Ui) {
        let mut o = self.options;
        ui.horizontal_wrapped(|ui| {
            let mut density = o.proportional.unwrap_or(1.0) * 100.0;
            let changed = ui.add(egui::Slider::new(&mut density, 1.0..=100.0).step_by(1.0).text("Density %")).changed();
            if changed {
                o.proportional = if density >= 100.0 { None } else { Some(density / 100.0) };
            }
            ui.checkbox(&mut o.binary, "Binary");
            let mut neg = o.negatives;
            egui::ComboBox::from_label("Negative weights")
                .selected_text(match neg {
                    Negatives::Zero => "set to 0",
                    Negatives::Absolute => "absolute value",
                    Negatives::Keep => "keep",
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut neg, Negatives::Zero, "set to 0");
                    ui.selectable_value(&mut neg, Negatives::Absolute, "absolute value");
                    ui.selectable_value(&mut neg, Negatives::Keep, "keep");
                });
            o.negatives = neg;
            let mut abs_on = o.absolute.is_some();
            let mut abs = o.absolute.unwrap_or(0.0);
            let a = ui.checkbox(&mut abs_on, "Absolute threshold").changed();
            let b = abs_on && ui.add(egui::DragValue::new(&mut abs).speed(0.01)).changed();
            if a || b {
                o.absolute = abs_on.then_some(abs);
            }
            if o != self.options {
                self.commands.push(Cmd::SetOptions(o));
            }
            ui.label("Order");
            ui.selectable_value(&mut self.order, Order::Atlas, "atlas");
            ui.selectable_value(&mut self.order, Order::Module, "module");
            if self.atlas.as_ref().is_some_and(|a| a.networks.is_some()) {
                ui.selectable_value(&mut self.order, Order::Network, "network");
            }
            ui.separator();
            ui.label(format!(
                "{} · {}",
                self.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
                self.atlas_note
            ));
            let id = ui.label("Atlas").id;
            ui.add(egui::TextEdit::singleline(&mut self.atlas_field).desired_width(140.0).hint_text("name or file"))
                .labelled_by(id)
                .on_hover_text("aal90, aal116, schaefer100/200/400, power264, dosenbach160, seitzman300, a .node or a CSV (label,x,y,z[,network])");
            if ui.button("Use atlas").clicked() && !self.atlas_field.trim().is_empty() {
                self.commands.push(Cmd::SetAtlas(self.atlas_field.trim().to_string()));
            }
        });
        if let Some(e) = &self.atlas_error {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        summary_card(ui, &self.metrics);
        if self.recomputing() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("recomputing the metrics for the new options…");
            });
        }
        ui.horizontal(|ui| {
            let running = self.sw_job.is_some();
            if ui.add_enabled(!running, egui::Button::new("Compute σ/ω (20 references)")).clicked() {
                self.commands.push(Cmd::SmallWorld(20));
            }
            match &self.small_world {
                Some(Ok(r)) => {
                    ui.label(format!(
                        "σ {:.3}, ω {:.3} (networkx definitions; binary graph, largest component of {} regions, {} references)",
                        r.values.sigma, r.values.omega, r.nodes_used, r.nrand
                    ));
                }
                Some(Err(e)) => {
                    ui.colored_label(ui.visuals().error_fg_color, format!("σ/ω: {e}"));
                }
                None if running => {
                    ui.label("computing σ/ω…");
                }
                None => {}
            }
        });
    }
}

/// One line of graph-level numbers.
fn summary_card(ui: &mut egui::Ui, m: &GraphMetrics) {
    ui.horizontal_wrapped(|ui| {
        let lambda = m.char_path_length.map_or("∞ (disconnected)".to_string(), |l| format!("{l:.4}"));
        for (k, v) in [
            ("nodes", m.n_nodes.to_string()),
            ("density", format!("{:.3}", m.density)),
            ("mean clustering", format!("{:.4}", m.mean_clustering)),
            ("transitivity", format!("{:.4}", m.transitivity)),
            ("path length", lambda),
            ("global efficiency", format!("{:.4}", m.global_efficiency)),
            ("modularity Q", format!("{:.4} ({} modules)", m.modularity, m.n_modules)),
        ] {
            ui.label(egui::RichText::new(format!("{k} {v}")).strong());
            ui.separator();
        }
    });
}

/// Opens the HARK or CARD panel on an agent round's retrieval: HARK is asked the round's exact query
/// (text, regions, knowledge set: the same answer); CARD shows the round's ranked cases.
fn show_round(hark: &mut evidence::HarkPanel, card: &mut evidence::CardPanel, r: &crate::agent::graph::trace::Round) {
    let set = r.data.get("task").and_then(|v| v.as_str()).unwrap_or("general").to_string();
    if r.tool == crate::agent::graph::tools::HARK {
        hark.query = r.checked["query"].as_str().unwrap_or("").to_string();
        hark.regions = r.checked["regions_q"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_u64()).map(|i| i.to_string()).collect::<Vec<_>>().join(","))
            .unwrap_or_default();
        hark.task = set;
        hark.open = true;
    } else {
        let hits: Vec<crate::retrieval::cases::Hit> =
            serde_json::from_value(r.data["hits"].clone()).unwrap_or_default();
        card.agent_round =
            Some((format!("agent round {} (query: {})", r.index, r.checked["query"].as_str().unwrap_or("")), hits));
        card.open = true;
    }
}

impl NetworksRoom {
    /// Every job slot of the room's panels.
    fn job_slots(&self) -> Vec<&dyn JobSlot> {
        let mut slots: Vec<&dyn JobSlot> = vec![
            &self.agent.job,
            &self.agent.batch.job,
            &self.hark.building,
            &self.hark.asking,
            &self.card.job,
            &self.gfm.job,
            &self.cohort.job,
        ];
        if let Some(o) = &self.current {
            slots.push(&o.sw_job);
            slots.push(&o.metrics_job);
        }
        slots
    }
}

impl Room for NetworksRoom {
    fn show(&mut self, ui: &mut egui::Ui, shell: &mut Shell) {
        if !self.visited {
            self.visited = true;
            if self.current.is_none() {
                let last = shell.settings.last_network.clone().filter(|p| p.is_file());
                self.open(last.unwrap_or_else(crate::ui::sample_network));
            }
        }
        self.draw(ui, shell.provider);
        if let Some(p) = self.opened.take() {
            shell.settings.last_network = Some(p.clone());
            shell.commands.push(AppCmd::Remember(p));
        }
    }

    fn status(&self) -> String {
        if let Some(m) = &self.message {
            return m.clone();
        }
        match &self.current {
            Some(o) => format!(
                "{} · {} regions · {} · {}",
                o.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
                o.connectome.n,
                if o.options.binary { "binary metrics" } else { "weighted metrics on W / max W" },
                o.selected_caption()
            ),
            None => "No network open".into(),
        }
    }

    fn jobs(&self) -> Vec<JobStatus> {
        running(&self.job_slots())
    }

    fn cancel(&mut self) {
        cancel_all(&self.job_slots());
    }

    fn settled(&self) -> bool {
        let (h, c) = (&self.hark, &self.card);
        !h.busy()
            && !h.pending()
            && !c.busy()
            && !c.pending()
            && !self.agent.busy()
            && !self.cohort.busy()
            && !self.current.as_ref().is_some_and(OpenNetwork::recomputing)
    }
}
