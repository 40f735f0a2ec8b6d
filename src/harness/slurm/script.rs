//! The scripts: `run_shards.sbatch` (a job array, one task per shard: `bench run --shard i/n --resume` or
//! `agent eval --shard i/n`, see `work`),
//! `merge.sbatch` (`bench merge` of the shard files) and `submit.sh` (the array, then the merge with `afterok`
//! on it), written into the output folder.

use super::{Result, SlurmError, Work};
use crate::harness::runner::ShardOrder;
use std::path::{Path, PathBuf};

/// The sbatch options of the generated scripts.
#[derive(Debug, Clone, Default)]
pub struct SlurmOptions {
    pub shards: usize,
    pub partition: Option<String>,
    /// Wall time per shard task (`--time`).
    pub time: String,
    pub cpus: usize,
    pub mem: String,
    pub account: Option<String>,
    pub qos: Option<String>,
    /// Shard tasks only (`--gres gpu:1`); the merge needs none.
    pub gres: Option<String>,
    /// Shard tasks only (`--constraint`).
    pub constraint: Option<String>,
    /// A command the binary runs under, e.g. `apptainer exec IMAGE` (written as given: shell words).
    pub container_cmd: Option<String>,
}

/// Quotes one shell word when it needs it.
pub(crate) fn quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Run options the scripts set per shard themselves.
pub fn check_run_args(run_args: &[String]) -> Result<()> {
    let set_here = ["--out", "--shard", "--shard-order"];
    if run_args.iter().any(|a| set_here.iter().any(|o| a == o || a.starts_with(&format!("{o}=")))) {
        return Err(SlurmError::Invalid(
            "give the run options without --out, --shard and --shard-order: the scripts set them per shard".into(),
        ));
    }
    Ok(())
}

/// `--limit N` among the run options, which the shards' expected counts follow.
pub fn run_limit(run_args: &[String]) -> Option<usize> {
    let mut it = run_args.iter();
    while let Some(a) = it.next() {
        if a == "--limit" {
            return it.next()?.parse().ok();
        }
        if let Some(v) = a.strip_prefix("--limit=") {
            return v.parse().ok();
        }
    }
    None
}

/// The shard file of shard `i` of a suite run in `dir`.
pub fn shard_file(dir: &Path, i: usize) -> PathBuf {
    Work::Bench.shard_file(dir, i)
}

/// Writes the three scripts into `dir` (an absolute, existing folder) and returns their paths:
/// `run_shards.sbatch`, `merge.sbatch`, `submit.sh`. For an agent evaluation `suite` is the data it runs on.
/// A suite's shards are dealt (`order`: a folder's jobs.json may say hash, from before dealing).
pub fn write_scripts(
    work: Work,
    brainlens: &Path,
    suite: &Path,
    run_args: &[String],
    dir: &Path,
    o: &SlurmOptions,
    order: ShardOrder,
) -> Result<Vec<PathBuf>> {
    write_scripts_in(work, brainlens, suite, run_args, dir, dir, o, order)
}

