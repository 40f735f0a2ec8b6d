//! Scale-out: shard result files merged back into one (checked to cover the suite exactly once, summary
//! recomputed), and the Slurm job-array scripts that run the shards and then the merge.

use super::shard_of;
use crate::bench::case::load_cases;
use crate::bench::results::{Instance, ResultFile, summarize};
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

fn shard_info(f: &ResultFile, path: &Path) -> Result<(usize, usize, usize)> {
    let s =
        f.experiment.get("shard").with_context(|| format!("{}: not a shard (no experiment.shard)", path.display()))?;
    let get = |k: &str| s.get(k).and_then(Value::as_u64).map(|v| v as usize);
    match (get("index"), get("count"), get("suite_instances")) {
        (Some(i), Some(n), Some(t)) => Ok((i, n, t)),
        _ => bail!("{}: experiment.shard needs index, count and suite_instances", path.display()),
    }
}

/// Merges shard files; `cases` (the suite) gives the order and the exact instance set to check against.
pub fn merge(files: &[PathBuf], cases: Option<&Path>) -> Result<ResultFile> {
    if files.is_empty() {
        bail!("no shard files");
    }
    let mut loaded = Vec::new();
    for p in files {
        let f = ResultFile::load(p).map_err(|e| anyhow::anyhow!("{e}"))?;
        let info = shard_info(&f, p)?;
        loaded.push((p.clone(), f, info));
    }
    let (_, first, (_, n, total)) = &loaded[0];
    let (n, total) = (*n, *total);
    let same = |k: &str| first.experiment.get(k).cloned();
    let mut seen_index = BTreeSet::new();
    let mut instances: Vec<Instance> = Vec::new();
    let mut ids = HashMap::new();
    for (p, f, (i, count, t)) in &loaded {
        if *count != n || *t != total {
            bail!("{}: shard {i}/{count} of {t} instances does not belong with {n} shards of {total}", p.display());
        }
        for k in ["subset_root", "evaluation_mode", "limit"] {
            if f.experiment.get(k).cloned() != same(k) {
                bail!("{}: experiment.{k} differs from {}", p.display(), loaded[0].0.display());
            }
        }
        if !seen_index.insert(*i) {
            bail!("{}: shard {i}/{n} given twice", p.display());
        }
        for inst in &f.instances {
            if shard_of(&inst.instance_id, n) != *i {
                bail!(
                    "{}: instance {} belongs to shard {}, not {i}",
                    p.display(),
                    inst.instance_id,
                    shard_of(&inst.instance_id, n)
                );
            }
            if let Some(other) = ids.insert(inst.instance_id.clone(), p.clone()) {
                bail!("instance {} is in {} and {}", inst.instance_id, other.display(), p.display());
            }
            instances.push(inst.clone());
        }
    }
    let missing: Vec<usize> = (1..=n).filter(|i| !seen_index.contains(i)).collect();
    if !missing.is_empty() {
        bail!("shard(s) {missing:?} of {n} missing");
    }
    // Order and completeness against the suite when it can be read.
    let suite =
        cases.map(Path::to_path_buf).or_else(|| same("subset_root").and_then(|v| v.as_str().map(PathBuf::from)));
    if let Some(root) = suite.filter(|r| r.exists()) {
        let mut set = load_cases(&root).map_err(|e| anyhow::anyhow!("{e}"))?.cases;
        if let Some(l) = same("limit").and_then(|v| v.as_u64()) {
            set.truncate(l as usize);
        }
        let order: HashMap<String, usize> = set.iter().enumerate().map(|(k, c)| (c.instance_id(), k)).collect();
        if let Some(extra) = instances.iter().find(|i| !order.contains_key(&i.instance_id)) {
            bail!("instance {} is not a case of {}", extra.instance_id, root.display());
        }
        let absent: Vec<&String> = order.keys().filter(|id| !ids.contains_key(*id)).collect();
        if !absent.is_empty() {
            bail!(
                "{} instance(s) of {} are in no shard (e.g. {}): rerun those shards with --resume",
                absent.len(),
                root.display(),
                absent[0]
            );
        }
        instances.sort_by_key(|i| order[&i.instance_id]);
    } else {
        if instances.len() != total {
            bail!("the shards hold {} instances, the suite {total}", instances.len());
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

/// Slurm options of the generated scripts.
#[derive(Debug, Clone)]
pub struct SlurmOptions {
    pub shards: usize,
    pub partition: Option<String>,
    pub time: String,
    pub cpus: usize,
    pub mem: String,
}

fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Writes `run_shards.sbatch` (a job array, one task per shard, each `bench run --shard i/n --resume`),
/// `merge.sbatch` and `submit.sh` (submits the array, then the merge with `afterok` on it) into `dir`.
pub fn write_slurm(
    brainlens: &Path,
    suite: &Path,
    run_args: &[String],
    dir: &Path,
    o: &SlurmOptions,
) -> Result<Vec<PathBuf>> {
    if o.shards == 0 {
        bail!("--shards must be at least 1");
    }
    if run_args.iter().any(|a| a == "--out" || a == "--shard" || a.starts_with("--out=") || a.starts_with("--shard=")) {
        bail!("give the run options without --out and --shard: the scripts set them per shard");
    }
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let dir = dir.canonicalize()?;
    let suite = suite.canonicalize().with_context(|| format!("{}: no such suite", suite.display()))?;
    let bin = quote(&brainlens.display().to_string());
    let d = quote(&dir.display().to_string());
    let args: Vec<String> = run_args.iter().map(|a| quote(a)).collect();
    let partition = o.partition.as_ref().map_or(String::new(), |p| format!("#SBATCH --partition={p}\n"));
    let header = |name: &str, extra: &str| {
        format!(
            "#!/usr/bin/env bash\n#SBATCH --job-name={name}\n{partition}#SBATCH --time={}\n#SBATCH --cpus-per-task={}\n#SBATCH --mem={}\n{extra}set -euo pipefail\n",
            o.time, o.cpus, o.mem
        )
    };
    let run = format!(
        "{}# Shard $SLURM_ARRAY_TASK_ID of {n}: the instances whose id hashes to it; --resume keeps what a\n# preempted or requeued task already wrote.\ni=${{SLURM_ARRAY_TASK_ID:?run as a Slurm array task}}\nexec {bin} bench run {suite} {args} --shard \"$i/{n}\" --resume --out {d}/shard-$i.json\n",
        header(
            "brainlens-shards",
            &format!("#SBATCH --array=1-{}\n#SBATCH --output={}/shard-%a.log\n", o.shards, dir.display())
        ),
        n = o.shards,
        suite = quote(&suite.display().to_string()),
        args = args.join(" "),
    );
    let shards: Vec<String> = (1..=o.shards).map(|i| format!("{d}/shard-{i}.json")).collect();
    let merge = format!(
        "{}exec {bin} bench merge {} --cases {} --out {d}/result.json\n",
        header("brainlens-merge", &format!("#SBATCH --output={}/merge.log\n", dir.display())),
        shards.join(" "),
        quote(&suite.display().to_string()),
    );
    let submit = format!(
        "#!/usr/bin/env bash\n# Submits the shard array, then the merge, which runs only if every shard succeeded.\nset -euo pipefail\ncd {d}\narray=$(sbatch --parsable run_shards.sbatch)\nmerge=$(sbatch --parsable --dependency=afterok:${{array%%;*}} merge.sbatch)\necho \"shards: job $array; merge: job $merge; result: {}/result.json\"\n",
        dir.display()
    );
    let mut written = Vec::new();
    for (name, text) in [("run_shards.sbatch", run), ("merge.sbatch", merge), ("submit.sh", submit)] {
        let p = dir.join(name);
        std::fs::write(&p, text).with_context(|| format!("{}: cannot write", p.display()))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))?;
        written.push(p);
    }
    Ok(written)
}
