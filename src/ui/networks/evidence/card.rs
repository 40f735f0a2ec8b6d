//! The CARD panel: a case memory, the β slider (re-ranks live: the two partial similarities are computed once
//! per network), k, the group to leave out; a table of every case with graph-sim, text-sim, mixed score and
//! label; a case's report on selection; "Open this case" draws the case's matrix beside the current one and
//! their difference.

use crate::network::connectome::Connectome;
use crate::retrieval::cases::{CaseMemory, GraphEncoder, Hit, load_graph, template_report};
use crate::retrieval::text::MiniLm;
use crate::ui::jobs::Job;
use crate::ui::networks::OpenNetwork;
use crate::ui::widgets::heatmap::diverging;
use egui::{Color32, Rect, Sense, vec2};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The current network against a memory: its embedding, text similarities and report.
pub(crate) struct Query {
    generation: u64,
    /// The memory path as typed (a different path reloads).
    source: PathBuf,
    memory: Arc<CaseMemory>,
    encoder: Arc<GraphEncoder>,
    memory_dir: PathBuf,
    graph: Vec<f32>,
    text: Vec<f32>,
    report: String,
}

pub struct CardPanel {
    pub open: bool,
    pub memory_path: String,
    pub beta: f32,
    pub k: usize,
    pub exclude_group: String,
    query: Option<Query>,
    pub(crate) job: Option<Job<Query>>,
    pub hits: Vec<Hit>,
    pub error: Option<String>,
    pub selected: Option<String>,
    pub opened: Option<(String, Connectome)>,
    /// Inputs of the current ranking (β, k, group, network generation): re-ranked only when they change.
    ranked_for: String,
    /// An agent round's retrieval shown above the panel's own ranking (caption, ranked cases).
    pub agent_round: Option<(String, Vec<Hit>)>,
}

pub fn default_memory() -> PathBuf {
    crate::util::paths::bundled("assets/cases/hcp_fingerprint")
}

impl Default for CardPanel {
    fn default() -> Self {
        CardPanel {
            open: false,
            memory_path: default_memory().display().to_string(),
            beta: 0.5,
            k: 3,
            exclude_group: String::new(),
            query: None,
            job: None,
            hits: Vec::new(),
            error: None,
            selected: None,
            opened: None,
            ranked_for: String::new(),
            agent_round: None,
        }
    }
}

impl CardPanel {
    pub fn busy(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.is_running())
    }

    /// Open, but nothing computed yet (the first frame before the job starts).
    pub fn pending(&self) -> bool {
        self.open && self.query.is_none() && self.error.is_none()
    }

    /// Embeds the current network against the memory in the background (once per network and memory).
    fn start(&mut self, o: &OpenNetwork) {
        let (c, atlas, generation) = (o.connectome.clone(), o.atlas.clone(), o.generation);
        let dir = PathBuf::from(self.memory_path.trim());
        // A new network against the same memory: the memory and its encoder are already loaded.
        let loaded = self.query.as_ref().filter(|q| q.source == dir).map(|q| (q.memory.clone(), q.encoder.clone()));
        self.error = None;
        self.job = Some(Job::spawn("case retrieval", 1, move |_, _| {
            let memory_dir = CaseMemory::file(&dir).parent().map(Path::to_path_buf).unwrap_or_default();
            let (memory, encoder) = match loaded {
                Some(pair) => pair,
                None => {
                    let memory = Arc::new(CaseMemory::load(&dir)?);
                    let encoder = Arc::new(GraphEncoder::of_memory(&memory, &memory_dir)?);
                    (memory, encoder)
                }
            };
            let graph = encoder.embed(&c, atlas.as_ref())?;
            let (_, report) = template_report(&c, atlas.as_ref(), None);
            let model = MiniLm::shared().ok();
            let text = memory.text_scores(&report, model.as_deref())?;
            Ok(Some(Query { generation, source: dir, memory, encoder, memory_dir, graph, text, report }))
        }));
    }

    fn rerank(&mut self) {
        let Some(q) = &self.query else { return };
        let inputs = format!("{}|{}|{}|{}", self.beta, self.k, self.exclude_group.trim(), q.generation);
        if inputs == self.ranked_for {
            return;
        }
        self.ranked_for = inputs;
        let group = Some(self.exclude_group.trim()).filter(|g| !g.is_empty());
        match q.memory.rank(&q.graph, &q.text, self.beta, self.k, group) {
            Ok(h) => self.hits = h,
            Err(e) => {
                self.hits.clear();
                self.error = Some(format!("{e:#}"));
            }
        }
    }

    pub fn show(&mut self, ctx: &egui::Context, o: &OpenNetwork) {
        if !self.open {
            return;
        }
        if let Some(result) = self.job.as_mut().and_then(|j| j.poll()) {
            self.job = None;
            match result {
                Ok(Some(q)) => {
                    self.query = Some(q);
                    self.ranked_for.clear();
                }
                Ok(None) => {}
                Err(e) => self.error = Some(format!("{e:#}")),
            }
        }
        let stale = self.query.as_ref().is_none_or(|q| q.generation != o.generation);
        if stale && !self.busy() && self.error.is_none() {
            self.start(o);
        }
        self.rerank();
        let mut open = self.open;
        let mut reload = false;
        egui::Window::new("Similar cases (CARD)")
            .open(&mut open)
            .default_pos([640.0, 60.0])
            .default_width(720.0)
            .default_height(560.0)
            .show(ctx, |ui| {
                if let Some((caption, hits)) = &self.agent_round {
                    let mut close = false;
                    ui.horizontal(|ui| {
                        ui.strong(format!("Retrieval of {caption}"));
                        close = ui.small_button("hide").clicked();
                    });
                    round_table(ui, hits);
                    if close {
                        self.agent_round = None;
                    }
                    ui.separator();
                }
                ui.horizontal(|ui| {
                    let l = ui.label("Memory");
                    ui.add(egui::TextEdit::singleline(&mut self.memory_path).desired_width(420.0)).labelled_by(l.id);
                    reload = ui.button("Load").clicked();
                });
                ui.horizontal(|ui| {
                    ui.add(egui::Slider::new(&mut self.beta, 0.0..=1.0).text("β (graph weight)"));
                    ui.add(egui::Slider::new(&mut self.k, 1..=10).text("k"));
                    let l = ui.label("Leave out group");
                    ui.add(egui::TextEdit::singleline(&mut self.exclude_group).desired_width(140.0)).labelled_by(l.id);
                });
                if self.busy() {
                    ui.horizontal(|ui| {
                        ui.spinner();
                        ui.label("embedding this network against the memory…");
                    });
                }
                if let Some(e) = &self.error {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                let Some(q) = &self.query else { return };
                ui.label(format!(
                    "{} cases (task {}, encoder {}, text {}); score = β·graph + (1 − β)·text; bold = top {}",
                    q.memory.cases.len(),
                    q.memory.task,
                    q.memory.encoder,
                    q.memory.text_model,
                    self.k
                ));
                hits_table(ui, &self.hits, &mut self.selected);
                let Some(case) = self.selected.as_ref().and_then(|id| q.memory.cases.iter().find(|c| &c.id == id))
                else {
                    ui.weak(format!("This network's report (template-written): {}", q.report));
                    return;
                };
                ui.separator();
                ui.label(format!("{} — {} (report {})", case.id, case.label, case.written_by));
                for key in ["region_level", "subgraph_level", "graph_level", "conclusion"] {
                    if let Some(t) = case.report[key].as_str() {
                        ui.label(t);
                    }
                }
                if ui.button("Open this case").clicked() {
                    let path = q.memory_dir.join(&case.graph);
                    match load_graph(&path, o.atlas.as_ref()) {
                        Ok(c) if c.n == o.connectome.n => self.opened = Some((case.id.clone(), c)),
                        Ok(c) => {
                            self.error = Some(format!(
                                "{}: {} regions, the open network has {}",
                                path.display(),
                                c.n,
                                o.connectome.n
                            ))
                        }
                        Err(e) => self.error = Some(format!("{e:#}")),
                    }
                }
                if let Some((id, c)) = &self.opened {
                    ui.horizontal(|ui| {
                        matrix(ui, &o.connectome.w, o.connectome.n, "this network");
                        matrix(ui, &c.w, c.n, id);
                        let diff: Vec<f64> = o.connectome.w.iter().zip(&c.w).map(|(a, b)| a - b).collect();
                        matrix(ui, &diff, c.n, "difference (this − case)");
                    });
                }
            });
        if reload {
            self.query = None;
            self.error = None;
            self.opened = None;
            self.start(o);
        }
        self.open = open;
        if self.busy() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
    }
}

