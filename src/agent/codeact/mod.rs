//! The CodeAct paradigm: the model answers each round with `<execute>python</execute>` or
//! `<solution>report</solution>`; code runs in one persistent sandboxed kernel per instance; the observation
//! (stdout + last expression + traceback, or a success message when silent) is cut to 8,000 characters; at
//! most 20 rounds; two failures in a row with the same error (or two replies without an action) stop the
//! loop; the last round (or the stop) demands a `<solution>`; the history keeps the last 3 (reply,
//! observation) pairs.

use super::grounding::{self, Claim};
use crate::llm::{ChatModel, ChatRequest, ChatResponse, LlmError, Message, Repetition, ResponseFormat};
use crate::sandbox::kernel::Kernel;
use crate::util::cancel::Cancel;

pub mod trace;
pub use trace::{CodeActTrace, Resent, Round, SolutionAgain, error_line};

#[derive(Debug, Clone)]
pub struct Settings {
    pub max_rounds: usize,
    pub exec_timeout_s: f64,
    pub observation_chars: usize,
    pub history_pairs: usize,
    pub max_tokens: u32,
    pub temperature: f32,
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_rounds: 20,
            exec_timeout_s: 150.0,
            observation_chars: 8000,
            history_pairs: 3,
            max_tokens: 768,
            temperature: 0.0,
            seed: 0,
        }
    }
}

pub struct Outcome {
    pub report: String,
    pub trace: CodeActTrace,
    pub failure: Option<LlmError>,
}

const SYSTEM: &str = "You are a careful scientific programmer analysing EEG, sleep and physiological data in \
BrainLens's CodeAct sandbox. Each turn, reply with exactly one of two things. To run Python code in a \
persistent session (variables survive between turns; there is no network), put the code between <execute> and \
</execute>, for example:\n\
<execute>\nimport os\nfor folder, _, names in os.walk(\"/input\"):\n    print(folder, names)\n</execute>\n\
When you have the answer, put your final report between <solution> and </solution>. The task's files are under /input, \
which is also the working directory (read-only): a path given as data/x.edf opens as data/x.edf or /input/data/x.edf. \
Write files you are asked for to /workspace/file_check/ and report them as /workspace/file_check/<name>. \
Keep each block short and import only what it uses. Print the values you need to see; state every requested value with the name the task gives it in the report. \
If the data file does not exist, say so in the solution and report no values.";

/// How the current MNE does what older examples do with removed functions, naming them. Qwen2.5-Coder-1.5B
/// imports the names it reads here (73 imports of them in 148 blocks at b45efb0; the kernel leaves the unused
/// ones out). Without the names the suite scored 7.25 (4c5d7af: 6 such imports) against 9.23 with them
/// (b45efb0), two instances apart: the rule fixed before the runs kept them (docs/bench.md).
const MNE_API: &str = "MNE 1.13's API: raw = mne.io.read_raw_edf(path, preload=True); raw.filter(l_freq, h_freq); \
raw.set_eeg_reference(\"average\"); raw.resample(sfreq); spectrum = raw.compute_psd(method=\"welch\", fmin=..., fmax=...) \
then psds, freqs = spectrum.get_data(return_freqs=True) (V²/Hz); for arrays mne.time_frequency.psd_array_welch(x, sfreq, \
fmin=..., fmax=...) and mne.filter.filter_data(x, sfreq, l_freq, h_freq). mne.time_frequency.psd_welch and \
mne.filter.bandpass_filter no longer exist; MNE's Welch takes n_fft, n_per_seg and n_overlap (samples). SciPy 1.17 and NumPy 2.4: scipy.signal.windows.hann, \
scipy.integrate.trapezoid and simpson, numpy.trapezoid (scipy.signal.hann, trapz and simps no longer exist).";

/// The system prompt: the rules, then the environment as it is (import names and the pinned versions of
/// assets/python/codeact.lock) and the MNE calls that replaced removed ones.
pub fn system() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let packages: Vec<String> = crate::sandbox::CODEACT_PACKAGES
            .iter()
            .map(|(pip, import)| {
                let v = crate::sandbox::codeact_version(pip).unwrap_or("?");
                if pip.eq_ignore_ascii_case(import) {
                    format!("{import} {v}")
                } else {
                    format!("{import} {v} (pip {pip})")
                }
            })
            .collect();
        format!("{SYSTEM}\n\nPython 3.11; import names and versions: {}.\n{MNE_API}", packages.join(", "))
    })
}

/// The code of an `<execute>` block: a Markdown fence inside it (```python … ```) is taken off, and anything
/// after the closing fence (prose) left out.
pub fn unfence(code: &str) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let Some(open) = lines.iter().position(|l| l.trim_start().starts_with("```")) else {
        return code.to_string();
    };
    // Text before an opening fence is prose only when the fence opens the block's code.
    let before_is_code = lines[..open].iter().any(|l| !l.trim().is_empty());
    if before_is_code {
        // A closing fence after code: keep the code before it.
        return lines[..open].join("\n");
    }
    let rest = &lines[open + 1..];
    let close = rest.iter().position(|l| l.trim_start().starts_with("```")).unwrap_or(rest.len());
    rest[..close].join("\n")
}

