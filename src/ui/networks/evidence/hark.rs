//! The HARK panel: query text and regions (editable; "Use hubs" fills the network's top-degree regions), task,
//! text method, IoU threshold and k; a table of every candidate with IoU, similarity and pass, the chosen
//! items in bold; clicking an item highlights its regions on the glass brain.

use crate::network::atlas::Atlas;
use crate::retrieval::knowledge::{Hark, HarkResult, KnowledgeBase, default_dir, parse_regions, resolve};
use crate::retrieval::text::{MiniLm, TextMethod};
use crate::ui::jobs::Job;
use crate::ui::networks::OpenNetwork;
use std::sync::Arc;

pub struct HarkPanel {
    pub open: bool,
    pub query: String,
    pub regions: String,
    pub task: String,
    pub method: TextMethod,
    pub threshold: f64,
    pub k: usize,
    engine: Option<Arc<Hark>>,
    pub(crate) building: Option<Job<Hark>>,
    /// The running query (embedding a new query text takes ~10 ms: off the UI thread).
    pub(crate) asking: Option<Job<Result<HarkResult, String>>>,
    pub result: Option<Result<HarkResult, String>>,
    asked: String,
    pub highlighted: Option<String>,
    no_atlas: bool,
}

impl Default for HarkPanel {
    fn default() -> Self {
        let minilm = MiniLm::default_dir().join("model.safetensors").is_file();
        HarkPanel {
            open: false,
            query: "altered default mode network connectivity".into(),
            regions: String::new(),
            task: "asd".into(),
            method: if minilm { TextMethod::Minilm } else { TextMethod::Bm25 },
            threshold: 0.5,
            k: 5,
            engine: None,
            building: None,
            asking: None,
            result: None,
            asked: String::new(),
            highlighted: None,
            no_atlas: false,
        }
    }
}

impl HarkPanel {
    pub fn busy(&self) -> bool {
        self.building.as_ref().is_some_and(|j| j.is_running()) || self.asking.as_ref().is_some_and(|j| j.is_running())
    }

    /// Open on a network with an atlas but no answer yet (before the first query ran).
    pub fn pending(&self) -> bool {
        self.open && !self.no_atlas && self.result.is_none()
    }

    fn ensure_engine(&mut self) {
        if self.engine.as_ref().is_some_and(|e| e.method == self.method) || self.busy() {
            return;
        }
        let method = self.method;
        self.engine = None;
        self.building = Some(Job::spawn("knowledge index", 1, move |_, _| {
            let kb = KnowledgeBase::load(&default_dir())?;
            let model = match method {
                TextMethod::Bm25 => None,
                _ => Some(MiniLm::shared().map_err(|e| anyhow::anyhow!(e))?),
            };
            Ok(Some(Hark::new(kb, method, model)?))
        }));
    }

    fn poll(&mut self) {
        if let Some(result) = self.building.as_mut().and_then(|j| j.poll()) {
            self.building = None;
            match result {
                Ok(Some(h)) => self.engine = Some(Arc::new(h)),
                Ok(None) => {}
                Err(e) => self.result = Some(Err(format!("{e:#}"))),
            }
            self.asked.clear();
        }
        if let Some(result) = self.asking.as_mut().and_then(|j| j.poll()) {
            self.asking = None;
            match result {
                Ok(Some(r)) => self.result = Some(r),
                Ok(None) => {}
                Err(e) => self.result = Some(Err(format!("{e:#}"))),
            }
        }
    }

    /// Starts the query in the background when an input changed since the last one (one at a time; the
    /// latest inputs are asked as soon as the running query returns).
    fn refresh(&mut self, atlas: &Atlas) {
        let key = format!(
            "{}|{}|{}|{:?}|{}|{}|{}",
            self.query, self.regions, self.task, self.method, self.threshold, self.k, atlas.name
        );
        let Some(engine) = self.engine.clone() else { return };
        if key == self.asked || self.asking.is_some() {
            return;
        }
        self.asked = key;
        let (text, regions, task, threshold, k, atlas) =
            (self.query.clone(), self.regions.clone(), self.task.clone(), self.threshold, self.k, atlas.clone());
        self.asking = Some(Job::spawn("knowledge query", 1, move |_, _| {
            Ok(Some(
                parse_regions(&regions, &atlas)
                    .and_then(|r| engine.query(&text, &r, &atlas, &task, threshold, k))
                    .map_err(|e| format!("{e:#}")),
            ))
        }));
    }