/// The cases an agent round retrieved (the first 10), the chosen ones marked.
fn round_table(ui: &mut egui::Ui, hits: &[Hit]) {
    egui::Grid::new("card_agent_round").striped(true).show(ui, |ui| {
        for h in ["", "case", "label", "graph", "text", "score"] {
            ui.strong(h);
        }
        ui.end_row();
        for h in hits.iter().take(10) {
            ui.label(if h.chosen { "chosen" } else { "" });
            ui.label(&h.case);
            ui.label(&h.label);
            ui.label(format!("{:.4}", h.graph_sim));
            ui.label(format!("{:.4}", h.text_sim));
            ui.label(format!("{:.4}", h.score));
            ui.end_row();
        }
    });
}

/// The memory's cases ranked for the open network, the top k in bold; a click selects one.
fn hits_table(ui: &mut egui::Ui, hits: &[Hit], selected: &mut Option<String>) {
    egui::ScrollArea::vertical().max_height(220.0).show(ui, |ui| {
        egui::Grid::new("card table").striped(true).num_columns(6).show(ui, |ui| {
            for h in ["case", "label", "graph-sim", "text-sim", "score", "group"] {
                ui.strong(h);
            }
            ui.end_row();
            for h in hits {
                let name = if h.chosen { egui::RichText::new(&h.case).strong() } else { egui::RichText::new(&h.case) };
                if ui.selectable_label(selected.as_deref() == Some(h.case.as_str()), name).clicked() {
                    *selected = Some(h.case.clone());
                }
                ui.label(&h.label);
                ui.label(format!("{:.4}", h.graph_sim));
                ui.label(format!("{:.4}", h.text_sim));
                ui.label(format!("{:.4}", h.score));
                ui.label(&h.group);
                ui.end_row();
            }
        });
    });
}

/// A small n × n matrix in the diverging colour scale (saturating at the largest |value|).
fn matrix(ui: &mut egui::Ui, w: &[f64], n: usize, title: &str) {
    ui.vertical(|ui| {
        ui.label(title);
        let (rect, _) = ui.allocate_exact_size(vec2(200.0, 200.0), Sense::hover());
        let span = w.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-12);
        let cell = 200.0 / n.max(1) as f32;
        let p = ui.painter_at(rect);
        p.rect_filled(rect, 0.0, Color32::WHITE);
        for i in 0..n {
            for j in 0..n {
                let v = w[i * n + j];
                if v != 0.0 {
                    let min = rect.min + vec2(j as f32 * cell, i as f32 * cell);
                    p.rect_filled(Rect::from_min_size(min, vec2(cell, cell)), 0.0, diverging(v, span));
                }
            }
        }
    });
}
