//! Compare view: two runs of the collection side by side (`bench::aggregate::compare`, as `bench compare`):
//! the overall and per-unit difference, every shared instance with both scores, B − A, target tokens, seconds
//! and failure classes, filters, CSV export, and the two traces of a chosen instance next to each other.

use super::Loaded;
use crate::bench::aggregate::LEVEL_NAMES;
use crate::bench::aggregate::compare::{Change, Comparison, Filter, compare, run_label};

#[derive(Default)]
pub struct State {
    /// Run indices of A and B (defaults: the first two runs).
    pub a: Option<usize>,
    pub b: Option<usize>,
    pub filter: Filter,
    /// Row index (into the comparison's rows) whose two traces are open.
    pub selected: Option<usize>,
    /// A row to open once the comparison exists (`--bench-view compare:A,B:ROW`).
    pub pending_row: Option<usize>,
    /// The comparison of (a, b, levels), rebuilt when any of them changes.
    cache: Option<((usize, usize, u64, u64), Comparison)>,
}

const GREEN: egui::Color32 = egui::Color32::from_rgb(40, 140, 70);
const RED: egui::Color32 = egui::Color32::from_rgb(200, 50, 50);

fn signed(ui: &mut egui::Ui, d: Option<f64>, digits: usize) {
    match d {
        None => {
            ui.weak("excluded");
        }
        Some(d) => {
            let color = if d > 1e-9 {
                GREEN
            } else if d < -1e-9 {
                RED
            } else {
                ui.visuals().text_color()
            };
            ui.colored_label(color, format!("{d:+.digits$}"));
        }
    }
}

impl State {
    /// The comparison of the chosen runs (None with fewer than two runs).
    /// A new collection: the comparison and selection go; the chosen run indices (as `--bench-view` set
    /// them) stay, reset by `pick_defaults` when out of range.
    pub fn loaded(&mut self) {
        self.cache = None;
        self.selected = None;
        self.filter = Filter::default();
    }

    /// Runs A and B default to the first two runs; a choice past the collection's end is reset.
    pub fn pick_defaults(&mut self, n: usize) {
        let a = self.a.filter(|&a| a < n).unwrap_or(0);
        let b = self.b.filter(|&b| b < n).unwrap_or(if a == 0 { 1 } else { 0 });
        (self.a, self.b) = (Some(a), Some(b));
    }

    /// Brings the comparison up to date with the chosen runs and levels (a new one drops the selection);
    /// None with fewer than two runs.
    pub fn comparison(&mut self, data: &Loaded) -> Option<&Comparison> {
        if data.collection.runs.len() < 2 {
            return None;
        }
        self.pick_defaults(data.collection.runs.len());
        let (a, b) = (self.a.unwrap_or(0), self.b.unwrap_or(1));
        let l = data.report.levels;
        let key = (a, b, l.easy_max.to_bits(), l.medium_max.to_bits());
        if self.cache.as_ref().is_none_or(|(k, _)| *k != key) {
            let runs = &data.collection.runs;
            self.cache = Some((key, compare(&runs[a], &runs[b], l)));
            self.selected = self.pending_row.take();
        }
        self.cache.as_ref().map(|(_, c)| c)
    }
}

fn run_picker(ui: &mut egui::Ui, label: &str, data: &Loaded, value: &mut Option<usize>) {
    let runs = &data.collection.runs;
    let l = ui.label(label);
    let shown = value.and_then(|k| runs.get(k)).map(run_label).unwrap_or_default();
    egui::ComboBox::from_id_salt(("compare_run", label))
        .selected_text(shown)
        .width(300.0)
        .show_ui(ui, |ui| {
            for (k, r) in runs.iter().enumerate() {
                ui.selectable_value(value, Some(k), run_label(r));
            }
        })
        .response
        .labelled_by(l.id);
}

