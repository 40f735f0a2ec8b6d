//! `bench slurm` (and `agent slurm`, through `slurm_work`): write the job-array scripts, submit them, follow
//! the run, resubmit what is missing.

use anyhow::{Context, Result, bail};
use std::io::Write;
use std::path::PathBuf;

use crate::harness::slurm::{self, SlurmOptions, SubmitRequest};

/// `bench slurm SUITE --shards N --out-dir DIR [--submit] [sbatch options] -- RUN OPTIONS...`,
/// `bench slurm --status DIR [--watch] [--json]`, `bench slurm --resubmit-missing DIR`.
#[derive(Debug, clap::Args)]
pub struct SlurmArgs {
    /// The suite (or subset, or case folder) the shards run; for `agent slurm`, the cohort file or graphs
    /// folder the evaluation runs on.
    #[arg(required_unless_present_any = ["status", "resubmit_missing"])]
    pub suite: Option<PathBuf>,
    #[arg(long, required_unless_present_any = ["status", "resubmit_missing"])]
    pub shards: Option<usize>,
    /// Where the scripts, the shard files, their logs, jobs.json and result.json go.
    #[arg(long, required_unless_present_any = ["status", "resubmit_missing"])]
    pub out_dir: Option<PathBuf>,
    /// Submit the array and the merge with sbatch and record the job ids in OUT_DIR/jobs.json.
    #[arg(long)]
    pub submit: bool,
    /// Each array task's state and elapsed time (sacct/squeue), instances done (its shard file), the merge.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["suite", "submit", "resubmit_missing"])]
    pub status: Option<PathBuf>,
    /// With --status: print again every 5 s until nothing more will happen.
    #[arg(long, requires = "status")]
    pub watch: bool,
    /// Resubmit only the shards whose file is missing or incomplete (each resumes its file), then a new merge.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["suite", "submit"])]
    pub resubmit_missing: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
    #[arg(long)]
    pub partition: Option<String>,
    #[arg(long)]
    pub account: Option<String>,
    #[arg(long)]
    pub qos: Option<String>,
    /// Generic resources of each shard task, e.g. gpu:1 (not the merge).
    #[arg(long)]
    pub gres: Option<String>,
    /// Node features each shard task needs (sbatch --constraint).
    #[arg(long)]
    pub constraint: Option<String>,
    /// Run the binary under this command in every job, e.g. 'apptainer exec IMAGE.sif'.
    #[arg(long, value_name = "CMD")]
    pub container_cmd: Option<String>,
    /// Wall time per shard task.
    #[arg(long, default_value = "12:00:00")]
    pub time: String,
    #[arg(long, default_value_t = 2)]
    pub cpus: usize,
    #[arg(long, default_value = "8G")]
    pub mem: String,
    /// The options every shard's `bench run` gets (paradigm, provider, models, concurrency…) or, for
    /// `agent slurm`, its `agent eval` (task, method, provider, split…), after `--`.
    #[arg(last = true)]
    pub run_args: Vec<String>,
}

fn print_status(st: &slurm::Status, json: bool, out: &mut dyn Write) -> Result<()> {
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(st)?)?;
    } else {
        write!(out, "{}", st.render())?;
    }
    out.flush()?;
    Ok(())
}

pub fn slurm(a: &SlurmArgs, out: &mut dyn Write) -> Result<()> {
    slurm_work(a, slurm::Work::Bench, a.run_args.clone(), None, out)
}

/// `bench slurm` and `agent slurm`: `run_args` are the shards' own options (an agent evaluation's with its
/// data added), `expected` an agent evaluation's runs per shard.
pub fn slurm_work(
    a: &SlurmArgs,
    work: slurm::Work,
    run_args: Vec<String>,
    expected: Option<Vec<usize>>,
    out: &mut dyn Write,
) -> Result<()> {
    let command = work.command();
    if let Some(dir) = &a.status {
        loop {
            let st = slurm::status(dir)?;
            print_status(&st, a.json, out)?;
            if !a.watch || st.settled() {
                return Ok(());
            }
            std::thread::sleep(std::time::Duration::from_secs(5));
        }
    }
    if let Some(dir) = &a.resubmit_missing {
        match slurm::resubmit_missing(dir)? {
            None => {
                writeln!(out, "{}: every shard is complete and the result exists; nothing to resubmit", dir.display())?
            }
            Some(s) => {
                if a.json {
                    writeln!(out, "{}", serde_json::to_string_pretty(&s)?)?;
                } else {
                    writeln!(
                        out,
                        "resubmitted shard(s) {:?} as job {}; merge: job {}; follow with: brainlens {command} --status {}",
                        s.tasks,
                        s.array_job.as_deref().unwrap_or("-"),
                        s.merge_job.as_deref().unwrap_or("-"),
                        dir.display()
                    )?;
                }
            }
        }
        return Ok(());
    }
    let (Some(suite), Some(shards), Some(dir)) = (&a.suite, a.shards, &a.out_dir) else {
        bail!("{command} needs SUITE --shards N --out-dir DIR (or --status DIR, or --resubmit-missing DIR)");
    };
    let exe = std::env::current_exe().context("cannot find the brainlens binary")?;
    let o = SlurmOptions {
        shards,
        partition: a.partition.clone(),
        time: a.time.clone(),
        cpus: a.cpus,
        mem: a.mem.clone(),
        account: a.account.clone(),
        qos: a.qos.clone(),
        gres: a.gres.clone(),
        constraint: a.constraint.clone(),
        container_cmd: a.container_cmd.clone(),
    };
    if a.submit {
        let req = SubmitRequest { work, brainlens: &exe, suite, expected, run_args: &run_args, dir, options: &o };
        let jobs = slurm::submit(&req)?;
        let last = jobs.submissions.last().expect("a submission was recorded");
        if a.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&jobs)?)?;
        } else {
            writeln!(
                out,
                "submitted {shards} shard(s) as job array {} and the merge as job {} (after all of them); job ids in {}",
                last.array_job.as_deref().unwrap_or("-"),
                last.merge_job.as_deref().unwrap_or("-"),
                slurm::JobsFile::path(&dir.canonicalize()?).display()
            )?;
            writeln!(out, "follow with: brainlens {command} --status {} --watch", dir.display())?;
        }
        return Ok(());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let dir = dir.canonicalize()?;
    let suite = suite.canonicalize().with_context(|| format!("{}: no such suite", suite.display()))?;
    // A folder submitted before dealing keeps its hashed shards.
    let order = slurm::JobsFile::load(&dir)?.map_or(crate::harness::runner::ShardOrder::Dealt, |j| j.shard_order);
    let files = slurm::write_scripts(work, &exe, &suite, &run_args, &dir, &o, order)?;
    for f in &files {
        writeln!(out, "wrote {}", f.display())?;
    }
    writeln!(out, "submit with: {} (or add --submit)", files[2].display())?;
    Ok(())
}