/// The code of a reply cut at the token limit, and a note for the observation saying what was left out. A
/// block of lines repeated three or more times in a row (a generation loop: Qwen2.5-Coder-1.5B wrote the same
/// imports until the limit in 2 of its first 8 suite instances) is kept once and the rest left out; otherwise
/// the unfinished last line is left out.
pub fn cut_reply_code(code: &str, max_tokens: u32) -> (String, String) {
    let lines: Vec<&str> = code.lines().collect();
    let n = lines.len();
    for start in 0..n {
        for period in 1..=12.min(n - start) {
            let block = &lines[start..start + period];
            if block.iter().all(|l| l.trim().is_empty()) {
                continue;
            }
            let mut copies = 1;
            while start + (copies + 1) * period <= n
                && lines[start + copies * period..start + (copies + 1) * period] == *block
            {
                copies += 1;
            }
            if copies >= 3 && copies * period >= 6 {
                let note = format!(
                    "Note: your reply reached the {max_tokens}-token limit repeating lines {}–{} {copies} times; \
                     they ran once and the rest of the reply was left out.",
                    start + 1,
                    start + period
                );
                return (lines[..start + period].join("\n"), note);
            }
        }
    }
    let note = format!(
        "Note: your reply reached the {max_tokens}-token limit; its unfinished last line was left out. Write \
         shorter blocks and import only what the block uses."
    );
    (lines[..n.saturating_sub(1)].join("\n"), note)
}

/// The code a reply asks to run (fence taken off; cut as [`cut_reply_code`] when the reply reached the token
/// limit, with its note); none for an empty block.
pub fn executable(resp: &crate::llm::ChatResponse, max_tokens: u32) -> Option<(String, Option<String>)> {
    let code = unfence(&tagged(&resp.text, "execute")?);
    if code.trim().is_empty() {
        return None;
    }
    Some(if resp.finish_reason == "length" {
        let (code, note) = cut_reply_code(&code, max_tokens);
        (code, Some(note))
    } else {
        (code, None)
    })
}

/// When a reply's code is that of an earlier round: that round ([`resent_note`] says what to tell the model).
/// Qwen2.5-Coder-1.5B at temperature 0 resent its failed block verbatim (the note on the error notwithstanding) in most of its
/// first 27 suite instances, and re-ran a block that had printed its answer for six rounds instead of
/// answering.
fn resent<'a>(code: &str, rounds: &'a [Round]) -> Option<&'a Round> {
    // Blank and comment lines change nothing (the model copies the history's comment line with other line
    // numbers). A block that failed part-way is shown to the model from its failing line on: that part sent
    // again, with or without imports that already ran before it, is the same code.
    let mine = statements(code);
    // What `mine` sends of a block that stopped at its line `at`: the code from that line on, without imports
    // that already ran before it.
    let sent = |c: &str, at: usize| {
        let ran = statements(&c.lines().take(at.saturating_sub(1)).collect::<Vec<_>>().join("\n"));
        let skip = mine.iter().take_while(|l| is_import(l) && ran.contains(l)).count();
        (mine[skip..].to_vec(), statements(&from_line(c, at)))
    };
    let same = rounds.iter().rev().find(|r| {
        let Some(c) = r.code.as_deref() else { return false };
        statements(c) == mine
            || r.stopped_at.is_some_and(|at| {
                let (sent, rest) = sent(c, at);
                sent == rest
            })
    });
    // The last block's failing statement sent again unchanged, alone or with some of what followed it, fails
    // again in the same session (measured at e54c8b8: `raw.filter(…, fir_design='bandpass')` resent alone
    // after the note on it, in 3 instances). Not an import: one the block does not use is left out and runs.
    same.or_else(|| {
        let last = rounds.iter().rev().find(|r| r.code.is_some())?;
        let (sent, rest) = sent(last.code.as_deref()?, last.stopped_at?);
        (!sent.is_empty() && !is_import(&sent[0]) && rest.starts_with(&sent)).then_some(last)
    })
}

/// What to tell the model when its reply resent the code of `earlier`: what that code printed, or how it failed.
fn resent_note(earlier: &Round) -> String {
    let n = earlier.round;
    if !earlier.failed {
        let printed: String = earlier.observation.chars().take(600).collect();
        return format!(
            "Note: the code of round {n} already ran without an error and printed:\n{printed}\n\
             Do not send that code again: send new code for what is still missing, or your <solution>."
        );
    }
    let mut text = error_line(&earlier.observation).unwrap_or("an error").to_string();
    for note in earlier.observation.lines().filter(|l| l.starts_with("Note:")) {
        text.push('\n');
        text.push_str(note);
    }
    format!(
        "Note: the code of round {n} failed with: {text}\nSent again it fails again: send changed code that \
         avoids this error, or your <solution>."
    )
}

/// The note after a block that ran without an error was sent again although the model had been told it ran.
/// Measured at 0cc7832: in 31 of 54 instances Qwen2.5-Coder-1.5B answered that note with the same block, and
/// went on re-running it until the last round (152 such rounds of 269).
fn repeated_note(of: usize) -> String {
    format!(
        "Note: this is the code of round {of} again, sent after the note that it had run; it printed what it printed \
         then. The next turn is the last: reply with your <solution>, stating the values your code printed."
    )
}

/// Asks the model again in a round: the same request with `note` added to its last message (the task or the
/// last observation). Not a second turn after the rejected reply: asked in a second turn, Qwen2.5-Coder-1.5B at
/// temperature 0 answered with the same reply word for word (the resent block of Foundational case 1_2 and its
/// solution at ed45daa; the BrainAgent's report re-asks likewise). The answer's tokens and seconds count to
/// the round.
fn ask_again(
    model: &dyn ChatModel,
    cancel: &Cancel,
    req: &ChatRequest,
    note: String,
    r: &mut Round,
) -> Result<ChatResponse, LlmError> {
    let mut again = req.clone();
    if let Some(last) = again.messages.last_mut() {
        last.content = format!("{}\n\n{note}", last.content);
    }
    let second = model.chat_with(&again, cancel, &mut |_| {})?;
    r.prompt_tokens += second.usage.prompt_tokens;
    r.completion_tokens += second.usage.completion_tokens;
    r.model_seconds += second.latency_ms / 1000.0;
    Ok(second)
}