/// The scripts for output folder `dir`, written into `into` (a staging folder, or `dir` itself).
#[allow(clippy::too_many_arguments)]
pub fn write_scripts_in(
    work: Work,
    brainlens: &Path,
    suite: &Path,
    run_args: &[String],
    dir: &Path,
    into: &Path,
    o: &SlurmOptions,
    order: ShardOrder,
) -> Result<Vec<PathBuf>> {
    if o.shards == 0 {
        return Err(SlurmError::Invalid("--shards must be at least 1".into()));
    }
    check_run_args(run_args)?;
    let exe = match &o.container_cmd {
        Some(c) if !c.trim().is_empty() => format!("{} {}", c.trim(), quote(&brainlens.display().to_string())),
        _ => quote(&brainlens.display().to_string()),
    };
    let d = quote(&dir.display().to_string());
    let suite_q = quote(&suite.display().to_string());
    let args: Vec<String> = run_args.iter().map(|a| quote(a)).collect();
    let line = |k: &str, v: &Option<String>| v.as_ref().map_or(String::new(), |v| format!("#SBATCH --{k}={v}\n"));
    let common = format!("{}{}{}", line("partition", &o.partition), line("account", &o.account), line("qos", &o.qos));
    let header = |name: &str, extra: &str| {
        format!(
            "#!/usr/bin/env bash\n#SBATCH --job-name={name}\n{common}#SBATCH --time={}\n#SBATCH --cpus-per-task={}\n#SBATCH --mem={}\n{extra}set -euo pipefail\n\
             # As many worker threads as CPUs asked for: a node's other tasks share its cores (a local model\n\
             # with a thread per core of the node ran ten times slower beside another shard).\n\
             export RAYON_NUM_THREADS=${{SLURM_CPUS_PER_TASK:-{}}}\n",
            o.time, o.cpus, o.mem, o.cpus
        )
    };
    let run = format!(
        "{}# Shard $SLURM_ARRAY_TASK_ID of {n}: its share of the {unit}; a preempted, cancelled or resubmitted task\n# resumes what it already wrote.\ni=${{SLURM_ARRAY_TASK_ID:?run as a Slurm array task}}\n{}",
        header(
            "brainlens-shards",
            &format!(
                "#SBATCH --array=1-{}\n#SBATCH --output={}/shard-%a.log\n#SBATCH --open-mode=append\n{}{}",
                o.shards,
                dir.display(),
                line("gres", &o.gres),
                line("constraint", &o.constraint)
            )
        ),
        work.run_line(&exe, &suite_q, &args.join(" "), o.shards, &d, order),
        n = o.shards,
        unit = work.unit(),
    );
    let shards: Vec<String> = (1..=o.shards).map(|i| quote(&work.shard_file(dir, i).display().to_string())).collect();
    let merge = format!(
        "{}{}",
        header(
            "brainlens-merge",
            &format!("#SBATCH --output={}/merge.log\n#SBATCH --open-mode=append\n", dir.display())
        ),
        work.merge_line(&exe, &shards.join(" "), &suite_q, &d),
    );
    let submit = format!(
        "#!/usr/bin/env bash\n# Submits the shard array, then the merge, which runs only if every shard succeeded.\n# (`brainlens {} ... --submit` does the same and records the job ids in jobs.json.)\nset -euo pipefail\ncd {d}\narray=$(sbatch --parsable run_shards.sbatch)\nmerge=$(sbatch --parsable --dependency=afterok:${{array%%;*}} merge.sbatch)\necho \"shards: job $array; merge: job $merge; result: {}\"\n",
        work.command(),
        work.result_file(dir).display()
    );
    let mut written = Vec::new();
    for (name, text) in [("run_shards.sbatch", run), ("merge.sbatch", merge), ("submit.sh", submit)] {
        let p = into.join(name);
        std::fs::write(&p, text).map_err(|e| SlurmError::file(&p, format!("cannot write: {e}")))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| SlurmError::file(&p, format!("cannot make executable: {e}")))?;
        written.push(p);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_reach_the_scripts_and_the_container_wraps_the_binary() {
        let d = tempfile::tempdir().unwrap();
        let o = SlurmOptions {
            shards: 3,
            time: "1:00:00".into(),
            cpus: 1,
            mem: "1G".into(),
            account: Some("lab".into()),
            qos: Some("short".into()),
            gres: Some("gpu:1".into()),
            constraint: Some("avx512".into()),
            container_cmd: Some("apptainer exec /img/bl.sif".into()),
            ..Default::default()
        };
        let files = write_scripts(
            Work::Bench,
            Path::new("/opt/bin/brainlens"),
            Path::new("/s"),
            &["--limit".into(), "9".into()],
            d.path(),
            &o,
            ShardOrder::Dealt,
        )
        .unwrap();
        let run = std::fs::read_to_string(&files[0]).unwrap();
        let merge = std::fs::read_to_string(&files[1]).unwrap();
        let threads = "export RAYON_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}";
        for want in ["--array=1-3", "--account=lab", "--qos=short", "--gres=gpu:1", "--constraint=avx512", threads] {
            assert!(run.contains(want), "{want}: {run}");
        }
        assert!(
            run.contains(
                "exec apptainer exec /img/bl.sif /opt/bin/brainlens bench run /s --limit 9 --shard \"$i/3\" --shard-order dealt --resume"
            ),
            "{run}"
        );
        // A folder submitted before dealing keeps its hashed shards: its scripts name no order.
        let hashed =
            write_scripts(Work::Bench, Path::new("/bl"), Path::new("/s"), &[], d.path(), &o, ShardOrder::Hash).unwrap();
        let run = std::fs::read_to_string(&hashed[0]).unwrap();
        assert!(run.contains("--shard \"$i/3\" --resume") && !run.contains("shard-order"), "{run}");
        assert!(merge.contains("--account=lab") && !merge.contains("gres"), "{merge}");
        assert_eq!(run_limit(&["--limit=7".into()]), Some(7));
        assert!(check_run_args(&["--shard=1/2".into()]).is_err());
        assert!(check_run_args(&["--shard-order".into(), "hash".into()]).is_err());
        // An agent evaluation: `agent eval … --shard`, merged by `agent merge` into run.jsonl.
        let args = ["--task".to_string(), "asd".into(), "--cohort".into(), "/c/abide.npz".into()];
        let files = write_scripts(
            Work::AgentEval,
            Path::new("/bl"),
            Path::new("/c/abide.npz"),
            &args,
            d.path(),
            &o,
            ShardOrder::Dealt,
        )
        .unwrap();
        let run = std::fs::read_to_string(&files[0]).unwrap();
        let merge = std::fs::read_to_string(&files[1]).unwrap();
        let dir = d.path().display();
        assert!(
            run.contains(&format!(
                "/bl agent eval --task asd --cohort /c/abide.npz --shard \"$i/3\" --out {dir}/shard-$i.jsonl"
            )),
            "{run}"
        );
        assert!(
            merge.contains(&format!(
                "agent merge {dir}/shard-1.jsonl {dir}/shard-2.jsonl {dir}/shard-3.jsonl --out {dir}/run.jsonl"
            )),
            "{merge}"
        );
    }
}
