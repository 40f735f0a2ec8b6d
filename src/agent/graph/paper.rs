//! The BrainAgent paper's evaluation as tables and figures, from the metrics of run files: the metrics table
//! (its Tables 2–3: accuracy, recall and precision by majority vote and Recall@k / Precision@k by its pass
//! criterion, both labelled), Fig 3 (precision of every method × backbone, ranked), Fig 4 (the ablations of
//! BrainAgent per backbone), each run's reliability diagram (AUROC, Brier, ECE in its caption) and the interpretability radar with the backbone in each legend entry. One home for
//! `agent report --latex/--figures` and the Networks room's batch view.

use super::eval::{Metrics, radar_series, radar_svg};
use crate::util::chart::svg;
use crate::util::table::{Table, write_latex_document};
use std::path::{Path, PathBuf};

/// The metrics table: header and rows (numbers as plain decimals; empty when undefined).
pub fn metrics_table(all: &[Metrics]) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let header = vec![
        "method",
        "backbone",
        "task",
        "samples",
        "runs",
        "accuracy",
        "recall (majority)",
        "precision (majority)",
        "recall@k (pass)",
        "precision@k (pass)",
        "pass@1",
        "pass@k",
        "AUROC",
        "Brier",
        "ECE",
        "P from",
        "tokens per sample",
        "seconds per sample",
    ];
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.4}"));
    let rows = all
        .iter()
        .map(|m| {
            vec![
                m.method.clone(),
                m.model.clone(),
                m.task.clone(),
                m.samples.to_string(),
                m.runs.to_string(),
                format!("{:.4}", m.accuracy),
                opt(m.recall),
                opt(m.precision),
                opt(m.recall_at_k),
                opt(m.precision_at_k),
                format!("{:.4}", m.pass_at_1),
                format!("{:.4}", m.pass_at_k),
                opt(m.probability.as_ref().and_then(|p| p.auroc)),
                opt(m.probability.as_ref().and_then(|p| p.brier)),
                opt(m.probability.as_ref().and_then(|p| p.ece)),
                m.probability.as_ref().map_or(String::new(), |p| super::scores::short_source(&p.source).into()),
                format!("{:.1}", m.prompt_tokens_per_sample + m.completion_tokens_per_sample),
                format!("{:.2}", m.seconds_per_sample),
            ]
        })
        .collect();
    (header, rows)
}

/// The metrics table as `metrics.csv`, `metrics.tex` and `tables.tex` (which sets it) in `dir`; returns the files.
pub fn write_tables(all: &[Metrics], dir: &Path) -> Result<Vec<PathBuf>, String> {
    let (header, rows) = metrics_table(all);
    let t = Table::new(&header, rows);
    let fail = |e: std::io::Error| format!("{}: cannot write the tables: {e}", dir.display());
    let mut files = write_latex_document(&[("metrics.csv", t.clone())], None, dir).map_err(fail)?;
    let csv = dir.join("metrics.csv");
    std::fs::write(&csv, t.csv()).map_err(fail)?;
    files.push(csv);
    Ok(files)
}

/// The tables under `dir/tables` and the figures under `dir/figures`: what the room's "Paper output…" writes.
pub fn write_paper_output(all: &[Metrics], dir: &Path) -> Result<String, String> {
    let tables = write_tables(all, &dir.join("tables"))?;
    let figures = crate::util::chart::png::write_svg_and_png(&figures(all), &dir.join("figures"))?;
    Ok(format!("wrote {} table files and {} figure files under {}", tables.len(), figures.len(), dir.display()))
}