fn combo(ui: &mut egui::Ui, what: &str, value: &mut String, options: &[String]) {
    let any = format!("any {what}");
    egui::ComboBox::from_id_salt(("compare_filter", what))
        .selected_text(if value.is_empty() { any.clone() } else { value.clone() })
        .show_ui(ui, |ui| {
            ui.selectable_value(value, String::new(), &any);
            for o in options {
                ui.selectable_value(value, o.clone(), o);
            }
        });
}

fn filters(ui: &mut egui::Ui, c: &Comparison, f: &mut Filter) {
    ui.horizontal_wrapped(|ui| {
        combo(ui, "subset", &mut f.subset, &c.subsets());
        combo(ui, "unit", &mut f.unit, &c.unit_names());
        egui::ComboBox::from_id_salt(("compare_filter", "difficulty"))
            .selected_text(if f.level == 0 { "any difficulty" } else { LEVEL_NAMES[f.level - 1] })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut f.level, 0, "any difficulty");
                for (k, name) in LEVEL_NAMES.iter().enumerate() {
                    ui.selectable_value(&mut f.level, k + 1, *name);
                }
            });
        egui::ComboBox::from_id_salt(("compare_filter", "change"))
            .selected_text(format!("change: {}", f.change.name()))
            .show_ui(ui, |ui| {
                for ch in Change::ALL {
                    ui.selectable_value(&mut f.change, ch, format!("change: {}", ch.name()));
                }
            });
        if ui.button("Clear filters").clicked() {
            *f = Filter::default();
        }
    });
}

fn summary(ui: &mut egui::Ui, c: &Comparison) {
    let count = |ch: Change| c.filtered(&Filter { change: ch, ..Default::default() }).count();
    ui.label(format!(
        "{} shared instances ({} scored by both) · only in A: {} · only in B: {}{}",
        c.rows.len(),
        c.scored,
        c.only_a.len(),
        c.only_b.len(),
        if c.repeated > 0 { format!(" · {} repeated ids (first compared)", c.repeated) } else { String::new() }
    ));
    ui.horizontal(|ui| {
        ui.label(format!(
            "Overall (difficulty-weighted, instances both scored): A {:.2} · B {:.2} · B − A",
            c.overall_a, c.overall_b
        ));
        signed(ui, Some(c.overall_b - c.overall_a), 2);
        ui.label(format!(
            "· better {} · worse {} · same {}",
            count(Change::Better),
            count(Change::Worse),
            count(Change::Same)
        ));
    });
    egui::CollapsingHeader::new("Per unit (mean raw metric score)").default_open(true).show(ui, |ui| {
        egui::Grid::new("compare_units").striped(true).show(ui, |ui| {
            for h in ["unit", "n", "A", "B", "B − A"] {
                ui.strong(h);
            }
            ui.end_row();
            for u in &c.units {
                ui.label(&u.unit);
                ui.label(u.n.to_string());
                ui.label(format!("{:.3}", u.a));
                ui.label(format!("{:.3}", u.b));
                signed(ui, Some(u.diff), 3);
                ui.end_row();
            }
        });
    });
}

fn rows_table(ui: &mut egui::Ui, c: &Comparison, rows: &[usize], selected: &mut Option<usize>, height: f32) {
    let row_h = ui.text_style_height(&egui::TextStyle::Body) + 6.0;
    egui::ScrollArea::both().id_salt("compare_rows").max_height(height).auto_shrink([false, true]).show_rows(
        ui,
        row_h,
        rows.len() + 1,
        |ui, range| {
            egui::Grid::new("compare_rows_grid").striped(true).num_columns(11).start_row(range.start).show(ui, |ui| {
                for k in range {
                    if k == 0 {
                        for h in ["instance", "level", "A", "B", "B − A", "tokens A", "tokens B", "s A", "s B"] {
                            ui.strong(h);
                        }
                        ui.strong("failures A");
                        ui.strong("failures B");
                        ui.end_row();
                        continue;
                    }
                    let ri = rows[k - 1];
                    let r = &c.rows[ri];
                    if ui.selectable_label(*selected == Some(ri), &r.instance_id).clicked() {
                        *selected = Some(ri);
                    }
                    ui.label(LEVEL_NAMES[r.level - 1]);
                    ui.label(format!("{:.1}", r.a.score));
                    ui.label(format!("{:.1}", r.b.score));
                    signed(ui, r.delta(), 1);
                    ui.label(format!("{:.0}", r.a.tokens));
                    ui.label(format!("{:.0}", r.b.tokens));
                    ui.label(format!("{:.1}", r.a.seconds));
                    ui.label(format!("{:.1}", r.b.seconds));
                    ui.label(if r.a.failures.is_empty() { "—".into() } else { r.a.failures.join(", ") });
                    ui.label(if r.b.failures.is_empty() { "—".into() } else { r.b.failures.join(", ") });
                    ui.end_row();
                }
            });
        },
    );
}