/// The note for a solution with `claims` of work no code did; in the last round only a solution can follow.
/// Measured: Qwen2.5-Coder-1.5B at 32ec685 wrote "the code successfully loaded the data, filtered it, computed
/// the Welch PSD" with a value after three failed blocks (6 such solutions in 54 instances).
fn unsupported_solution(claims: &[Claim], last: bool) -> String {
    let how = if last { "Reply with" } else { "Send <execute> code that does it, or" };
    format!(
        "Note: an earlier answer was a solution that claimed work no code that ran did ({}). {how} a <solution> that \
         states only what your code did and printed and says plainly what was not done.",
        grounding::claimed_works(claims).join(", ")
    )
}

/// The text between `<tag>` and `</tag>` (the closing tag may be missing when a stop string cut it).
pub fn tagged(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let start = text.find(&open)? + open.len();
    let rest = &text[start..];
    let end = rest.find(&format!("</{tag}>")).unwrap_or(rest.len());
    Some(rest[..end].trim_matches('\n').to_string())
}

fn sha(s: &str) -> String {
    crate::util::hash::sha256_hex(s.as_bytes())
}

/// The observation of one execution: stdout, the result, the traceback; a success message when silent; cut.
pub fn observation(e: &crate::sandbox::kernel::Execution, limit: usize) -> String {
    let mut s = e.stdout.clone();
    if let Some(r) = &e.result {
        s.push_str(r);
        s.push('\n');
    }
    if let Some(err) = &e.error {
        s.push_str(err);
        if let Some(hint) = environment_hint(err) {
            s.push_str(&format!("\n{hint}\n"));
        }
        // What the kernel found (a module's names, a signature), unless a removed name's replacement is known.
        if let Some(help) = e.help.as_ref().filter(|_| removed_hint(last_line(err)).is_none()) {
            s.push_str(&format!("\nNote: {help}\n"));
        }
        if let Some((ran_to, at)) = kept_part(e) {
            let bound = bound_names(&e.defined).map(|n| format!(" and bound {n}")).unwrap_or_default();
            s.push_str(&format!(
                "\nNote: lines 1–{ran_to} of this block ran without an error{bound}; the session keeps what they \
                 did, so do not send them again. The block stopped at line {at}: send the code from line {at} on, \
                 changed to avoid the error.\n"
            ));
        }
    }
    if s.trim().is_empty() {
        s = "Executed successfully (no output).".into();
    }
    if !e.skipped.is_empty() {
        // First, so no cut of a long output hides it.
        let one = e.skipped.len() == 1;
        let (names, verb, it) =
            (e.skipped.join(", "), if one { "does" } else { "do" }, if one { "it" } else { "them" });
        let imports = if one { "the import was" } else { "the imports were" };
        s = format!(
            "Note: {names} {verb} not exist in this environment and this block does not use {it}: {imports} left \
             out and the block ran on. Do not import {it} again.\n{s}"
        );
    }
    if s.chars().count() > limit {
        let cut: String = s.chars().take(limit).collect();
        s = format!("{cut}\n[observation cut to {limit} characters]");
    }
    s
}

/// When a block failed after some of its top-level statements ran (the kernel says which): the last line of
/// those that ran and the first line of the statement that raised. Not after a restart (the namespace is gone).
fn kept_part(e: &crate::sandbox::kernel::Execution) -> Option<(usize, usize)> {
    let (ran_to, at) = (e.ran_to?, e.stopped_at?);
    (e.error.is_some() && !e.restarted && ran_to < at).then_some((ran_to, at))
}

fn bound_names(names: &[String]) -> Option<String> {
    (!names.is_empty()).then(|| names.join(", "))
}

/// The lines of `code` from line `at` (1-based) on: what of a failed block is still to run.
fn from_line(code: &str, at: usize) -> String {
    code.lines().skip(at.saturating_sub(1)).collect::<Vec<_>>().join("\n")
}

/// A block's lines that do something (blank and comment lines left out), trimmed at the end.
fn statements(code: &str) -> Vec<String> {
    code.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| l.trim_end().to_string())
        .collect()
}

fn is_import(line: &str) -> bool {
    line.starts_with("import ") || line.starts_with("from ")
}

/// Whether a block does nothing but import: every statement an `import`/`from` line (`;`-joined ones and a
/// parenthesised list of names included).
fn only_imports(code: &str) -> bool {
    let mut open = false;
    let mut any = false;
    for line in statements(code) {
        let line = line.trim();
        if open {
            open = !line.contains(')');
            continue;
        }
        if !line.split(';').map(str::trim).filter(|p| !p.is_empty()).all(is_import) {
            return false;
        }
        any = true;
        open = line.contains('(') && !line.contains(')');
    }
    any
}

/// The note after a block that only imported. Measured at e54c8b8: 19 of Qwen2.5-Coder-1.5B's 148 blocks, in 9
/// instances, imported and did nothing else (Foundational 4_1 sent four such blocks and never read the file).
fn imports_only_note(code: &str) -> Option<String> {
    only_imports(code).then(|| {
        "Note: this block only imported; nothing was computed yet. The imports stay in the session: send the \
         code that does the task."
            .to_string()
    })
}