/// Fig 3: "method (backbone)" and its precision, best first — Precision@k where the runs give it (k > 1),
/// else the majority-vote precision; runs with neither are left out.
pub fn precision_ranking(all: &[Metrics]) -> Vec<(String, f64)> {
    let mut v: Vec<(String, f64)> = all
        .iter()
        .filter_map(|m| Some((format!("{} ({})", m.method, m.model), m.precision_at_k.or(m.precision)?)))
        .collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// Fig 4: backbones (groups), BrainAgent and its ablations (series: the full method first, then the ablations
/// by name) and their accuracy, `values[series][group]`. Empty when no run is an ablation.
pub fn ablation_bars(all: &[Metrics]) -> (Vec<String>, Vec<String>, Vec<Vec<Option<f64>>>) {
    let ours: Vec<&Metrics> = all.iter().filter(|m| m.method.starts_with("brainagent")).collect();
    if !ours.iter().any(|m| m.method != "brainagent") {
        return (Vec::new(), Vec::new(), Vec::new());
    }
    let mut groups: Vec<String> = ours.iter().map(|m| m.model.clone()).collect();
    groups.sort();
    groups.dedup();
    let mut series: Vec<String> = ours.iter().map(|m| m.method.clone()).collect();
    series.sort_by_key(|s| (s != "brainagent", s.clone()));
    series.dedup();
    let values = series
        .iter()
        .map(|s| {
            groups.iter().map(|g| ours.iter().find(|m| &m.method == s && &m.model == g).map(|m| m.accuracy)).collect()
        })
        .collect();
    (groups, series, values)
}

/// Every figure as `(file stem, SVG)`, captioned: the precision ranking, the ablations (when there are any),
/// the interpretability radar (when a run has scores), each run's confusion matrix and, for runs on a cohort, accuracy per site.
pub fn figures(all: &[Metrics]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let ranking = precision_ranking(all);
    if !ranking.is_empty() {
        let (names, vals): (Vec<String>, Vec<f64>) = ranking.into_iter().unzip();
        let chart = svg::bars(&names, &["precision".into()], &[vals.into_iter().map(Some).collect()], 1.0, 3);
        let what = "Precision of each method and backbone, ranked (Precision@k by the pass criterion where k > 1)";
        out.push(("precision_ranking".to_string(), svg::captioned(&chart, what)));
    }
    let (groups, series, values) = ablation_bars(all);
    if !groups.is_empty() {
        let chart = svg::bars(&groups, &series, &values, 1.0, 3);
        let what = if series.iter().any(|s| super::method::is_harness_variant(s)) {
            "Accuracy of BrainAgent, its ablations and its harness variants (card-first, template-query: not the \
             paper's protocol) per backbone"
        } else {
            "Accuracy of BrainAgent and its ablations per backbone"
        };
        out.push(("ablations".to_string(), svg::captioned(&chart, what)));
    }
    // Supervised baselines have no interpretability scores: no radar when only they ran.
    if !radar_series(all).is_empty() {
        out.push((
            "interpretability_radar".to_string(),
            svg::captioned(&radar_svg(all), "Interpretability (rule-based checks, 0–1) per method (backbone)"),
        ));
    }
    for (i, m) in all.iter().enumerate().filter(|(_, m)| !m.labels.is_empty()) {
        let mut cols = m.labels.clone();
        cols.push("failed".into());
        let values: Vec<Option<f64>> = m.confusion.iter().flatten().map(|&v| Some(v as f64)).collect();
        let chart = svg::heatmap(&m.labels, &cols, &values, false, 0);
        let what =
            format!("Confusion of {} ({}): rows truth, columns predicted, {} samples", m.method, m.model, m.samples);
        out.push((format!("confusion_{}_{}", i + 1, file_safe(&m.method)), svg::captioned(&chart, &what)));
    }
    for (i, m) in all.iter().enumerate() {
        let Some(p) = &m.probability else { continue };
        let title = format!("Reliability of {} ({})", m.method, m.model);
        let chart = svg::scene(&super::scores::reliability_scene(p, &title));
        out.push((format!("reliability_{}_{}", i + 1, file_safe(&m.method)), svg::captioned(&chart, &p.line())));
    }
    let (sites, series, values) = site_bars(all);
    if !sites.is_empty() {
        let chart = svg::bars(&sites, &series, &values, 1.0, 2);
        out.push((
            "accuracy_per_site".to_string(),
            svg::captioned(&chart, "Accuracy per acquisition site (test subjects of each site) per method (backbone)"),
        ));
    }
    out
}

/// Per-site accuracy bars of the runs on a cohort: the sites (in first-seen order), one series per run
/// (`method (backbone)`), `values[series][site]`. Runs of more than one task (two cohorts: ABIDE's NYU is not
/// ADHD-200's) name each site and each series with its task, so no row mixes cohorts.
pub fn site_bars<'a>(all: impl IntoIterator<Item = &'a Metrics>) -> (Vec<String>, Vec<String>, Vec<Vec<Option<f64>>>) {
    let on_sites: Vec<&Metrics> = all.into_iter().filter(|m| !m.sites.is_empty()).collect();
    let tasks = on_sites.iter().map(|m| &m.task).collect::<std::collections::BTreeSet<_>>().len();
    // Each run's (row name, accuracy), named once.
    let rows: Vec<Vec<(String, f64)>> = on_sites
        .iter()
        .map(|m| {
            let row = |site: &str| if tasks > 1 { format!("{} · {site}", m.task) } else { site.to_string() };
            m.sites.iter().map(|s| (row(&s.site), s.accuracy)).collect()
        })
        .collect();
    let mut sites: Vec<String> = Vec::new();
    for (name, _) in rows.iter().flatten() {
        if !sites.contains(name) {
            sites.push(name.clone());
        }
    }
    let run = |m: &Metrics| format!("{} ({})", m.method, m.model);
    let series = on_sites.iter().map(|m| if tasks > 1 { format!("{}, {}", run(m), m.task) } else { run(m) }).collect();
    let values = rows
        .iter()
        .map(|r| sites.iter().map(|site| r.iter().find(|(name, _)| name == site).map(|&(_, acc)| acc)).collect())
        .collect();
    (sites, series, values)
}

