//! Does a report claim work that nothing did? The report's sentences that state a load, filter, reference,
//! resampling, spectral computation, epoching or heart-rate analysis as done are matched against what ran:
//! the BrainAgent's steps that succeeded, or the CodeAct code that ran without an error. A claim with no such
//! step or code is flagged (in the trace, and as `ungrounded_report` in the failure-case table). Sentences
//! that negate or plan ("could not be loaded", "should be filtered") claim nothing. A value the report states
//! that neither the task nor any step's output holds is flagged too (`values`).
//! What a report still claims after it was asked again is struck from it (`strike`).

use super::codeact::trace::{CodeActTrace, Round, error_line};
use super::eeg::EegTrace;
use std::collections::BTreeSet;

pub mod claim;
pub mod strike;
mod values;
pub use claim::{Claim, Work};
pub use strike::{Struck, strike, unmarked};
use values::values_in;

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

/// Whether `s` has one of `words` starting a word: "unfiltered" does not say "filtered".
fn any_word(s: &str, words: &[&str]) -> bool {
    words
        .iter()
        .any(|w| s.match_indices(w).any(|(i, _)| !s[..i].chars().next_back().is_some_and(char::is_alphanumeric)))
}

/// Whether `s` has one of `words` as a whole word, digits allowed beside it: "13hz" says "hz", "first" does not
/// say "fir".
fn any_whole_word(s: &str, words: &[&str]) -> bool {
    let edge = |c: Option<char>| !c.is_some_and(char::is_alphabetic);
    words.iter().any(|w| {
        s.match_indices(w).any(|(i, _)| edge(s[..i].chars().next_back()) && edge(s[i + w.len()..].chars().next()))
    })
}

const DONE: [&str; 9] =
    ["computed", "calculated", "estimated", "obtained", "derived", "measured", "applied", "performed", "detected"];

/// The work one sentence (lower-cased) states as done.
fn works_of(s: &str) -> Vec<Work> {
    let any = any_word;
    let done = any(s, &DONE);
    let mut out = Vec::new();
    if any(s, &["loaded", "was read", "were read", "read in ", "opened", "imported"]) {
        out.push(Work::Load);
    }
    // "… computed with no filtering" states the filter as not done.
    let unfiltered = any(s, &["no filter", "without filter", "no band-pass", "without band-pass"]);
    if !unfiltered
        && !selects_rows(s)
        && (any(s, &["filtered", "bandpassed", "band-passed"])
            || (done
                && any(
                    s,
                    &["filter", "band-pass", "bandpass", "high-pass", "highpass", "low-pass", "lowpass", "notch"],
                )))
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
        // Event-related power (the `event_power_change` tool's work).
        "squared amplitude",
        "power change",
        "event power",
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

/// Whether a sentence (lower-cased) uses "filter" for picking rows or epochs ("filtered out the wake epochs",
/// "filtered the epochs to exclude wake"), not for a signal filter: it names no frequency and no kind of filter.
/// Seen in the Qwen2.5-Coder-1.5B CodeAct run (e54c8b8), Sleep 1_1-1_3: pandas row selections struck as filtering.
fn selects_rows(s: &str) -> bool {
    let selection = any(
        s,
        &["filtered out", "filtering out", "filtered for", "filtered by", " to exclude", " to keep", " to include"],
    );
    // Whole words for the short ones: "first" and "passed" name no filter.
    let signal = any_whole_word(s, &["hz", "fir", "iir"])
        || any(
            s,
            &["-pass", "bandpass", "highpass", "lowpass", "notch", "butterworth", "line noise", "cutoff", "cut-off"],
        );
    selection && !signal
}

/// A report's sentences: a full stop ends one only before a space or the end, so "40.0 Hz", "-0.2 s" and
/// "rec.edf" stay inside theirs.
fn sentences(report: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = report.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends = match c {
            '!' | '?' | '\n' => true,
            '.' => next.is_none_or(char::is_whitespace),
            _ => false,
        };
        if ends {
            out.push(&report[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&report[start..]);
    out.into_iter().map(str::trim).filter(|s| !s.is_empty()).collect()
}

/// Lower case with runs of whitespace as one space (how a quote of the task is recognised).
fn normalised(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The sentence without its paths and file names: "file_check/filtered.edf" names a file, it does not say
/// that anything was filtered (seen in the Qwen2.5-Coder-1.5B model-report run, 90e279d).
fn without_paths(s: &str) -> String {
    let is_path = |w: &str| {
        let w = w.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '(' | ')' | '`' | '"' | '\''));
        let file = w.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty() && (2..=4).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_lowercase())
        });
        w.contains('/') || w.contains('\\') || file
    };
    s.split(' ').filter(|w| !is_path(w)).collect::<Vec<_>>().join(" ")
}

