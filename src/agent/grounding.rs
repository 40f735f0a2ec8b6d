//! Does a report claim work that nothing did? The report's sentences that state a load, filter, reference,
//! resampling, spectral computation, epoching or heart-rate analysis as done are matched against what ran:
//! the BrainAgent's steps that succeeded, or the CodeAct code that ran without an error. A claim with no such
//! step or code is flagged (in the trace, and as `ungrounded_report` in the failure-case table). Sentences
//! that negate or plan ("could not be loaded", "should be filtered") claim nothing.

use super::codeact::CodeActTrace;
use super::eeg::EegTrace;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A kind of work a report can claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Work {
    Load,
    Filter,
    Reference,
    Resample,
    Spectrum,
    Epochs,
    Heart,
}

impl Work {
    pub fn name(self) -> &'static str {
        match self {
            Work::Load => "loading the data",
            Work::Filter => "filtering",
            Work::Reference => "re-referencing",
            Work::Resample => "resampling",
            Work::Spectrum => "a spectral computation (PSD, band power)",
            Work::Epochs => "epoching",
            Work::Heart => "R-peak / heart-rate analysis",
        }
    }
}

/// A sentence of a report that claims `work` as done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub work: Work,
    pub sentence: String,
}

const NEGATIONS: [&str; 18] = [
    " not ",
    "nothing",
    " none",
    "no tool",
    "no step",
    "n't",
    "unable",
    "failed",
    "fail to",
    "cannot",
    "could not",
    "no data",
    "missing",
    "would ",
    "should ",
    "will ",
    " if ",
    "was not",
];

fn any(s: &str, words: &[&str]) -> bool {
    words.iter().any(|w| s.contains(w))
}

const DONE: [&str; 9] =
    ["computed", "calculated", "estimated", "obtained", "derived", "measured", "applied", "performed", "detected"];

/// The work one sentence (lower-cased) states as done.
fn works_of(s: &str) -> Vec<Work> {
    let done = any(s, &DONE);
    let mut out = Vec::new();
    if any(s, &["loaded", "was read", "were read", "read in ", "opened", "imported"]) {
        out.push(Work::Load);
    }
    if any(s, &["filtered", "bandpassed", "band-passed"])
        || (done
            && any(s, &["filter", "band-pass", "bandpass", "high-pass", "highpass", "low-pass", "lowpass", "notch"]))
    {
        out.push(Work::Filter);
    }
    if any(s, &["re-referenced", "rereferenced", "referenced to the average"]) || (done && s.contains("reference")) {
        out.push(Work::Reference);
    }
    if any(s, &["resampled", "downsampled", "down-sampled", "upsampled"]) {
        out.push(Work::Resample);
    }
    let spectral = [
        "psd",
        "power spectral",
        "welch",
        "spectrum",
        "spectra",
        "band power",
        "relative power",
        "absolute power",
        "periodogram",
        "multitaper",
    ];
    if done && any(s, &spectral) {
        out.push(Work::Spectrum);
    }
    if any(s, &["epoched", "segmented into epochs", "epochs were created", "epochs were extracted"]) {
        out.push(Work::Epochs);
    }
    if done && any(s, &["r-peak", "r peak", "heart rate", "hrv", "rmssd", "sdnn"]) {
        out.push(Work::Heart);
    }
    out
}

/// What a report's sentences claim as done, in order, once per kind.
pub fn claims(report: &str) -> Vec<Claim> {
    let mut out: Vec<Claim> = Vec::new();
    for sentence in report.split(['.', '!', '?', '\n']).map(str::trim).filter(|s| !s.is_empty()) {
        let lower = format!(" {} ", sentence.to_lowercase());
        if any(&lower, &NEGATIONS) {
            continue;
        }
        for work in works_of(&lower) {
            if !out.iter().any(|c| c.work == work) {
                out.push(Claim { work, sentence: sentence.to_string() });
            }
        }
    }
    out
}

/// The work a BrainAgent tool does when it succeeds.
fn tool_work(tool: &str) -> &'static [Work] {
    match tool {
        "inspect_file" | "load_channels" | "load_hypnogram" | "read_events" => &[Work::Load],
        "filter" => &[Work::Filter],
        "rereference" => &[Work::Reference],
        "resample" => &[Work::Resample],
        "band_power" | "peak_frequency" | "event_power_change" | "connectivity" => &[Work::Spectrum],
        "epoch_average" | "crop" | "segment_stats" => &[Work::Epochs],
        "ecg_hrv" => &[Work::Heart],
        _ => &[],
    }
}