fn file_safe(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(method: &str, model: &str, accuracy: f64, precision: Option<f64>, at_k: Option<f64>) -> Metrics {
        Metrics {
            method: method.into(),
            model: model.into(),
            accuracy,
            precision,
            precision_at_k: at_k,
            interpretability: Some(Default::default()),
            ..Default::default()
        }
    }

    #[test]
    fn ranking_prefers_precision_at_k_and_ablations_group_by_backbone() {
        let all = [
            m("direct", "qwen", 0.5, Some(0.4), None),
            m("brainagent", "qwen", 0.8, Some(0.7), Some(0.9)),
            m("brainagent-no-hark", "qwen", 0.6, Some(0.6), None),
            m("brainagent", "llama", 0.7, None, None),
            m("brainagent-no-card", "llama", 0.65, Some(0.5), None),
        ];
        let r = precision_ranking(&all);
        assert_eq!(r[0], ("brainagent (qwen)".to_string(), 0.9));
        assert_eq!(r.iter().map(|x| x.1).collect::<Vec<_>>(), [0.9, 0.6, 0.5, 0.4]);
        let (groups, series, values) = ablation_bars(&all);
        assert_eq!(groups, ["llama", "qwen"]);
        assert_eq!(series, ["brainagent", "brainagent-no-card", "brainagent-no-hark"]);
        assert_eq!(values[0], [Some(0.7), Some(0.8)]);
        assert_eq!(values[1], [Some(0.65), None]);
        let stems: Vec<String> = figures(&all).into_iter().map(|(s, _)| s).collect();
        assert_eq!(stems, ["precision_ranking", "ablations", "interpretability_radar"]);
        assert!(ablation_bars(&all[..2]).0.is_empty(), "no ablation run: no Fig 4");
        assert!(figures(&all)[1].1.contains("Accuracy of BrainAgent and its ablations per backbone"));
        let with_variant =
            [m("brainagent", "qwen", 0.8, None, None), m("brainagent-card-first", "qwen", 0.5, None, None)];
        assert!(
            figures(&with_variant)[0].1.contains("its harness variants (card-first"),
            "a variant is not an ablation"
        );
        // The room's "Paper output…": 3 table files under tables/, 3 figures × (SVG, PNG) under figures/.
        let dir = tempfile::tempdir().unwrap();
        let msg = write_paper_output(&all, dir.path()).unwrap();
        assert!(msg.starts_with("wrote 3 table files and 6 figure files"), "{msg}");
        let csv = std::fs::read_to_string(dir.path().join("tables/metrics.csv")).unwrap();
        assert_eq!(csv.lines().count(), 6);
        assert!(dir.path().join("figures/ablations.png").is_file());
        let blocked = dir.path().join("file");
        std::fs::write(&blocked, "").unwrap();
        assert!(write_paper_output(&all, &blocked).unwrap_err().contains("cannot write the tables"));
    }

    #[test]
    fn runs_on_a_cohort_get_a_confusion_matrix_each_and_accuracy_per_site() {
        use crate::agent::graph::sites::SiteAccuracy;
        let site = |s: &str, n: usize, c: usize| SiteAccuracy {
            site: s.into(),
            samples: n,
            correct: c,
            accuracy: c as f64 / n as f64,
        };
        let with = |method: &str, sites: Vec<SiteAccuracy>| Metrics {
            labels: vec!["ASD".into(), "HC".into()],
            confusion: vec![vec![3, 1, 0], vec![2, 4, 0]],
            sites,
            // Supervised baselines: no rationale, no interpretability scores, no radar.
            interpretability: None,
            ..m(method, "none", 0.7, None, None)
        };
        let all =
            [with("logistic", vec![site("NYU", 4, 3), site("UCLA", 6, 4)]), with("majority", vec![site("UCLA", 6, 6)])];
        let (sites, series, values) = site_bars(&all);
        assert_eq!(
            (sites, series),
            (vec!["NYU".to_string(), "UCLA".into()], vec!["logistic (none)".to_string(), "majority (none)".into()])
        );
        assert_eq!(values, [vec![Some(0.75), Some(4.0 / 6.0)], vec![None, Some(1.0)]]);
        let figs = figures(&all);
        let stems: Vec<&str> = figs.iter().map(|(s, _)| s.as_str()).collect();
        assert_eq!(stems, ["confusion_1_logistic", "confusion_2_majority", "accuracy_per_site"]);
        let confusion = &figs[0].1;
        assert!(
            confusion.contains(">failed<") && confusion.contains(">4<") && confusion.contains("Confusion of logistic"),
            "{confusion}"
        );
    }

    #[test]
    fn runs_of_two_cohorts_keep_their_sites_apart() {
        use crate::agent::graph::sites::SiteAccuracy;
        // ABIDE and ADHD-200 both have a site called NYU: loaded together, each run's NYU is its own row.
        let run = |task: &str, sites: &[(&str, usize)]| Metrics {
            task: task.into(),
            sites: sites
                .iter()
                .map(|&(s, c)| SiteAccuracy { site: s.into(), samples: 4, correct: c, accuracy: c as f64 / 4.0 })
                .collect(),
            ..m("logistic", "none", 0.5, None, None)
        };
        let all = [run("asd", &[("NYU", 3), ("UCLA", 2)]), run("adhd", &[("NYU", 1)])];
        let (sites, series, values) = site_bars(&all);
        assert_eq!(sites, ["asd · NYU", "asd · UCLA", "adhd · NYU"]);
        assert_eq!(series, ["logistic (none), asd", "logistic (none), adhd"]);
        assert_eq!(values, [vec![Some(0.75), Some(0.5), None], vec![None, None, Some(0.25)]]);
    }
}