pub fn show(ui: &mut egui::Ui, data: &Loaded, st: &mut State, message: &mut Option<String>) {
    if data.collection.runs.len() < 2 {
        ui.label("Open at least two result files to compare runs (models, paradigms or repeats).");
        return;
    }
    st.pick_defaults(data.collection.runs.len());
    let (mut a, mut b) = (st.a, st.b);
    ui.horizontal_wrapped(|ui| {
        run_picker(ui, "Run A", data, &mut a);
        run_picker(ui, "Run B", data, &mut b);
        if ui.button("Swap").clicked() {
            std::mem::swap(&mut a, &mut b);
        }
    });
    (st.a, st.b) = (a, b);
    if a == b {
        ui.weak("A and B are the same run: pick two runs.");
    }
    let mut filter = std::mem::take(&mut st.filter);
    if st.comparison(data).is_none() {
        return;
    }
    // Read after `comparison`, which drops the selection when the runs changed.
    let mut selected = st.selected;
    let Some((_, c)) = &st.cache else { return };
    summary(ui, c);
    ui.separator();
    filters(ui, c, &mut filter);
    let rows: Vec<usize> = (0..c.rows.len()).filter(|&k| filter.matches(&c.rows[k])).collect();
    ui.horizontal(|ui| {
        ui.label(format!("{} of {} shared instances", rows.len(), c.rows.len()));
        if ui.button("Export CSV…").on_hover_text("the rows shown, as bench compare --csv writes them").clicked()
            && let Some(path) = rfd::FileDialog::new().set_file_name("compare.csv").save_file()
        {
            *message = Some(match std::fs::write(&path, c.table(rows.iter().map(|&k| &c.rows[k])).csv()) {
                Ok(()) => format!("wrote {} rows to {}", rows.len(), path.display()),
                Err(e) => format!("{}: cannot write: {e}", path.display()),
            });
        }
    });
    let height = if selected.is_some() { ui.available_height() * 0.35 } else { ui.available_height() };
    rows_table(ui, c, &rows, &mut selected, height);
    if let Some(ri) = selected {
        let r = &c.rows[ri];
        let (ra, rb) = (a.unwrap_or(0), b.unwrap_or(1));
        ui.separator();
        ui.horizontal(|ui| {
            ui.strong(format!("{} — A and B side by side", r.instance_id));
            if ui.button("Close").clicked() {
                selected = None;
            }
        });
        if selected.is_some() {
            ui.columns(2, |cols| {
                for (col, side, run, inst) in [(0, "A", ra, r.a.index), (1, "B", rb, r.b.index)] {
                    let ui = &mut cols[col];
                    ui.push_id(("compare_side", side), |ui| {
                        ui.strong(format!("{side}: {}", run_label(&data.collection.runs[run])));
                        egui::ScrollArea::vertical()
                            .id_salt(("compare_trace", side))
                            .auto_shrink(false)
                            .show(ui, |ui| super::instances::detail(ui, data, run, inst));
                    });
                }
            });
        }
    }
    st.filter = filter;
    st.selected = selected;
}