/// Work the BrainAgent's steps did (status ok).
pub fn done_by_tools(trace: &EegTrace) -> BTreeSet<Work> {
    let steps = trace.rounds.iter().flat_map(|r| &r.executed).filter(|s| s.status == "ok");
    steps.flat_map(|s| tool_work(&s.tool).iter().copied()).collect()
}

/// Work the code that ran without an error did, read from the calls it makes (MNE, SciPy, NumPy, YASA,
/// NeuroKit2, pyedflib, pandas).
pub fn done_by_code(trace: &CodeActTrace) -> BTreeSet<Work> {
    let mut out = BTreeSet::new();
    for code in trace.rounds.iter().filter(|r| !r.failed && !r.timed_out).filter_map(|r| r.code.as_deref()) {
        let c = code.to_lowercase();
        let has = |words: &[&str]| any(&c, words);
        if has(&[
            "read_raw",
            "read_edf",
            "edfreader",
            "np.load",
            "loadtxt",
            "read_csv",
            "read_epochs",
            "loadmat",
            "open(",
        ]) {
            out.insert(Work::Load);
        }
        if has(&[".filter(", "filtfilt", "sosfilt", "lfilter", "butter(", "filter_data", "notch_filter", "firwin"]) {
            out.insert(Work::Filter);
        }
        if has(&["set_eeg_reference"]) {
            out.insert(Work::Reference);
        }
        if has(&["resample", "decimate"]) {
            out.insert(Work::Resample);
        }
        if has(&[
            "welch",
            "compute_psd",
            "psd_array",
            "periodogram",
            "multitaper",
            "bandpower",
            "np.fft",
            "rfft",
            "spectrogram",
        ]) {
            out.insert(Work::Spectrum);
        }
        if has(&["epochs(", "make_fixed_length_epochs"]) {
            out.insert(Work::Epochs);
        }
        if has(&["ecg_peaks", "ecg_process", "find_peaks", "hrv", "rmssd", "find_ecg_events"]) {
            out.insert(Work::Heart);
        }
    }
    out
}

/// The claims of `report` that nothing in `done` supports.
pub fn ungrounded(report: &str, done: &BTreeSet<Work>) -> Vec<Claim> {
    claims(report).into_iter().filter(|c| !done.contains(&c.work)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The capable model's report of a run in which no tool ran (issue text): three claims, all ungrounded.
    #[test]
    fn claims_of_work_that_did_not_run() {
        let report = "The EEG data file data/eeg/rec.edf was successfully loaded. The EEG channels were filtered \
                      between 0.5 and 40 Hz. Welch PSDs were computed for each channel.";
        let c = ungrounded(report, &BTreeSet::new());
        assert_eq!(c.iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Load, Work::Filter, Work::Spectrum]);
        // With the steps that did it, nothing is flagged.
        let done = BTreeSet::from([Work::Load, Work::Filter, Work::Spectrum]);
        assert!(ungrounded(report, &done).is_empty());
    }

    #[test]
    fn negations_and_plans_claim_nothing() {
        for s in [
            "The file could not be loaded, so no values are given.",
            "The data should be filtered before the PSD is computed.",
            "The recording was not found in the inputs.",
            "The mean relative alpha power is 23.4 %.",
            "Band power will be computed once the file is available.",
            // A capable model quoting the report prompt's own account of an empty run (seen with Qwen2.5-Coder-1.5B).
            "Steps that ran: none (no tool ran; nothing was loaded, filtered or computed).",
            "No steps were executed, and nothing was computed.",
        ] {
            assert!(claims(s).is_empty(), "{s}: {:?}", claims(s));
        }
    }

    #[test]
    fn code_that_ran_counts_and_code_that_failed_does_not() {
        use super::super::codeact::Round;
        let round = |code: &str, failed: bool| Round { code: Some(code.into()), failed, ..Default::default() };
        let trace = CodeActTrace {
            rounds: vec![
                round("raw = mne.io.read_raw_edf('/input/data/rec.edf', preload=True)", false),
                round("raw.filter(1, 30)\npsd = raw.compute_psd(method='welch')", true),
            ],
            ..Default::default()
        };
        assert_eq!(done_by_code(&trace), BTreeSet::from([Work::Load]));
        let c =
            ungrounded("The data were loaded and band-pass filtered; Welch PSDs were computed.", &done_by_code(&trace));
        assert_eq!(c.iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Filter, Work::Spectrum]);
    }
}
