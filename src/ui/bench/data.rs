//! What the Bench room holds once a collection is loaded: the runs, the report, and the case each instance
//! came from (found beside the result files) for its instruction and ground truths.

use crate::bench::aggregate::{Levels, Report};
use crate::bench::case::Case;
use crate::bench::collection::Collection;
use crate::bench::families::Families;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub struct Loaded {
    pub paths: Vec<PathBuf>,
    pub collection: Collection,
    pub report: Report,
    /// Case by the `source_json` string instances give (None: not found beside the results).
    pub cases: HashMap<String, Option<Case>>,
    /// Every metric type in the collection, sorted (the instance browser's filter choices).
    pub metric_types: Vec<String>,
    pub load_seconds: f64,
}

/// Where a relative `source_json` may live: beside the result file, one or two folders up, the experiment's
/// `subset_root`, the working directory.
fn find_case(source: &str, result_path: &Path, subset_root: Option<&str>) -> Option<Case> {
    let p = Path::new(source);
    let mut candidates = vec![p.to_path_buf()];
    if p.is_relative() {
        let mut dir = result_path.parent();
        for _ in 0..3 {
            let Some(d) = dir else { break };
            candidates.push(d.join(p));
            dir = d.parent();
        }
        if let Some(root) = subset_root {
            candidates.push(Path::new(root).join(p));
        }
    }
    candidates.into_iter().find(|c| c.is_file()).and_then(|c| Case::load(&c).ok())
}

/// The user's model family mapping; a broken one is listed with the collection's problems and the bundled
/// mapping is used.
fn families(c: &mut Collection) -> Families {
    Families::user_or_builtin().unwrap_or_else(|e| {
        c.problems.push(e.to_string());
        Families::builtin()
    })
}

impl Loaded {
    pub fn load(paths: Vec<PathBuf>, levels: Levels) -> Loaded {
        let t0 = std::time::Instant::now();
        let mut collection = Collection::load(&paths);
        let report = Report::build(&collection, levels).with_families(&families(&mut collection));
        let mut cases: HashMap<String, Option<Case>> = HashMap::new();
        for run in &collection.runs {
            let root = run.result.experiment_str("subset_root");
            for i in &run.result.instances {
                if let Some(src) = &i.source_json {
                    if !cases.contains_key(src) {
                        cases.insert(src.clone(), find_case(src, &run.path, root));
                    }
                }
            }
        }
        let metric_types: Vec<String> = collection
            .runs
            .iter()
            .flat_map(|r| &r.result.instances)
            .flat_map(|i| i.metric_details.values().filter_map(|d| d.metric_type.clone()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        Loaded { paths, collection, report, cases, metric_types, load_seconds: t0.elapsed().as_secs_f64() }
    }

    pub fn rebuild_report(&mut self, levels: Levels) {
        self.collection.renumber();
        self.report = Report::build(&self.collection, levels).with_families(&families(&mut self.collection));
    }

    pub fn case_of(&self, run: usize, inst: usize) -> Option<&Case> {
        let src = self.collection.runs[run].result.instances[inst].source_json.as_ref()?;
        self.cases.get(src)?.as_ref()
    }
}