    pub fn show(&mut self, ctx: &egui::Context, o: &mut OpenNetwork) {
        if !self.open {
            return;
        }
        self.poll();
        self.ensure_engine();
        self.no_atlas = o.atlas.is_none();
        let Some(atlas) = o.atlas.clone() else {
            let mut open = self.open;
            egui::Window::new("Knowledge (HARK)").open(&mut open).show(ctx, |ui| {
                ui.label("HARK needs region names: open a network with an atlas (AAL-90, Schaefer-100).");
            });
            self.open = open;
            return;
        };
        self.refresh(&atlas);
        let mut open = self.open;
        egui::Window::new("Knowledge (HARK)").open(&mut open).default_width(720.0).default_height(520.0).show(ctx, |ui| {
            egui::Grid::new("hark inputs").num_columns(2).show(ui, |ui| {
                let l = ui.label("Query");
                ui.add(egui::TextEdit::singleline(&mut self.query).desired_width(520.0)).labelled_by(l.id);
                ui.end_row();
                let l = ui.label("Regions");
                ui.horizontal(|ui| {
                    ui.add(egui::TextEdit::singleline(&mut self.regions).desired_width(420.0).hint_text("labels, indices or Yeo-7 networks"))
                        .labelled_by(l.id);
                    if ui.button("Use hubs").on_hover_text("The five highest-degree regions of this network").clicked() {
                        let mut idx: Vec<usize> = (0..o.connectome.n).collect();
                        idx.sort_by(|&a, &b| o.metrics.nodes[b].degree.total_cmp(&o.metrics.nodes[a].degree).then(a.cmp(&b)));
                        self.regions = idx.iter().take(5).map(|&i| o.connectome.labels[i].clone()).collect::<Vec<_>>().join(",");
                    }
                });
                ui.end_row();
                ui.label("Task");
                ui.horizontal(|ui| {
                    egui::ComboBox::from_id_salt("hark task").selected_text(self.task.clone()).show_ui(ui, |ui| {
                        for t in ["asd", "adhd", "mdd", "sex", "eeg", "sleep"] {
                            ui.selectable_value(&mut self.task, t.to_string(), t);
                        }
                    });
                    ui.label("Text");
                    egui::ComboBox::from_id_salt("hark method").selected_text(self.method.as_str()).show_ui(ui, |ui| {
                        for m in [TextMethod::Minilm, TextMethod::Bm25, TextMethod::Hybrid] {
                            ui.selectable_value(&mut self.method, m, m.as_str());
                        }
                    });
                });
                ui.end_row();
                ui.label("Filter");
                ui.horizontal(|ui| {
                    ui.add(egui::Slider::new(&mut self.threshold, 0.0..=1.0).text("IoU threshold"));
                    ui.add(egui::Slider::new(&mut self.k, 1..=10).text("k"));
                });
                ui.end_row();
            });
            ui.separator();
            if self.busy() {
                ui.horizontal(|ui| {
                    ui.spinner();
                    ui.label("indexing the knowledge base…");
                });
            }
            match &self.result {
                Some(Err(e)) => {
                    ui.colored_label(ui.visuals().error_fg_color, e);
                }
                Some(Ok(r)) => {
                    let passed = r.candidates.iter().filter(|c| c.task != "general" && c.passed).count();
                    let total = r.candidates.iter().filter(|c| c.task != "general").count();
                    ui.label(format!("{passed} of {total} {} items pass the region filter; bold = chosen (top {} task + top {} general)", r.task, r.k, r.k));
                    egui::ScrollArea::vertical().max_height(330.0).show(ui, |ui| {
                        egui::Grid::new("hark table").striped(true).num_columns(5).show(ui, |ui| {
                            for h in ["item", "IoU", "similarity", "pass", "fact (source)"] {
                                ui.strong(h);
                            }
                            ui.end_row();
                            for c in &r.candidates {
                                let id = if c.chosen { egui::RichText::new(&c.id).strong() } else { egui::RichText::new(&c.id) };
                                if ui.selectable_label(self.highlighted.as_deref() == Some(c.id.as_str()), id).clicked() {
                                    self.highlighted = Some(c.id.clone());
                                    o.highlight = engine_item(&self.engine, &c.id).and_then(|i| resolve(&i, &atlas)).map(|s| s.into_iter().collect()).unwrap_or_default();
                                }
                                ui.label(c.iou.map_or("—".to_string(), |v| format!("{v:.2}")));
                                ui.label(format!("{:.3}", c.similarity));
                                ui.label(if c.passed { "yes" } else { "no" });
                                ui.label(&c.text).on_hover_text(&c.source);
                                ui.end_row();
                            }
                        });
                    });
                }
                None => {}
            }
        });
        self.open = open;
        if self.busy() {
            ctx.request_repaint_after(std::time::Duration::from_millis(50));
        }
    }
}

fn engine_item(engine: &Option<Arc<Hark>>, id: &str) -> Option<crate::retrieval::knowledge::Item> {
    engine.as_ref()?.kb.items.iter().find(|i| i.id == id).cloned()
}