/// After a block that ran without an error: when the block before it had stopped part-way and this one does not
/// reach that block's last line, a note that the rest of it has not run. Measured at 9eb9e84: Qwen2.5-Coder-1.5B
/// answered a block stopped at its line 6 (`from scipy.signal import hann`) with that line fixed alone, and
/// then lost the rest of its analysis.
fn rest_not_run(code: &str, rounds: &[Round]) -> Option<String> {
    let before = rounds.iter().rev().find(|r| r.code.is_some())?;
    let (at, c) = (before.stopped_at?, before.code.as_deref()?);
    let rest = statements(&from_line(c, at));
    let last = rest.last()?;
    (rest.len() > 1 && !statements(code).contains(last)).then(|| {
        format!(
            "Note: round {}'s block stopped at its line {at}; its lines after that have not run. Send them \
             (changed where needed), or your <solution> if nothing more is needed.",
            before.round
        )
    })
}

/// The first line of a block shown in the model's history in place of the lines of it that ran before it
/// failed.
const KEPT_COMMENT: &str = "# Lines 1–";

/// A failed block as the model's history shows it when some of it ran: the lines that ran as one comment,
/// then the code from the statement that raised. Measured at 0496cdd: Qwen2.5-Coder-1.5B wrote the whole task
/// as one block of 40 lines or more, it failed at its first wrong call, and the next block repeated everything
/// before it (its own history is what it copies).
fn kept_history(code: &str, ran_to: usize, at: usize, defined: &[String]) -> String {
    let verb = if defined.len() == 1 { "is" } else { "are" };
    let bound = bound_names(defined).map(|n| format!("; {n} {verb} defined")).unwrap_or_default();
    format!("<execute>\n{KEPT_COMMENT}{ran_to} ran without an error{bound}.\n{}\n</execute>", from_line(code, at))
}

/// Names older examples use that the pinned environment no longer has (checked on assets/python/codeact.lock:
/// SciPy 1.17, NumPy 2.4, MNE 1.13), with what replaced them: (module, name, use instead). Seen with
/// Qwen2.5-Coder-1.5B on the suite: the same removed import resent round after round.
const REMOVED: [(&str, &str, &str); 8] = [
    ("scipy.signal", "hann", "scipy.signal.windows.hann"),
    ("scipy.signal", "hanning", "scipy.signal.windows.hann"),
    ("scipy.integrate", "trapz", "scipy.integrate.trapezoid (or numpy.trapezoid)"),
    ("scipy.integrate", "simps", "scipy.integrate.simpson"),
    ("numpy", "trapz", "numpy.trapezoid"),
    ("mne.time_frequency", "psd_welch", "raw.compute_psd(method=\"welch\") or mne.time_frequency.psd_array_welch"),
    (
        "mne.time_frequency",
        "psd_multitaper",
        "raw.compute_psd(method=\"multitaper\") or mne.time_frequency.psd_array_multitaper",
    ),
    ("mne.filter", "bandpass_filter", "mne.filter.filter_data"),
];

/// A line for the observation when a traceback's last line names a removed function ("cannot import name
/// 'hann' from 'scipy.signal'", "module 'numpy' has no attribute 'trapz'"): what to use instead. SciPy's
/// Welch keywords given to MNE's (6 of the first 36 failed blocks of the Qwen run) get MNE's names; an
/// attribute a Raw object does not have (`raw.var`, `raw.variance`, `raw.events`: 4 of the Qwen run's
/// instances) gets what a Raw has, as does `find_events` given an `event_id`; a missing module, the packages
/// there are; `fir_design='bandpass'`, what the parameter is.
pub fn environment_hint(traceback: &str) -> Option<String> {
    let last = last_line(traceback);
    removed_hint(last)
        .or_else(|| {
            let scipy_keywords = last.contains("nperseg") || last.contains("noverlap");
            (last.contains("unexpected keyword argument") && scipy_keywords).then(|| {
                "Note: MNE's Welch takes n_fft, n_per_seg and n_overlap (samples), not SciPy's nperseg and noverlap."
                    .to_string()
            })
        })
        .or_else(|| {
            // A package the environment lacks (Qwen asked for neurokit2 twice running): what it has.
            let missing = last.strip_prefix("ModuleNotFoundError: No module named ")?.trim_matches('\'');
            let have: Vec<&str> = crate::sandbox::CODEACT_PACKAGES.iter().map(|(_, import)| *import).collect();
            Some(format!(
                "Note: {missing} is not installed and cannot be (no network); the environment has {}.",
                have.join(", ")
            ))
        })
        .or_else(|| {
            // MNE's design method taken for the band type (8 of the 59 failed blocks at 0cc7832).
            last.contains("'fir_design' parameter").then(|| {
                "Note: raw.filter(l_freq, h_freq) is a band-pass already; fir_design is the FIR design method \
                 ('firwin', the default, or 'firwin2'), not the kind of band: leave it out."
                    .to_string()
            })
        })
        .or_else(|| {
            let events = last.contains("find_events() got an unexpected keyword argument");
            let raw_attr = last.starts_with("AttributeError: 'Raw") && last.contains("object has no attribute");
            (raw_attr || events).then(|| {
                "Note: an MNE Raw object has get_data() (channels × samples, in V), ch_names, info[\"sfreq\"], times, \
             n_times and annotations (events: mne.events_from_annotations(raw)); compute statistics with numpy \
             on raw.get_data()."
                    .to_string()
            })
        })
}

