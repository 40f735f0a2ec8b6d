//! What a job array's shards run: a BrainBench suite (`bench run --shard i/n --resume`, merged by
//! `bench merge` into `result.json`) or an agent evaluation (`agent eval --shard i/n`, each shard resuming
//! its run file, merged by `agent merge` into `run.jsonl`).

use crate::harness::runner::ShardOrder;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Work {
    #[default]
    Bench,
    AgentEval,
}

impl Work {
    /// The command that submits and follows this kind of run.
    pub fn command(self) -> &'static str {
        match self {
            Work::Bench => "bench slurm",
            Work::AgentEval => "agent slurm",
        }
    }

    /// What a shard's progress counts.
    pub fn unit(self) -> &'static str {
        match self {
            Work::Bench => "instances",
            Work::AgentEval => "runs",
        }
    }

    pub fn shard_file(self, dir: &Path, i: usize) -> PathBuf {
        match self {
            Work::Bench => dir.join(format!("shard-{i}.json")),
            Work::AgentEval => dir.join(format!("shard-{i}.jsonl")),
        }
    }

    pub fn result_file(self, dir: &Path) -> PathBuf {
        match self {
            Work::Bench => dir.join("result.json"),
            Work::AgentEval => dir.join("run.jsonl"),
        }
    }

    /// A shard task's command (`i` is `$i`, the array task id; every word already quoted).
    pub(crate) fn run_line(self, exe: &str, suite: &str, args: &str, n: usize, dir: &str, order: ShardOrder) -> String {
        match self {
            // A hashed run's scripts stay as they were written before dealing (no option: hash).
            Work::Bench => {
                let dealt = if order == ShardOrder::Dealt { " --shard-order dealt" } else { "" };
                format!(
                    "exec {exe} bench run {suite} {args} --shard \"$i/{n}\"{dealt} --resume --out {dir}/shard-$i.json\n"
                )
            }
            Work::AgentEval => format!("exec {exe} agent eval {args} --shard \"$i/{n}\" --out {dir}/shard-$i.jsonl\n"),
        }
    }

    /// The merge job's command over the (quoted) shard files.
    pub(crate) fn merge_line(self, exe: &str, shards: &str, suite: &str, dir: &str) -> String {
        match self {
            Work::Bench => format!("exec {exe} bench merge {shards} --cases {suite} --out {dir}/result.json\n"),
            Work::AgentEval => format!("exec {exe} agent merge {shards} --out {dir}/run.jsonl\n"),
        }
    }
}
