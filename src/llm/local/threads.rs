//! How many threads a model process computes with: the cores it may use, shared with the other model
//! processes of the machine. llama.cpp's worker threads spin while they wait, so two processes that each take
//! every core fight over them (measured here: a SmolLM2 analysis took 9 min instead of ~20 s beside a bench
//! run on the same 2 cores). In order: `--threads N`; `RAYON_NUM_THREADS` (the Slurm scripts set it from the
//! allocation); Slurm's allocation (`SLURM_CPUS_PER_TASK`); else the cores this process may run on (its
//! affinity and cgroup quota) divided among the local shards of one evaluation (`--shard I/N` outside Slurm:
//! N processes on this machine), at least one each.

use serde::{Deserialize, Serialize};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

static CHOSEN: OnceLock<usize> = OnceLock::new();
static LOCAL_SHARDS: AtomicUsize = AtomicUsize::new(1);

/// The threads and where the number comes from, as `doctor` and every run header say it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Threads {
    pub threads: usize,
    pub why: String,
}

/// `--threads N` (N ≥ 1): this process's model computes with N threads. The first call wins.
pub fn set_threads(n: usize) {
    let _ = CHOSEN.set(n.max(1));
}

/// This process is one of `n` shards of one run on this machine (`--shard I/N` outside Slurm).
pub fn set_local_shards(n: usize) {
    LOCAL_SHARDS.store(n.max(1), Ordering::Relaxed);
}

fn env_count(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.trim().parse::<usize>().ok()).filter(|&n| n > 0)
}

/// The threads of this process's model, from its settings and environment.
pub fn threads() -> Threads {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    // Shards under Slurm each have their own allocation; only shards on this machine share its cores.
    let local_shards =
        if std::env::var_os("SLURM_JOB_ID").is_some() { 1 } else { LOCAL_SHARDS.load(Ordering::Relaxed) };
    decide(CHOSEN.get().copied(), env_count("RAYON_NUM_THREADS"), env_count("SLURM_CPUS_PER_TASK"), cores, local_shards)
}

/// The threads of the model named `model` (a `ChatModel::name`) when it is this process's local model: what a
/// run says and records beside the model's name. None for an endpoint or a replay, which use no cores here.
pub fn of_model(model: &str) -> Option<Threads> {
    model.starts_with(&format!("{}:", super::PROVIDER)).then(threads)
}

fn decide(
    chosen: Option<usize>,
    rayon: Option<usize>,
    slurm: Option<usize>,
    cores: usize,
    local_shards: usize,
) -> Threads {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    if let Some(n) = chosen {
        return Threads { threads: n, why: format!("--threads {n}") };
    }
    if let Some(n) = rayon {
        return Threads { threads: n, why: format!("RAYON_NUM_THREADS={n}") };
    }
    if let Some(n) = slurm {
        return Threads { threads: n, why: format!("Slurm's allocation: SLURM_CPUS_PER_TASK={n}") };
    }
    let shards = local_shards.max(1);
    if shards > 1 {
        let n = (cores / shards).max(1);
        return Threads { threads: n, why: format!("{cores} core{} shared by {shards} local shards", plural(cores)) };
    }
    Threads { threads: cores, why: format!("all {cores} core{} of this machine", plural(cores)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cores_are_split_among_local_shards_and_an_allocation_or_a_choice_wins() {
        assert_eq!(decide(None, None, None, 2, 1).threads, 2);
        let two = decide(None, None, None, 2, 2);
        assert_eq!((two.threads, two.why.as_str()), (1, "2 cores shared by 2 local shards"));
        assert_eq!(decide(None, None, None, 8, 3).threads, 2);
        assert_eq!(decide(None, None, None, 2, 4).threads, 1, "at least one thread each");
        assert_eq!(decide(None, None, Some(4), 2, 2).threads, 4, "Slurm's allocation");
        assert_eq!(decide(None, Some(3), Some(4), 2, 2).why, "RAYON_NUM_THREADS=3");
        assert_eq!(decide(Some(1), Some(3), None, 2, 2).why, "--threads 1");
        assert!(of_model("local:SmolLM2-135M-Instruct.Q4_1").is_some());
        assert_eq!(of_model("openai:gpt-4o"), None);
    }
}