/// The replacement of a removed name that a traceback's last line names (`REMOVED`).
fn removed_hint(last: &str) -> Option<String> {
    REMOVED.iter().find_map(|(module, name, instead)| {
        let import = format!("cannot import name '{name}' from '{module}'");
        let attribute = format!("module '{module}' has no attribute '{name}'");
        (last.contains(&import) || last.contains(&attribute))
            .then(|| format!("Note: {module}.{name} does not exist in this environment; use {instead}."))
    })
}

/// A traceback's last line (the exception and its message).
fn last_line(traceback: &str) -> &str {
    traceback.trim().lines().last().unwrap_or("")
}

fn last_error_line(e: &crate::sandbox::kernel::Execution) -> Option<String> {
    e.error.as_deref().map(|t| last_line(t).to_string())
}

/// One round's request: the task, the last `history_pairs` (reply, observation) pairs, and the actions the
/// reply may open with (code first, a solution at the last turn).
fn round_request(task: &str, history: &[(String, String)], s: &Settings, last: bool, no_code_yet: bool) -> ChatRequest {
    let mut messages = vec![Message::system(system()), Message::user(task.to_string())];
    for (reply, obs) in history.iter().rev().take(s.history_pairs).rev() {
        messages.push(Message::assistant(reply.clone()));
        messages.push(Message::user(format!("Observation:\n{obs}")));
    }
    if last {
        messages.push(Message::user(
            "This is the last turn: reply now with your final report between <solution> and </solution>.",
        ));
    }
    ChatRequest {
        temperature: s.temperature,
        max_tokens: s.max_tokens,
        seed: Some(s.seed),
        stop: vec!["</execute>".into(), "</solution>".into()],
        // A local model's reply always opens with an action (remote models are unconstrained): the first
        // one runs code (a solution before any observation could only report unmeasured values), the
        // last one answers; code may repeat itself legitimately, so no repetition control.
        format: ResponseFormat::Tagged {
            tags: if last {
                vec!["solution".into()]
            } else if no_code_yet {
                vec!["execute".into()]
            } else {
                vec!["execute".into(), "solution".into()]
            },
        },
        repetition: Some(Repetition::off()),
        ..ChatRequest::new(messages)
    }
}

/// The outcome of a loop whose model call failed (its class decides whether the instance is rerun).
fn model_failed(mut trace: CodeActTrace, kernel_restarts: u32, e: LlmError) -> Outcome {
    trace.outcome = crate::agent::outcome_of(e.class).into();
    trace.error = Some(e.to_string());
    trace.kernel_restarts = kernel_restarts;
    Outcome { report: String::new(), trace, failure: Some(e) }
}

/// Records in round `r` what a block that ran did: its observation (with the notes on code left unrun, a
/// block of imports alone, a cut reply), its flags and its code. The history's version of the reply when it
/// differs from what the model sent: the part that ran, when an error stopped the block.
fn observe(
    r: &mut Round,
    code: String,
    cut_note: Option<String>,
    e: &crate::sandbox::kernel::Execution,
    s: &Settings,
    earlier: &[Round],
) -> Option<String> {
    let mut sent = None;
    if let Some((ran_to, at)) = kept_part(e) {
        sent = Some(kept_history(&code, ran_to, at, &e.defined));
        r.stopped_at = Some(at);
    }
    r.observation = observation(e, s.observation_chars);
    if e.error.is_none()
        && let Some(note) = rest_not_run(&code, earlier).or_else(|| imports_only_note(&code))
    {
        r.observation = format!("{}\n{note}", r.observation.trim_end());
    }
    if let Some(note) = cut_note {
        r.observation = format!("{note}\n{}", r.observation);
    }
    r.failed = e.error.is_some();
    r.timed_out = e.timed_out;
    r.restarted = e.restarted;
    r.seconds = e.seconds;
    r.code_sha256 = Some(sha(&code));
    r.code = Some(code);
    sent
}

/// The observation of a reply that neither ran code nor answered. An empty block (Qwen2.5-Coder-1.5B sent
/// `<execute>` and stopped in 5 rounds at 4c5d7af) runs nothing: it is a reply without an action too.
fn no_action_observation(reply: &str) -> String {
    if tagged(reply, "execute").is_some() {
        "The <execute> block was empty: nothing ran. Send code for what is still missing, or your <solution>.".into()
    } else {
        "Reply with <execute>code</execute> or <solution>report</solution>.".into()
    }
}