/// The tool of a line copied from the report prompt's list of steps as having succeeded ("- round 5: filter → ok"):
/// such a line claims that tool's work (the model-report run at 90e279d listed a failed filter as ok).
fn listed_step(s: &str) -> Option<&str> {
    let (before, after) = s.split_once(" → ").or_else(|| s.split_once(" -> "))?;
    if !after.trim_start().starts_with("ok") {
        return None;
    }
    before.rsplit(|c: char| c.is_whitespace() || c == ':').find(|w| !w.is_empty())
}

/// What a report's sentences claim as done, in order, once per kind, leaving out sentences that quote `task`
/// (a report restating the instruction — "Detect the R-peaks of the ECG channel …" — claims nothing; seen
/// with Qwen2.5-Coder-1.5B).
pub fn claims(report: &str, task: &str) -> Vec<Claim> {
    let task = normalised(task);
    let mut out: Vec<Claim> = Vec::new();
    for sentence in sentences(report) {
        let lower = format!(" {} ", sentence.to_lowercase());
        if any(&lower, &NEGATIONS) {
            continue;
        }
        let quoted = normalised(sentence.trim_start_matches(|c: char| c == '-' || c == '*' || c.is_whitespace()));
        let quoted = quoted.strip_prefix("task:").map_or(quoted.as_str(), str::trim);
        if !task.is_empty() && quoted.len() >= 12 && task.contains(quoted) {
            continue;
        }
        let works = match listed_step(&lower) {
            Some(tool) => tool_work(tool).to_vec(),
            None => works_of(&without_paths(&lower)),
        };
        for work in works {
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

/// What an agent did and saw: the kinds of work its steps or code did, and every number its steps' arguments,
/// outputs and errors or its code and printed output hold (the values a report may state, with the task's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Done {
    pub works: BTreeSet<Work>,
    pub values: Vec<f64>,
}

/// What the BrainAgent's steps did (the work of those with status ok) and the numbers the model was shown:
/// every step's arguments, output and error, the shared state before each round, and the measured results
/// of the report's prompt (the outputs are short; the values are in the state's results).
///
/// The hybrid's code steps count as CodeAct's rounds do: the work of the code that ran in their blocks, and
/// the numbers their code and printed output hold.
pub fn done_by_tools(trace: &EegTrace) -> Done {
    let steps = || trace.rounds.iter().flat_map(|r| &r.executed);
    let mut works: BTreeSet<Work> =
        steps().filter(|s| s.status == "ok").flat_map(|s| tool_work(&s.tool).iter().copied()).collect();
    let blocks = CodeActTrace { rounds: steps().flat_map(|s| &s.code).map(round_of).collect(), ..Default::default() };
    works.extend(works_of_code(&blocks));
    let mut values: Vec<f64> = steps()
        .flat_map(|s| {
            let mut v = values_in(&s.args.to_string());
            v.extend(values_in(&s.observation.to_string()));
            v.extend(s.error.as_deref().map(values_in).unwrap_or_default());
            v
        })
        .collect();
    values.extend(trace.rounds.iter().flat_map(|r| values_in(&r.state_summary)));
    values.extend(values_in(&trace.measured));
    values.extend(done_by_code(&blocks).values);
    Done { works, values }
}

/// A hybrid code step's block as the CodeAct round it is to the check.
fn round_of(b: &crate::agent::eeg::trace::CodeBlock) -> Round {
    Round {
        code: Some(b.code.clone()),
        observation: b.observation.clone(),
        failed: b.failed,
        timed_out: b.timed_out,
        ..Default::default()
    }
}

/// The part of a round's code that ran: all of it without an error; before the failing statement when a
/// traceback names it (`File "<block N>", line L`: the block's first frame is its top-level statement);
/// nothing after a syntax error, a timeout or a traceback that names no line of the block.
fn code_that_ran(r: &Round) -> &str {
    let Some(code) = r.code.as_deref() else { return "" };
    if !r.failed {
        return code;
    }
    let last = error_line(&r.observation);
    let syntax = ["SyntaxError", "IndentationError", "TabError"];
    if r.timed_out || last.is_none_or(|l| syntax.iter().any(|e| l.starts_with(e))) {
        return "";
    }
    let line = r.observation.split("File \"<block ").nth(1).and_then(|rest| {
        let digits = rest.split("\", line ").nth(1)?;
        digits.split(|c: char| !c.is_ascii_digit()).next()?.parse::<usize>().ok()
    });
    match line {
        Some(l) if l > 1 => {
            let end = code.match_indices('\n').nth(l - 2).map_or(code.len(), |(i, _)| i);
            &code[..end]
        }
        _ => "",
    }
}

/// What the code that ran did (blocks without an error, and the statements before a block's failing one),
/// read from the calls it makes (MNE, SciPy, NumPy, YASA, NeuroKit2, pyedflib, pandas), and the numbers of that
/// code and of every observation.
pub fn done_by_code(trace: &CodeActTrace) -> Done {
    let mut values: Vec<f64> = trace.rounds.iter().flat_map(|r| values_in(&r.observation)).collect();
    values.extend(trace.rounds.iter().flat_map(|r| values_in(code_that_ran(r))));
    Done { works: works_of_code(trace), values }
}

fn works_of_code(trace: &CodeActTrace) -> BTreeSet<Work> {
    let mut out = BTreeSet::new();
    for code in trace.rounds.iter().map(code_that_ran).filter(|c| !c.is_empty()) {
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

/// The kinds of work `claims` name (`Work::name`), in order: what a re-ask and the trace say was claimed.
pub fn claimed_works(claims: &[Claim]) -> Vec<&'static str> {
    claims.iter().map(|c| c.work.name()).collect()
}

/// The claims of `report` that nothing in `done` supports (sentences quoting `task`, the instruction, claim
/// nothing), then the first sentence stating a value that neither `done` nor `task` holds.
pub fn ungrounded(report: &str, done: &Done, task: &str) -> Vec<Claim> {
    let mut out: Vec<Claim> = claims(report, task).into_iter().filter(|c| !done.works.contains(&c.work)).collect();
    let mut seen = values_in(task);
    seen.extend_from_slice(&done.values);
    if let Some(sentence) = values::unmeasured_value(report, &seen) {
        out.push(Claim { work: Work::Value, sentence });
    }
    out
}

/// Whether `report` repeats its prompt instead of reporting: it opens with the task's own first line (a
/// "Task:" label aside), or at least two of its lines, and at least half of them, are lines of `prompt` word
/// for word (short lines aside). Measured: Qwen2.5-Coder-1.5B answered the BrainAgent report prompt with
/// "Task: <the task> … Steps that ran: …" in 32 of the 54 suite instances at cc362ef, most to the token limit;
/// a report that quotes one line of the task is not an echo.
pub fn repeats_prompt(report: &str, task: &str, prompt: &str) -> bool {
    let opening = report.trim_start();
    let opening = opening.strip_prefix("Task:").unwrap_or(opening).trim_start();
    let first_task_line = task.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if first_task_line.len() >= 8 && opening.starts_with(first_task_line) {
        return true;
    }
    let asked: BTreeSet<&str> = prompt.lines().map(str::trim).filter(|l| l.len() >= 8).collect();
    let lines: Vec<&str> = report.lines().map(str::trim).filter(|l| l.len() >= 8).collect();
    let copied = lines.iter().filter(|l| asked.contains(*l)).count();
    copied >= 2 && 2 * copied >= lines.len()
}

/// What a stored instance's check reads: the model's own text and what its steps or code did. `trace` is the
/// instance's stored agent trace (BrainAgent or CodeAct, told apart by its `paradigm`), `output` the agent's
/// output (a CodeAct solution is the whole of it; a BrainAgent report's model text is in the trace). `None`
/// when the trace is neither.
pub fn stored(trace: &serde_json::Value, output: &str) -> Option<(String, Done)> {
    match trace.get("paradigm").and_then(serde_json::Value::as_str)? {
        "brainagent" | "hybrid" => {
            let t: EegTrace = serde_json::from_value(trace.clone()).ok()?;
            Some((t.report_text.clone(), done_by_tools(&t)))
        }
        "codeact" => {
            let t: CodeActTrace = serde_json::from_value(trace.clone()).ok()?;
            Some((output.to_string(), done_by_code(&t)))
        }
        _ => None,
    }
}

/// What a stored instance's agent was shown of what ran, read once to look its answers up in: every CodeAct
/// observation; every BrainAgent step's output and error, and the measured results its report carries. (Not
/// the code, the steps' arguments or the task: a value there was asked for, not measured.)
pub struct Outputs {
    /// The text, case-folded.
    folded: String,
    /// Its numbers ([`values_in`]).
    values: Vec<f64>,
}

impl Outputs {
    /// `None` when the trace is neither paradigm's.
    pub fn of(trace: &serde_json::Value) -> Option<Outputs> {
        use serde::Deserialize;
        let text = match trace.get("paradigm").and_then(serde_json::Value::as_str)? {
            "brainagent" | "hybrid" => {
                let t = EegTrace::deserialize(trace).ok()?;
                let steps = t.rounds.iter().flat_map(|r| &r.executed);
                let mut text: Vec<String> = steps
                    .flat_map(|s| {
                        let printed = s.code.iter().map(|b| printed(&b.observation));
                        [s.observation.to_string(), s.error.clone().unwrap_or_default()].into_iter().chain(printed)
                    })
                    .collect();
                text.push(t.measured);
                text.join("\n")
            }
            "codeact" => {
                let t = CodeActTrace::deserialize(trace).ok()?;
                t.rounds.iter().map(|r| printed(&r.observation)).collect::<Vec<_>>().join("\n")
            }
            _ => return None,
        };
        Some(Outputs { values: values_in(&text), folded: text.to_lowercase() })
    }

    /// Whether they show a parsed answer: a number they hold (as a report's value is held, [`values::held`]),
    /// a short text (a stage, a band, a channel: at most 64 characters) they contain, case-folded, a list whose
    /// every item they show. `None` where there is nothing to check this way: null, a boolean (the
    /// missing-file answer is about what is absent), an empty text or list, a long text (an explanation), an
    /// object.
    pub fn show(&self, answer: &serde_json::Value) -> Option<bool> {
        use serde_json::Value;
        match answer {
            Value::Number(n) => Some(values::held(n, &self.values)),
            Value::String(s) if !s.trim().is_empty() && s.chars().count() <= 64 => {
                Some(self.folded.contains(&s.trim().to_lowercase()))
            }
            Value::Array(items) if !items.is_empty() => {
                items.iter().map(|x| self.show(x)).try_fold(true, |all, x| Some(all && x?))
            }
            _ => None,
        }
    }
}

/// What a CodeAct observation shows of the code's results: without its tracebacks (they echo the code's lines:
/// "delta_power = …" is no delta band found) and without BrainLens's notes to the model.
fn printed(observation: &str) -> String {
    let mut out = Vec::new();
    let mut in_traceback = false;
    for line in observation.lines() {
        if line.starts_with("Traceback (most recent call last)") {
            in_traceback = true;
        } else if in_traceback {
            // The exception's own line ends it (unindented, after the frames).
            in_traceback = line.starts_with(' ') || line.is_empty();
        } else if !line.starts_with("Note:") {
            out.push(line);
        }
    }
    out.join("\n")
}

/// The ungrounded claims of a stored instance, checked again with the current rules ([`stored`]; `task` is
/// the case's instruction). `None` when the trace is neither paradigm's (nothing to check).
pub fn recheck(trace: &serde_json::Value, report: &str, task: &str) -> Option<Vec<Claim>> {
    let (text, done) = stored(trace, report)?;
    Some(ungrounded(&text, &done, task))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codeact_trace(observations: &[&str]) -> serde_json::Value {
        let rounds = observations.iter().map(|o| Round { observation: o.to_string(), ..Default::default() }).collect();
        serde_json::to_value(CodeActTrace { paradigm: "codeact".into(), rounds, ..Default::default() }).unwrap()
    }

    /// An answer is shown by what ran when an output holds it: not by the task's numbers or the code's.
    #[test]
    fn a_parsed_answer_is_looked_for_in_the_outputs_of_what_ran() {
        use serde_json::json;
        let traceback = "Traceback (most recent call last):\n  File \"<block 2>\", line 2, in <module>\n    delta_power = \
                         x[13.0]\n    ^^^^\nNameError: name 'x' is not defined\n\nNote: lines 1–1 of this block ran, delta 13.0";
        let trace = codeact_trace(&[
            "Peak: 10.25 Hz\nDominant band: Alpha",
            "se = 0.8734\nchannels ['EEG 001', 'EEG 010']",
            traceback,
        ]);
        let out = Outputs::of(&trace).unwrap();
        let shown = |v: serde_json::Value| out.show(&v);
        assert_eq!(shown(json!(10.25)), Some(true));
        assert_eq!(shown(json!(10.3)), Some(true), "rounded to the answer's decimals");
        assert_eq!(shown(json!(87.34)), Some(true), "a fraction as a percent");
        assert_eq!(shown(json!(13.0)), Some(false), "the top of the task's range is no output");
        assert_eq!(shown(json!("alpha")), Some(true), "text is compared case-folded");
        assert_eq!(shown(json!("delta")), Some(false), "a traceback's echoed code and BrainLens's notes are no output");
        assert_eq!(shown(json!(["EEG 010", "EEG 001"])), Some(true));
        assert_eq!(shown(json!(["EEG 010", "EEG 020"])), Some(false), "every item must be shown");
        for unchecked in [json!(false), json!(null), json!(""), json!([]), json!("x".repeat(65)), json!({"a": 1})] {
            assert_eq!(shown(unchecked.clone()), None, "{unchecked}");
        }
        assert!(Outputs::of(&json!({"paradigm": "other"})).is_none());
    }

    /// The echo of a report prompt is one; a report that quotes the task's instruction once is not.
    #[test]
    fn a_report_that_repeats_its_prompt_is_told_from_one_that_quotes_it() {
        let prompt = "Task:\nLoad the data file: data/hypnograms/sbj10.csv\n\nInstruction: Report the total sleep time as tst_min.\n\n\
                      Steps that ran:\n- round 1: load_hypnogram → ok\n- round 2: hypnogram_stats → ok\n\nMeasured results:\n- r1 TST 228\n";
        let echo = "Task:\nLoad the data file: data/hypnograms/sbj10.csv\n\nInstruction: Report the total sleep time as tst_min.\n\n\
                    Steps that ran:\n- round 1: load_hypnogram → ok\n- round 2: hypnog";
        let task =
            "Load the data file: data/hypnograms/sbj10.csv\n\nInstruction: Report the total sleep time as tst_min.";
        assert!(repeats_prompt(echo, task, prompt));
        // Qwen's form: the label and the task on one line, then the steps.
        assert!(repeats_prompt(
            "Task: Load the data file: data/hypnograms/sbj10.csv\n\nSteps that ran:\n- round 1: lo",
            task,
            prompt
        ));
        let middle = "Steps that ran:\n- round 1: load_hypnogram → ok\n- round 2: hypnogram_stats → ok\n";
        assert!(repeats_prompt(middle, task, prompt));
        let quoting =
            "Instruction: Report the total sleep time as tst_min.\nThe total sleep time is 228.0 minutes (tst_min).";
        assert!(!repeats_prompt(quoting, task, prompt));
        let citing =
            "The task was to load the data file data/hypnograms/sbj10.csv. The total sleep time is 228.0 minutes.";
        assert!(!repeats_prompt(citing, task, prompt));
    }

    /// The capable model's report of a run in which no tool ran (issue text): three claims, all ungrounded.
    #[test]
    fn claims_of_work_that_did_not_run() {
        let report = "The EEG data file data/eeg/rec.edf was successfully loaded. The EEG channels were filtered \
                      between 0.5 and 40 Hz. Welch PSDs were computed for each channel.";
        let c = ungrounded(report, &Done::default(), "");
        assert_eq!(
            c.iter().map(|c| c.work).collect::<Vec<_>>(),
            [Work::Load, Work::Filter, Work::Spectrum, Work::Value]
        );
        // With the steps that did it, and the band they were given, nothing is flagged.
        let done = Done { works: BTreeSet::from([Work::Load, Work::Filter, Work::Spectrum]), values: vec![0.5, 40.0] };
        assert!(ungrounded(report, &done, "").is_empty());
    }

    /// A step's output is short ("r1"); its values are in the state's results, which the report's prompt shows
    /// (`measured`) and the next round's state summary holds: a report citing them states nothing invented.
    #[test]
    fn a_brainagent_report_may_state_what_its_prompt_showed() {
        let trace: EegTrace = serde_json::from_value(serde_json::json!({
            "paradigm": "brainagent", "model": "m", "report_text": "", "calls": [], "changes": [], "outcome": "ok",
            "rounds": [{"round": 1, "state_summary": "results (measured): none", "thought": "", "plan": [],
                "done": false, "executed": [{"tool": "channel_stats", "args": {"view": "v1"}, "status": "ok",
                    "observation": {"id": "r1", "outlier_count": 0}}]}],
            "measured": "Measured results:\n- r1 channel variance: {\"per_channel\":{\"EEG 001\":542.3880277192354}}\n"
        }))
        .unwrap();
        let done = done_by_tools(&trace);
        assert!(ungrounded("The variance of EEG 001 is 542.39 µV².", &done, "").is_empty());
        let c = ungrounded("The variance of EEG 001 is 612.4 µV².", &done, "");
        assert_eq!(c.iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Value]);
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
            assert!(claims(s, "").is_empty(), "{s}: {:?}", claims(s, ""));
        }
    }

    /// Seen in the Qwen2.5-Coder-1.5B run of the suite (e73f70b): a restated instruction, "unfiltered", and
    /// decimals that cut a sentence in two were flagged as claims; a real claim next to them still is.
    #[test]
    fn quotes_of_the_task_words_inside_words_and_decimals_claim_nothing() {
        let task = "Use the EEG channels only. Band-pass filter them 0.5-40.0 Hz with a zero-phase FIR filter and \
                    save them as an EDF file named filtered_eeg.edf. Detect the R-peaks of the ECG channel \
                    (neurokit2's default cleaning and peak detection) and report the RMSSD as rmssd_ms, and the \
                    number of detected beats as beats.";
        let report = "Task: Detect the R-peaks of the ECG channel (neurokit2's default cleaning and peak detection) \
                      and report the RMSSD as rmssd_ms, and the number of detected beats as beats.\n\
                      - Band-pass filter them 0.5-40.0 Hz with a zero-phase FIR filter and save them as an EDF \
                      file named filtered_eeg.edf.\n\
                      The Welch PSD of the unfiltered signal is in r1.";
        assert!(
            ungrounded(report, &Done::default(), task).is_empty(),
            "{:?}",
            ungrounded(report, &Done::default(), task)
        );
        let real = "Channel EEG 025 was band-pass filtered from 1 to 30 Hz and epoched from -0.2 to 0.5 s.";
        let c = ungrounded(real, &Done::default(), task);
        // The band and the window are in neither the task nor any step: values no step measured.
        assert_eq!(c.iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Filter, Work::Epochs, Work::Value]);
        assert_eq!(c[0].sentence, real.trim_end_matches('.'));
        // Without the task, the quoted instruction's past participle is a claim.
        assert!(!ungrounded(report, &Done::default(), "").is_empty());
    }

    /// The Qwen2.5-Coder-1.5B model-report run (0769874), Neurocognitive 3_1: no step computed an event power,
    /// and the report said it was calculated.
    #[test]
    fn an_event_power_stated_as_computed_is_spectral_work() {
        let s = "The mean squared amplitude from -0.5 to 0 s and from 0 to 0.5 s around each visual or auditory \
                 event was calculated, summed over events and channels, and the percent change (post - pre) / pre \
                 was computed.";
        assert_eq!(claims(s, "").iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Spectrum]);
        assert!(claims("Take the mean squared amplitude around each event.", "").is_empty());
    }

    /// The Qwen2.5-Coder-1.5B CodeAct run (e54c8b8), Sleep 1_2 and 1_3: the code picked rows of a hypnogram
    /// with pandas, and the report's "filtered out the wake epochs" was struck as a signal filter.
    #[test]
    fn picking_rows_is_not_a_signal_filter() {
        for s in [
            "The code loaded the hypnogram data, filtered out the wake epochs, and then calculated the total sleep time",
            "The code loaded the hypnogram data, filtered the epochs to exclude wake epochs, and then calculated it",
            "The table was filtered by stage.",
            "The code filtered out the wake epochs before the first sleep epoch and passed the rest on.",
        ] {
            assert!(claims(s, "").iter().all(|c| c.work != Work::Filter), "{s}: {:?}", claims(s, ""));
        }
        // A frequency or a kind of filter keeps the claim (the same run, Foundational 1_2).
        for s in [
            "The code filtered the EEG data using a band-pass filter from 0.5 to 40 Hz, computed the Welch PSD",
            "The 50 Hz line noise was filtered out.",
            "The drifts were filtered out with a 0.5-Hz FIR.",
            "The data were filtered to keep 8-13Hz.",
            "The channels were filtered to exclude drifts with a high-pass filter.",
            "The EEG was filtered.",
        ] {
            assert!(claims(s, "").iter().any(|c| c.work == Work::Filter), "{s}: {:?}", claims(s, ""));
        }
    }

    /// The Qwen2.5-Coder-1.5B model-report run (90e279d), Foundational case 7_1: the report named the artifact's
    /// path and copied the list of steps with the failed filter as ok. The path claims nothing; the line does.
    #[test]
    fn a_path_claims_nothing_and_a_step_listed_as_ok_claims_its_work() {
        let report = "The final report for this task is as follows:\n\n- artifact_path: file_check/filtered.edf\n\n\
                      The steps listed as ok were:\n- round 1: inspect_file → ok\n- round 5: filter → ok";
        let done = Done { works: BTreeSet::from([Work::Load]), values: vec![] };
        let c = ungrounded(report, &done, "");
        assert_eq!(
            c.iter().map(|c| (c.work, c.sentence.as_str())).collect::<Vec<_>>(),
            [(Work::Filter, "- round 5: filter → ok")]
        );
        assert!(claims("The EEG was saved as filtered.edf in out/filtered/.", "").is_empty());
        // A step listed as failed claims nothing; one that did run is grounded.
        assert!(claims("- round 5: filter → failed: give a high-pass", "").is_empty());
        let done = Done { works: BTreeSet::from([Work::Load, Work::Filter]), values: vec![] };
        assert!(ungrounded(report, &done, "").is_empty());
    }

    #[test]
    fn code_that_ran_counts_and_code_that_failed_does_not() {
        let round = |code: &str, failed: bool| Round { code: Some(code.into()), failed, ..Default::default() };
        let trace = CodeActTrace {
            rounds: vec![
                round("raw = mne.io.read_raw_edf('/input/data/rec.edf', preload=True)", false),
                round("raw.filter(1, 30)\npsd = raw.compute_psd(method='welch')", true),
            ],
            ..Default::default()
        };
        assert_eq!(done_by_code(&trace).works, BTreeSet::from([Work::Load]));
        let c = ungrounded(
            "The data were loaded and band-pass filtered; Welch PSDs were computed.",
            &done_by_code(&trace),
            "",
        );
        assert_eq!(c.iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Filter, Work::Spectrum]);
    }

    /// The Qwen CodeAct run's block that failed at line 40 (`np.trapz`) had loaded, filtered and computed the
    /// PSD in the lines before: that work was done. A syntax error runs nothing. "no filtering" claims none.
    #[test]
    fn statements_before_the_failing_one_ran_and_a_syntax_error_runs_nothing() {
        let code = "raw = mne.io.read_raw_edf('/input/rec.edf', preload=True)\nraw.filter(0.1, 30)\n\
                    psd = raw.compute_psd(method='welch')\np = np.trapz(psd, f)\nraw.resample(100)";
        let tb = "Filtering raw data\nTraceback (most recent call last):\n  File \"<block 1>\", line 4, in <module>\n    \
                  p = np.trapz(psd, f)\n  File \"/venv/numpy/__init__.py\", line 792, in __getattr__\n\
                  AttributeError: module 'numpy' has no attribute 'trapz'\n\nNote: numpy.trapz does not exist here.";
        let failed = Round { code: Some(code.into()), failed: true, observation: tb.into(), ..Default::default() };
        let trace = CodeActTrace { rounds: vec![failed.clone()], ..Default::default() };
        assert_eq!(done_by_code(&trace).works, BTreeSet::from([Work::Load, Work::Filter, Work::Spectrum]));
        let syntax = Round {
            observation: "  File \"<block 1>\", line 4\n    from scipy\n              ^\nSyntaxError: invalid syntax"
                .into(),
            ..failed
        };
        assert!(done_by_code(&CodeActTrace { rounds: vec![syntax], ..Default::default() }).works.is_empty());
        let report = "The Welch PSD of channel Fp1 is computed using 2-s Hann windows, 50% overlap, and no filtering.";
        assert_eq!(claims(report, "").iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Spectrum]);
    }
}
