//! The local suite and a scripted BrainAgent run over it, recorded so that the replay provider answers
//! `bench run` (sharded, on Slurm, from the GUI) with the same model calls.

use super::eeg_scripted::EegScripted;
use brainlens::bench::results::ResultFile;
use brainlens::harness::runner::{Live, Models, Options, run};
use brainlens::llm::ChatModel;
use brainlens::llm::replay::Recorder;
use brainlens::util::cancel::Cancel;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `bench generate --out dir/suite` (54 instances of 34 templates).
pub fn suite(dir: &Path) -> PathBuf {
    let s = dir.join("suite");
    super::json(&["bench", "generate", "--out", s.to_str().unwrap(), "--json"]);
    s
}

/// The scripted model over the first `limit` cases of `suite` (all when None), every call recorded to
/// `transcript`; the result file is written to `out` and returned.
pub fn record(suite: &Path, transcript: &Path, out: &Path, limit: Option<usize>) -> ResultFile {
    let m: Arc<dyn ChatModel> = Arc::new(Recorder::new(Arc::new(EegScripted::default()), transcript, vec![]).unwrap());
    let mut opts = Options::new(suite, out);
    opts.limit = limit;
    run(&opts, &Models { target: m.clone(), parser: m, judge: None, vlm: None }, &Cancel::default(), &Live::default())
        .unwrap()
}