/// Runs the loop on one task with `kernel` (already started in the instance's sandbox).
pub fn run(query: &str, kernel: &mut Kernel, model: &dyn ChatModel, cancel: &Cancel, s: &Settings) -> Outcome {
    let mut trace = CodeActTrace {
        paradigm: "codeact".into(),
        model: model.name(),
        sampling: model.sampling().unwrap_or_default(),
        outcome: "ok".into(),
        ..Default::default()
    };
    let task = format!("{query}\n\n(Files: paths are relative to /input.)");
    let mut history: Vec<(String, String)> = Vec::new();
    let mut previous_error: Option<String> = None;
    let mut force = false;
    let mut report = None;
    for round in 1..=s.max_rounds {
        let last = round == s.max_rounds || force;
        let req = round_request(&task, &history, s, last, trace.rounds.iter().all(|r| r.code.is_none()));
        let resp = match model.chat_with(&req, cancel, &mut |_| {}) {
            Ok(r) => r,
            Err(e) => return model_failed(trace, kernel.restarts, e),
        };
        let mut r = Round {
            round,
            prompt_tokens: resp.usage.prompt_tokens,
            completion_tokens: resp.usage.completion_tokens,
            model_seconds: resp.latency_ms / 1000.0,
            ..Default::default()
        };
        let mut code = executable(&resp, s.max_tokens);
        // Resent code is not run again: the model is asked once more in the round, told so.
        let sent_before = code.as_ref().filter(|_| !last).and_then(|(c, _)| resent(c, &trace.rounds));
        let resp = match sent_before {
            None => resp,
            Some(earlier) => {
                r.resent = Some(Resent { of_round: earlier.round, reply: resp.text.clone() });
                match ask_again(model, cancel, &req, resent_note(earlier), &mut r) {
                    Ok(second) => second,
                    Err(e) => return model_failed(trace, kernel.restarts, e),
                }
            }
        };
        // A solution claiming work that no code that ran did is answered once an instance, in its round: the
        // model is told which work it claimed, and may run the code for it (not in the last round) or answer again.
        let claimed = match tagged(&resp.text, "solution") {
            Some(sol) if r.resent.is_none() && !trace.rounds.iter().any(|x| x.solution_again.is_some()) => {
                grounding::ungrounded(&sol, &grounding::done_by_code(&trace), query)
            }
            _ => Vec::new(),
        };
        let resp = if claimed.is_empty() {
            resp
        } else {
            let told = unsupported_solution(&claimed, last);
            r.solution_again = Some(SolutionAgain {
                works: grounding::claimed_works(&claimed).into_iter().map(str::to_string).collect(),
                reply: resp.text.clone(),
            });
            match ask_again(model, cancel, &req, told, &mut r) {
                Ok(second) => second,
                Err(e) => return model_failed(trace, kernel.restarts, e),
            }
        };
        if r.resent.is_some() || r.solution_again.is_some() {
            code = executable(&resp, s.max_tokens);
        }
        // Told that a block ran already, the model sent it once more: it runs, and the next turn is the last.
        let repeated_ok = r
            .resent
            .as_ref()
            .and(code.as_ref())
            .and_then(|(c, _)| resent(c, &trace.rounds))
            .filter(|earlier| !earlier.failed)
            .map(|earlier| earlier.round);
        let reply = resp.text.clone();
        let mut sent = reply.clone();
        r.reply = reply.clone();
        if let Some(sol) = tagged(&reply, "solution") {
            r.observation = String::new();
            r.observation_sha256 = sha("");
            trace.rounds.push(r);
            trace.ended_by = if last { "forced_solution".into() } else { "solution".into() };
            // What the solution still claims after its re-ask is struck from it, each sentence marked.
            let struck = grounding::strike(&sol, &grounding::done_by_code(&trace), query);
            if struck.claims.is_empty() {
                report = Some(sol);
            } else {
                trace.solution_as_written = Some(sol);
                trace.struck_claims = struck.claims;
                report = Some(struck.text);
            }
            break;
        }
        if last {
            r.observation = "No <solution> in the last turn.".into();
            r.observation_sha256 = sha(&r.observation);
            r.failed = true;
            trace.rounds.push(r);
            trace.ended_by = if force { "repeated_failures".into() } else { "max_rounds".into() };
            break;
        }
        match code {
            Some((code, cut_note)) => {
                // The history shows the model what ran, not the loop it wrote (the trace keeps the reply).
                if cut_note.is_some() {
                    sent = format!("<execute>\n{code}\n</execute>");
                }
                let e = match kernel.exec(&code, s.exec_timeout_s) {
                    Ok(e) => e,
                    Err(why) => {
                        // No kernel could be (re)started: the infrastructure failed, not the agent (the
                        // BrainBench paper's Table 11) — the instance is rerun and kept out of the scores.
                        let msg = format!("the sandboxed kernel could not be started again: {why}");
                        r.observation = msg.clone();
                        r.observation_sha256 = sha(&msg);
                        r.failed = true;
                        trace.rounds.push(r);
                        trace.ended_by = "kernel_failed".into();
                        trace.outcome = "api_infrastructure_error".into();
                        trace.error = Some(msg.clone());
                        trace.kernel_restarts = kernel.restarts;
                        return Outcome {
                            report: String::new(),
                            trace,
                            failure: Some(LlmError::infra("sandbox", msg)),
                        };
                    }
                };
                if let Some(kept) = observe(&mut r, code, cut_note, &e, s, &trace.rounds) {
                    sent = kept;
                }
                let err = last_error_line(&e);
                if err.is_some() && err == previous_error {
                    force = true;
                }
                if let Some(of) = repeated_ok.filter(|_| err.is_none()) {
                    r.observation = format!("{}\n{}", r.observation.trim_end(), repeated_note(of));
                    force = true;
                }
                previous_error = err;
            }
            None => {
                r.observation = no_action_observation(&reply);
                r.failed = true;
                // A reply without an action is a failure too: two in a row stop the loop like any repeat.
                let err = Some("no <execute> or <solution>".to_string());
                if err == previous_error {
                    force = true;
                }
                previous_error = err;
            }
        }
        r.observation_sha256 = sha(&r.observation);
        history.push((sent, r.observation.clone()));
        trace.rounds.push(r);
        if cancel.is_cancelled() {
            trace.outcome = "cancelled".into();
            trace.kernel_restarts = kernel.restarts;
            return Outcome { report: String::new(), trace, failure: Some(cancel.error("codeact")) };
        }
    }
    trace.kernel_restarts = kernel.restarts;
    match report {
        Some(rep) => Outcome { report: rep, trace, failure: None },
        None => {
            let msg = format!("no <solution> after {} round(s) ({})", trace.rounds.len(), trace.ended_by);
            trace.outcome = "agent_error".into();
            trace.error = Some(msg.clone());
            Outcome { report: String::new(), trace, failure: Some(LlmError::model("codeact", msg)) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tracebacks of the Qwen CodeAct run (SciPy 1.17, MNE 1.13 in the CodeAct environment) get the name
    /// that replaced the removed one; other errors get nothing.
    #[test]
    fn removed_names_in_a_traceback_get_their_replacement() {
        let scipy = "Traceback (most recent call last):\n  File \"<block 2>\", line 8, in <module>\n    from scipy.signal \
                     import hann\nImportError: cannot import name 'hann' from 'scipy.signal' (/venv/scipy/signal/__init__.py)\n";
        assert_eq!(
            environment_hint(scipy).as_deref(),
            Some("Note: scipy.signal.hann does not exist in this environment; use scipy.signal.windows.hann.")
        );
        let numpy = "Traceback ...\nAttributeError: module 'numpy' has no attribute 'trapz'";
        assert!(environment_hint(numpy).is_some_and(|h| h.contains("numpy.trapezoid")));
        let mne = "ImportError: cannot import name 'psd_welch' from 'mne.time_frequency' (/venv/mne/__init__.py)";
        assert!(environment_hint(mne).is_some_and(|h| h.contains("compute_psd")));
        let welch = "TypeError: Got unexpected keyword arguments nperseg, noverlap for PSD method \"welch\".";
        assert!(environment_hint(welch).is_some_and(|h| h.contains("n_per_seg")));
        // MNE 1.13's messages, as the Qwen run's blocks got them.
        let design = "ValueError: Invalid value for the 'fir_design' parameter. Allowed values are 'firwin' and \
                      'firwin2', but got 'bandpass' instead.";
        assert!(environment_hint(design).is_some_and(|h| h.contains("leave it out")));
        let events = "TypeError: find_events() got an unexpected keyword argument 'event_id'";
        assert!(environment_hint(events).is_some_and(|h| h.contains("mne.events_from_annotations(raw)")));
        assert_eq!(environment_hint("NameError: name 'raw' is not defined"), None);
    }

    /// Replies cut at the token limit: a loop of repeated lines (the Qwen run's own, after a preamble) runs
    /// once; without a loop the unfinished last line goes; a few repeated lines that are not a loop stay.
    #[test]
    fn a_reply_cut_at_the_limit_runs_its_loop_once_and_not_its_unfinished_line() {
        let head = "import os\nimport numpy as np\n";
        let loop_ = "from mne.filter import filter_data\nfrom scipy.integrate import trapezoid, simpson\n";
        let code = format!("{head}{}from scipy.sig", loop_.repeat(4));
        let (ran, note) = cut_reply_code(&code, 512);
        assert_eq!(ran, format!("{head}{}", loop_.trim_end()));
        assert!(note.contains("repeating lines 3–4 4 times"), "{note}");
        let (ran, note) = cut_reply_code("x = 1\nprint(x)\nprint(x)\nprint(x)\ny = np.mea", 512);
        assert_eq!(ran, "x = 1\nprint(x)\nprint(x)\nprint(x)");
        assert!(note.contains("unfinished last line"), "{note}");
    }

    #[test]
    fn an_attribute_a_raw_object_lacks_gets_what_it_has() {
        let tb =
            "Traceback ...\n    v = raw.var()\n        ^^^^^^^\nAttributeError: 'RawEDF' object has no attribute 'var'";
        assert!(environment_hint(tb).is_some_and(|h| h.contains("get_data()")));
        assert_eq!(environment_hint("AttributeError: 'tuple' object has no attribute 'get_data'"), None);
        let missing = "Traceback ...\nModuleNotFoundError: No module named 'neurokit2'";
        assert!(
            environment_hint(missing)
                .is_some_and(|h| h.starts_with("Note: neurokit2 is not installed") && h.contains("mne, yasa"))
        );
    }

    /// A Markdown fence inside `<execute>` (the capable model writes one) is taken off; prose after a
    /// closing fence is left out; plain code is kept as it is.
    #[test]
    fn fenced_code_runs_as_the_code_it_contains() {
        assert_eq!(unfence("```python\nimport mne\nprint(1)\n```"), "import mne\nprint(1)");
        assert_eq!(unfence("\n```\nx = 1\n```\nThis prints x."), "x = 1");
        assert_eq!(unfence("x = 1\nprint(x)\n```"), "x = 1\nprint(x)");
        assert_eq!(unfence("x = 1\nprint(x)"), "x = 1\nprint(x)");
        assert_eq!(unfence("```python\nx = 1"), "x = 1");
    }

    /// What the kernel found is shown: a module's names (unless the name is a removed one with a known
    /// replacement; seen at e54c8b8: `from yasa import alpha_power` sent three rounds running), a signature.
    #[test]
    fn the_kernels_help_shows_a_modules_names_and_a_signature() {
        let e = |error: &str| crate::sandbox::kernel::Execution {
            error: Some(format!("Traceback ...\n{error}")),
            help: Some("yasa has no alpha_power; names in it like that one: bandpower, stft_power.".into()),
            ..Default::default()
        };
        let obs = observation(&e("ImportError: cannot import name 'alpha_power' from 'yasa' (/x.py)"), 2000);
        assert!(
            obs.ends_with("\nNote: yasa has no alpha_power; names in it like that one: bandpower, stft_power.\n"),
            "{obs}"
        );
        let obs = observation(&e("AttributeError: module 'numpy' has no attribute 'trapz'"), 2000);
        assert!(obs.contains("use numpy.trapezoid") && !obs.contains("names in it"), "{obs}");
        // A signature the kernel found is shown beside BrainLens's own note on the same error.
        let events = crate::sandbox::kernel::Execution {
            error: Some("Traceback ...\nTypeError: find_events() got an unexpected keyword argument 'event_id'".into()),
            help: Some("the signature is mne.find_events(raw, stim_channel=None).".into()),
            ..Default::default()
        };
        let obs = observation(&events, 2000);
        assert!(obs.contains("mne.events_from_annotations(raw)"), "{obs}");
        assert!(obs.ends_with("\nNote: the signature is mne.find_events(raw, stim_channel=None).\n"), "{obs}");
    }

    /// A block that failed after some of it ran: the observation says which lines ran and what they bound;
    /// the history shows the block from its failing line on; that part sent again is resent code.
    #[test]
    fn a_block_that_failed_part_way_is_shown_from_its_failing_line() {
        let e = crate::sandbox::kernel::Execution {
            error: Some("Traceback ...\nTypeError: bad keyword".into()),
            ran_to: Some(3),
            stopped_at: Some(5),
            defined: vec!["raw".into(), "sfreq".into()],
            ..Default::default()
        };
        let skipped = crate::sandbox::kernel::Execution {
            skipped: vec!["mne.time_frequency.psd_welch".into()],
            ..Default::default()
        };
        assert!(observation(&skipped, 2000).starts_with(
            "Note: mne.time_frequency.psd_welch does not exist in this environment and this block does not use it"
        ));
        let obs = observation(&e, 2000);
        assert!(obs.contains("Note: lines 1–3 of this block ran without an error and bound raw, sfreq"), "{obs}");
        assert!(obs.contains("send the code from line 5 on"), "{obs}");
        // The first statement raising, or a restarted kernel: nothing was kept, nothing said.
        let first = crate::sandbox::kernel::Execution { ran_to: None, stopped_at: Some(1), ..e.clone() };
        assert!(!observation(&first, 2000).contains("ran without an error"));
        let restarted = crate::sandbox::kernel::Execution { restarted: true, ..e.clone() };
        assert_eq!(kept_part(&restarted), None);
        let code = "import mne\nraw = load()\nsfreq = 1\n\npsd = raw.bad(x=1)\nprint(psd)";
        let shown = kept_history(code, 3, 5, &e.defined);
        assert_eq!(
            shown,
            "<execute>\n# Lines 1–3 ran without an error; raw, sfreq are defined.\npsd = raw.bad(x=1)\nprint(psd)\n</execute>"
        );
        let failed = Round {
            round: 2,
            code: Some(code.into()),
            failed: true,
            stopped_at: Some(5),
            observation: obs,
            ..Default::default()
        };
        let rounds = [failed];
        for again in [
            "psd = raw.bad(x=1)\nprint(psd)",
            "# Lines 1–3 ran without an error; raw, sfreq are defined.\npsd = raw.bad(x=1)\nprint(psd)",
            code,
        ] {
            let earlier = resent(again, &rounds).expect("the same code");
            let note = resent_note(earlier);
            assert!(earlier.round == 2 && note.contains("failed with: TypeError: bad keyword"), "{note}");
        }
        // Imports that ran before it change nothing; an import that did not run may be the fix.
        let imports_first = "import mne\n\npsd = raw.bad(x=1)\nprint(psd)";
        assert_eq!(resent(imports_first, &rounds).map(|r| r.round), Some(2));
        assert!(resent("import numpy\npsd = raw.bad(x=1)\nprint(psd)", &rounds).is_none());
        assert!(resent("psd = raw.compute_psd()\nprint(psd)", &rounds).is_none());
        // The failing statement alone, unchanged, is the same code too; not after another block ran.
        assert_eq!(resent("psd = raw.bad(x=1)", &rounds).map(|r| r.round), Some(2));
        assert!(resent("print(psd)", &rounds).is_none());
        let later = [rounds[0].clone(), Round { round: 3, code: Some("x = 1".into()), ..Default::default() }];
        assert!(resent("psd = raw.bad(x=1)", &later).is_none());
        assert_eq!(resent("psd = raw.bad(x=1)\nprint(psd)", &later).map(|r| r.round), Some(2));
        // The history's comment copied with other numbers is still the same code.
        assert_eq!(
            resent("# Lines 6–7 ran without an error.\npsd = raw.bad(x=1)\nprint(psd)", &rounds).map(|r| r.round),
            Some(2)
        );
        // A fix of the failing line alone runs, and is told the rest has not.
        assert!(
            rest_not_run("psd = raw.compute_psd()", &rounds)
                .is_some_and(|n| n.contains("round 2's block stopped at its line 5"))
        );
        assert_eq!(rest_not_run("psd = raw.compute_psd()\nprint(psd)", &rounds), None);
    }

    #[test]
    fn a_block_of_imports_alone_is_told_so() {
        for code in [
            "import mne\nfrom scipy.signal import welch\n\n# next",
            "import neurokit2 as nk; import numpy as np",
            "from scipy.signal import (\n    welch,\n    butter,\n)\nimport yasa",
        ] {
            assert!(imports_only_note(code).is_some_and(|n| n.contains("nothing was computed")), "{code}");
        }
        for code in ["import mne\nraw = mne.io.read_raw_edf('x.edf')", "import os; print(os.getcwd())", "# only", ""] {
            assert_eq!(imports_only_note(code), None, "{code}");
        }
    }

    #[test]
    fn the_system_prompt_states_import_names_versions_and_mne_api() {
        let s = system();
        assert!(s.contains("sklearn 1.9.1 (pip scikit-learn)") && s.contains("mne 1.13.2"), "{s}");
        assert!(s.contains("compute_psd") && s.contains("psd_array_welch") && s.contains("working directory"), "{s}");
    }
}
