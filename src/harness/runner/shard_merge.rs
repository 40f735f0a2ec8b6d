//! Scale-out: shard result files merged back into one (checked to cover the suite exactly once, summary
//! recomputed). The Slurm scripts that run the shards and then the merge are in `harness::slurm`.

use super::{ShardOrder, shard_of};
use crate::bench::case::load_cases;
use crate::bench::results::{Instance, ResultFile, summarize};
use crate::harness::error::{HarnessError, Result};
use crate::util::error::Context;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// A shard file's index, shard count, suite size and order.
fn shard_info(f: &ResultFile, path: &Path) -> Result<(usize, usize, usize, ShardOrder)> {
    let s =
        f.experiment.get("shard").with_context(|| format!("{}: not a shard (no experiment.shard)", path.display()))?;
    let get = |k: &str| s.get(k).and_then(Value::as_u64).map(|v| v as usize);
    match (get("index"), get("count"), get("suite_instances")) {
        (Some(i), Some(n), Some(t)) => Ok((i, n, t, ShardOrder::of_shard(Some(s)))),
        _ => {
            return Err(HarnessError::from(format!(
                "{}: experiment.shard needs index, count and suite_instances",
                path.display()
            )));
        }
    }
}

/// Merges shard files; `cases` (the suite) gives the order and the exact instance set to check against.
pub fn merge(files: &[PathBuf], cases: Option<&Path>) -> Result<ResultFile> {
    if files.is_empty() {
        return Err(HarnessError::from(format!("no shard files")));
    }
    let mut loaded = Vec::new();
    for p in files {
        let f = ResultFile::load(p)?;
        let info = shard_info(&f, p)?;
        loaded.push((p.clone(), f, info));
    }
    let (_, first, (_, n, total, order)) = &loaded[0];
    let (n, total, order) = (*n, *total, *order);
    let same = |k: &str| first.experiment.get(k).cloned();
    // The suite, when it can be read: the case order and the exact instance set to check against.
    let suite =
        cases.map(Path::to_path_buf).or_else(|| same("subset_root").and_then(|v| v.as_str().map(PathBuf::from)));
    let suite_set = match suite.as_ref().filter(|r| r.exists()) {
        Some(root) => {
            let mut set = load_cases(root)?.cases;
            if let Some(l) = same("limit").and_then(|v| v.as_u64()) {
                set.truncate(l as usize);
            }
            Some((root.clone(), set))
        }
        None => None,
    };
    // Each instance's shard: a hashed one's from its id; a dealt one's from its place in the suite (unchecked
    // when the suite cannot be read).
    let dealt: HashMap<String, usize> = match (&suite_set, order) {
        (Some((_, set)), ShardOrder::Dealt) => {
            let ids: Vec<String> = set.iter().map(|c| c.instance_id()).collect();
            let of = order.assign(&ids, n);
            ids.into_iter().zip(of).collect()
        }
        _ => HashMap::new(),
    };
    let owner = |id: &str| match order {
        ShardOrder::Hash => Some(shard_of(id, n)),
        ShardOrder::Dealt => dealt.get(id).copied(),
    };
    let mut seen_index = BTreeSet::new();
    let mut instances: Vec<Instance> = Vec::new();
    let mut ids = HashMap::new();
    for (p, f, (i, count, t, its_order)) in &loaded {
        if *count != n || *t != total {
            return Err(HarnessError::from(format!(
                "{}: shard {i}/{count} of {t} instances does not belong with {n} shards of {total}",
                p.display()
            )));
        }
        if *its_order != order {
            return Err(HarnessError::from(format!(
                "{}: its instances were assigned by {}, {}'s by {}",
                p.display(),
                its_order.name(),
                loaded[0].0.display(),
                order.name()
            )));
        }
        for k in ["subset_root", "evaluation_mode", "limit"] {
            if f.experiment.get(k).cloned() != same(k) {
                return Err(HarnessError::from(format!(
                    "{}: experiment.{k} differs from {}",
                    p.display(),
                    loaded[0].0.display()
                )));
            }
        }
        if !seen_index.insert(*i) {
            return Err(HarnessError::from(format!("{}: shard {i}/{n} given twice", p.display())));
        }
        for inst in &f.instances {
            if let Some(o) = owner(&inst.instance_id)
                && o != *i
            {
                return Err(HarnessError::from(format!(
                    "{}: instance {} belongs to shard {o}, not {i}",
                    p.display(),
                    inst.instance_id
                )));
            }
            if let Some(other) = ids.insert(inst.instance_id.clone(), p.clone()) {
                return Err(HarnessError::from(format!(
                    "instance {} is in {} and {}",
                    inst.instance_id,
                    other.display(),
                    p.display()
                )));
            }
            instances.push(inst.clone());
        }
    }
    let missing: Vec<usize> = (1..=n).filter(|i| !seen_index.contains(i)).collect();
    if !missing.is_empty() {
        return Err(HarnessError::from(format!("shard(s) {missing:?} of {n} missing")));
    }
    // Order and completeness against the suite when it can be read.
    if let Some((root, set)) = suite_set {
        let order: HashMap<String, usize> = set.iter().enumerate().map(|(k, c)| (c.instance_id(), k)).collect();
        if let Some(extra) = instances.iter().find(|i| !order.contains_key(&i.instance_id)) {
            return Err(HarnessError::from(format!(
                "instance {} is not a case of {}",
                extra.instance_id,
                root.display()
            )));
        }
        let absent: Vec<&String> = order.keys().filter(|id| !ids.contains_key(*id)).collect();
        if !absent.is_empty() {
            return Err(HarnessError::from(format!(
                "{} instance(s) of {} are in no shard (e.g. {}): rerun those shards with --resume",
                absent.len(),
                root.display(),
                absent[0]
            )));
        }
        instances.sort_by_key(|i| order[&i.instance_id]);
    } else {
        if instances.len() != total {
            return Err(HarnessError::from(format!(
                "the shards hold {} instances, the suite {total}",
                instances.len()
            )));
        }
        instances.sort_by(|a, b| a.instance_id.cmp(&b.instance_id));
    }
    let mut experiment = first.experiment.clone();
    experiment.remove("shard");
    experiment.insert("shards".into(), json!(n));
    experiment.insert("merged_from".into(), json!(files));
    let times = |k: &str| {
        loaded
            .iter()
            .filter_map(|(_, f, _)| f.experiment.get(k).and_then(Value::as_str).map(str::to_string))
            .collect::<Vec<_>>()
    };
    experiment.insert("started_at".into(), json!(times("started_at").into_iter().min()));
    experiment.insert("finished_at".into(), json!(times("finished_at").into_iter().max()));
    let wall = loaded
        .iter()
        .filter_map(|(_, f, _)| f.summary.get("timing_sec")?.get("wall_clock_total")?.as_f64())
        .fold(0.0, f64::max);
    let mut summary = summarize(&instances, wall);
    summary.insert("planned_instance_count".into(), json!(total));
    summary.insert("completed_instance_count".into(), json!(instances.len()));
    Ok(ResultFile { experiment, instances, summary, extra: Default::default() })
}
