//! Capability-oriented tools over the `signal` module: reusable operations (inspect, prepare, segment,
//! extract features, aggregate, write artifacts) that register their outputs in the shared state under ids.
//! No tool knows a task or computes a task's answer on its own.

mod common;
mod domain;

use super::state::{Of, SharedState};
use crate::agent::tools::ToolError;
use serde::Serialize;
use serde_json::{Map, Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    Common,
    Sleep,
    Neurocog,
    Physiol,
}

/// Parameter kinds. Those that name something (ids, files, channels, fixed options) become enums of what
/// exists when the planner is asked, so a constrained plan can only name things that are there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Id(Of),
    Number,
    Text,
    Texts,
    /// A data file under the instance's input folder.
    Path,
    /// Labels of channels of the loaded recordings and views.
    Channels,
    /// A column of the CSV/TSV tables under the inputs.
    Column,
    Choice(&'static [&'static str]),
}

/// A tool's handler: runs a checked call against the shared state; the observation says what was registered.
pub type Handler = fn(&Args, &mut SharedState) -> Result<Value, ToolError>;

/// A tool of the EEG agent (`agent::tools::Tool` with this agent's kinds, its domain and handler).
pub type ToolSpec = crate::agent::tools::Tool<Kind, Domain, Handler>;
pub type Param = crate::agent::tools::Param<Kind>;

const fn p(name: &'static str, kind: Kind, required: bool, about: &'static str) -> Param {
    Param { name, kind, required, about }
}

use Kind::*;

pub static TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: "inspect_file",
        group: Domain::Common,
        run: common::inspect_file,
        about: "Open a recording (EDF/BDF) or label file (CSV) named in the task and register it; shows channels, rate, duration, annotations or columns.",
        params: &[p("path", Path, true, "path as given in the task")],
    },
    ToolSpec {
        name: "load_channels",
        group: Domain::Common,
        run: common::load_channels,
        about: "Load channels of a recording into a view.",
        params: &[
            p("recording", Id(Of::Recording), true, "rec id"),
            p(
                "kind",
                Choice(&["eeg", "eog", "ecg", "all"]),
                false,
                "eeg, eog, ecg or all (default eeg; all when the recording has no EEG)",
            ),
            p("channels", Channels, false, "channel labels instead of a kind"),
        ],
    },
    ToolSpec {
        name: "select_channels",
        group: Domain::Common,
        run: common::select_channels,
        about: "Keep the named channels of a view.",
        params: &[p("view", Id(Of::View), true, "view id"), p("channels", Channels, true, "labels")],
    },
    ToolSpec {
        name: "filter",
        group: Domain::Common,
        run: common::filter,
        about: "Zero-phase FIR filter (MNE's design): high-pass l_freq and/or low-pass h_freq.",
        params: &[
            p("view", Id(Of::View), true, "view id"),
            p("l_freq", Number, false, "Hz, or null for no high-pass"),
            p("h_freq", Number, false, "Hz, or null for no low-pass"),
        ],
    },
    ToolSpec {
        name: "rereference",
        group: Domain::Common,
        run: common::rereference,
        about: "Average reference over the view's channels.",
        params: &[p("view", Id(Of::View), true, "view id")],
    },
    ToolSpec {
        name: "resample",
        group: Domain::Common,
        run: common::resample,
        about: "Polyphase resampling to sfreq.",
        params: &[p("view", Id(Of::View), true, "view id"), p("sfreq", Number, true, "Hz")],
    },
    ToolSpec {
        name: "crop",
        group: Domain::Common,
        run: common::crop,
        about: "Keep samples with tmin <= t < tmax seconds.",
        params: &[p("view", Id(Of::View), true, "view id"), p("tmin", Number, true, "s"), p("tmax", Number, true, "s")],
    },
    ToolSpec {
        name: "band_power",
        group: Domain::Common,
        run: common::band_power,
        about: "Welch PSD (method welch: 2-s Hann, 50% overlap; or multitaper) and trapezoid band power per channel; relative when total_lo/total_hi are given (in %).",
        params: &[
            p("view", Id(Of::View), true, "view id"),
            p("lo", Number, true, "the band's lower edge, Hz"),
            p("hi", Number, true, "the band's upper edge, Hz"),
            p("total_lo", Number, false, "lower edge of the total range a relative power divides by, Hz"),
            p("total_hi", Number, false, "upper edge of that total range, Hz"),
            p("method", Choice(&["welch", "multitaper"]), false, "welch or multitaper"),
        ],
    },
    ToolSpec {
        name: "peak_frequency",
        group: Domain::Common,
        run: common::peak_frequency,
        about: "Frequency of the largest Welch PSD value in lo-hi per channel.",
        params: &[
            p("view", Id(Of::View), true, "view id"),
            p("lo", Number, true, "the search range's lower edge, Hz"),
            p("hi", Number, true, "the search range's upper edge, Hz"),
        ],
    },
    ToolSpec {
        name: "channel_stats",
        group: Domain::Common,
        run: common::channel_stats,
        about: "Variance, RMS, kurtosis per channel and IQR outlier flags on variance.",
        params: &[p("view", Id(Of::View), true, "view id")],
    },
    ToolSpec {
        name: "connectivity",
        group: Domain::Common,
        run: common::connectivity,
        about: "Channel-pair connectivity (plv, wpli, coh in a band; corr) and its mean over pairs.",
        params: &[
            p("view", Id(Of::View), true, "view id"),
            p("method", Choice(&["plv", "wpli", "coh", "corr"]), true, "plv, wpli, coh or corr"),
            p("lo", Number, false, "the band's lower edge (plv, wpli, coh), Hz"),
            p("hi", Number, false, "the band's upper edge, Hz"),
        ],
    },
    ToolSpec {
        name: "aggregate",
        group: Domain::Common,
        run: common::aggregate,
        about: "Combine a per-channel result: mean, max, min, rank (largest first), top_k, above_mean.",
        params: &[
            p("result", Id(Of::Result), true, "result id"),
            p(
                "op",
                Choice(&["mean", "max", "min", "rank", "top_k", "above_mean"]),
                true,
                "mean, max, min, rank, top_k, above_mean",
            ),
            p("k", Number, false, "for top_k"),
        ],
    },
    ToolSpec {
        name: "write_artifact",
        group: Domain::Common,
        run: common::write_artifact,
        about: "Write a view to file_check/<name> in the workspace (.edf or .npy).",
        params: &[p("view", Id(Of::View), true, "view id"), p("name", Text, true, "file name ending .edf or .npy")],
    },
    ToolSpec {
        name: "plot",
        group: Domain::Common,
        run: common::plot,
        about: "Plot a view's first channels to file_check/<name>.png.",
        params: &[p("view", Id(Of::View), true, "view id"), p("name", Text, true, "file name ending .png")],
    },
    ToolSpec {
        name: "load_hypnogram",
        group: Domain::Sleep,
        run: domain::load_hypnogram,
        about: "Read a scoring column of a hypnogram CSV (codes 0 Wake, 1 Light, 2 Deep, 3 REM; 30-s epochs); the file's other scoring columns load with it, each under its own lab id.",
        params: &[p("path", Path, true, "path as given in the task"), p("column", Column, true, "column name")],
    },
    ToolSpec {
        name: "hypnogram_stats",
        group: Domain::Sleep,
        run: domain::hypnogram_stats,
        about: "Sleep statistics (YASA definitions, minutes and % of TST): TIB, TST, SE, SOL, WASO, REM latency, stage minutes and %, awakenings.",
        params: &[p("labels", Id(Of::Labels), true, "lab id")],
    },
    ToolSpec {
        name: "scorer_agreement",
        group: Domain::Sleep,
        run: domain::scorer_agreement,
        about: "Cohen's kappa and epoch agreement of two scorings.",
        params: &[p("a", Id(Of::Labels), true, "lab id"), p("b", Id(Of::Labels), true, "lab id")],
    },
    ToolSpec {
        name: "read_events",
        group: Domain::Neurocog,
        run: domain::read_events,
        about: "Register the annotations of a recording as events; counts per description.",
        params: &[p("recording", Id(Of::Recording), true, "rec id")],
    },
    ToolSpec {
        name: "event_intervals",
        group: Domain::Neurocog,
        run: domain::event_intervals,
        about: "Mean interval (ms) between consecutive events whose description starts with one of the prefixes.",
        params: &[
            p("events", Id(Of::Events), true, "ev id"),
            p("prefixes", Texts, true, "e.g. [\"auditory/\", \"visual/\"]"),
        ],
    },
    ToolSpec {
        name: "epoch_average",
        group: Domain::Neurocog,
        run: domain::epoch_average,
        about: "Average epochs tmin..tmax around events starting with condition (baseline tmin..0) into an evoked view.",
        params: &[
            p("view", Id(Of::View), true, "view id"),
            p("events", Id(Of::Events), true, "ev id"),
            p("condition", Text, true, "description prefix"),
            p("tmin", Number, true, "s"),
            p("tmax", Number, true, "s"),
        ],
    },
    ToolSpec {
        name: "peak_latency",
        group: Domain::Neurocog,
        run: domain::peak_latency,
        about: "Latency (ms) and value of the most negative or positive sample of each channel of an evoked view in tmin..tmax.",
        params: &[
            p("view", Id(Of::View), true, "evoked view id"),
            p("tmin", Number, true, "s"),
            p("tmax", Number, true, "s"),
            p("polarity", Choice(&["negative", "positive"]), false, "negative (default) or positive"),
        ],
    },
    ToolSpec {
        name: "event_power_change",
        group: Domain::Neurocog,
        run: domain::event_power_change,
        about: "Percent change of mean squared amplitude after (0..window s) vs before (-window..0 s) events starting with condition, over all channels of the view.",
        params: &[
            p("view", Id(Of::View), true, "view id"),
            p("events", Id(Of::Events), true, "ev id"),
            p("condition", Text, true, "prefix"),
            p("window", Number, false, "s, default 0.5"),
        ],
    },
    ToolSpec {
        name: "ecg_hrv",
        group: Domain::Physiol,
        run: domain::ecg_hrv,
        about: "R-peaks (neurokit2's pipeline) of a one-channel ECG view and time-domain HRV: beats, HR, MeanNN, SDNN, RMSSD, pNN50.",
        params: &[p("view", Id(Of::View), true, "ECG view id")],
    },
    ToolSpec {
        name: "eog_activity",
        group: Domain::Physiol,
        run: domain::eog_activity,
        about: "EOG RMS and deflections beyond k x median absolute value of the 0.5-15 Hz band, >= 0.2 s apart.",
        params: &[p("view", Id(Of::View), true, "EOG view id"), p("k", Number, false, "default 4")],
    },
    ToolSpec {
        name: "segment_stats",
        group: Domain::Physiol,
        run: domain::segment_stats,
        about: "Standard deviation of the first channel in consecutive segments S1, S2, ... and their ranking (largest first).",
        params: &[p("view", Id(Of::View), true, "view id"), p("segment_s", Number, true, "s")],
    },
    ToolSpec {
        name: "correlate",
        group: Domain::Physiol,
        run: domain::correlate,
        about: "Pearson |r| between the first channel of reference and every channel of view; the best channel.",
        params: &[p("view", Id(Of::View), true, "view id"), p("reference", Id(Of::View), true, "view id")],
    },
];

/// The hybrid paradigm's code step: not a validated tool but a block the model writes, run in the CodeAct
/// sandbox (`super::code`). It is on a hybrid planner's menu only when its code rule allows
/// (`code::CodeRule`); BrainAgent never has it. Its output is registered as a result like a tool's.
pub static PYTHON: ToolSpec = ToolSpec {
    name: "python",
    group: Domain::Common,
    run: common::code_elsewhere,
    about: "Python code (numpy, scipy, mne) run in a sandbox, for a value no tool above computes; it prints the value.",
    params: &[p("purpose", Text, true, "the value to compute, named as the task names it")],
};

/// The longest purpose a constrained plan writes for `python` (Qwen2.5-Coder-1.5B copied the tool's description
/// or the last error into an unbounded purpose on the suite's first instances, and an example given here into
/// the purpose of a task it did not fit: the description has none).
pub const PURPOSE_CHARS: usize = 120;

/// The validated tool a `python` purpose begins with, if any: a code step does not redo a tool's work. On the
/// suite's first 21 hybrid instances (Qwen2.5-Coder-1.5B) 11 of 14 purposes were a tool call copied into the
/// purpose (`load_hypnogram(path: …)`, `channel_stats`) or an error message beginning with a tool's name; the
/// blocks they produced re-did the tool's work worse (a sleep time in seconds reported as minutes). What such a
/// step may do depends on the run so far: `code::purpose_check`.
pub fn names_a_tool(purpose: &str) -> Option<&'static str> {
    let head: String = purpose.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    TOOLS.iter().find(|t| t.name.eq_ignore_ascii_case(&head)).map(|t| t.name)
}

/// The tools a sub-agent has: the common set plus its domain.
pub fn toolset(domain: Domain) -> Vec<&'static ToolSpec> {
    TOOLS.iter().filter(|t| t.group == Domain::Common || t.group == domain).collect()
}

pub fn spec(name: &str) -> Option<&'static ToolSpec> {
    crate::agent::tools::find(TOOLS, name)
}

/// One parameter's schema given what the state holds now. `refs` are the `$k` references a plan may use
/// for ids that its own earlier steps register.
fn param_schema(kind: Kind, state: &SharedState, refs: &[String]) -> Value {
    let options = |names: Vec<String>| -> Value {
        if names.is_empty() { json!({"type": "string"}) } else { json!({"enum": names}) }
    };
    match kind {
        Kind::Number => json!({"type": "number"}),
        Kind::Text => json!({"type": "string"}),
        Kind::Texts => json!({"type": "array", "items": {"type": "string"}}),
        Kind::Choice(c) => json!({"enum": c}),
        Kind::Id(of) => options(state.ids(of).into_iter().chain(refs.iter().cloned()).collect()),
        Kind::Path => options(state.path_options()),
        Kind::Column => options(state.table_columns()),
        // An empty channel list selects nothing (the 1.5B model wrote `"channels": []` and got an empty view).
        Kind::Channels => json!({"type": "array", "minItems": 1, "items": options(state.channel_labels())}),
    }
}

/// The schema of one plan step: a tool of the toolset with that tool's own closed argument object
/// (`anyOf` told apart by `tool`), ids, files and channels as enums of what exists. A constrained plan
/// therefore names only tools of the menu, only their parameters, and only things that are there.
pub fn step_schema(tools: &[&ToolSpec], state: &SharedState, max_steps: usize) -> Value {
    let refs: Vec<String> = (1..max_steps).map(|k| format!("${k}")).collect();
    let branches: Vec<Value> = tools
        .iter()
        .map(|t| {
            let group = one_of(t.name);
            let props: Map<String, Value> = t
                .params
                .iter()
                .map(|p| {
                    let mut schema = param_schema(p.kind, state, &refs);
                    if group.contains(&p.name) {
                        schema = json!({"type": [schema["type"].clone(), "null"]});
                    }
                    if t.name == PYTHON.name {
                        schema["maxLength"] = json!(PURPOSE_CHARS);
                    }
                    (p.name.to_string(), schema)
                })
                .collect();
            let mut args = t.args_object(props);
            if let Some(required) = args["required"].as_array_mut() {
                required.extend(group.iter().map(|p| json!(p)));
            }
            t.branch("args", args)
        })
        .collect();
    json!({"anyOf": branches})
}

/// Tools that need at least one of their optional parameters: the filter a high-pass and/or a low-pass edge.
/// A constrained plan writes each of them, a number or null (the schema subset has no "one of these
/// required"), and `check` refuses a call with none. Measured: in the Qwen2.5-Coder-1.5B model-report suite
/// run (90e279d) 10 filter steps in 9 of 54 instances gave neither edge and failed.
const ONE_OF: &[(&str, &[&str])] = &[("filter", &["l_freq", "h_freq"])];

fn one_of(tool: &str) -> &'static [&'static str] {
    ONE_OF.iter().find(|(t, _)| *t == tool).map_or(&[], |(_, group)| group)
}

/// The menu text a planner reads.
pub fn menu(tools: &[&ToolSpec]) -> String {
    crate::agent::tools::menu(tools.iter().copied())
}

/// The kind of id a tool registers when it succeeds (artifacts are not inputs of any tool: none).
pub fn registers(tool: &str) -> Option<Of> {
    match tool {
        "inspect_file" => Some(Of::Recording),
        "load_channels" | "select_channels" | "filter" | "rereference" | "resample" | "crop" | "epoch_average" => {
            Some(Of::View)
        }
        "load_hypnogram" => Some(Of::Labels),
        "read_events" => Some(Of::Events),
        "write_artifact" | "plot" => None,
        _ => Some(Of::Result),
    }
}

/// The tools that can run now: those whose every id parameter has an id of its kind in the state (what a
/// plan's first step may use).
pub fn ready<'a>(tools: &[&'a ToolSpec], state: &SharedState) -> Vec<&'a ToolSpec> {
    tools
        .iter()
        .filter(|t| t.params.iter().all(|p| !matches!(p.kind, Kind::Id(of) if state.ids(of).is_empty())))
        .copied()
        .collect()
}

/// The tools a plan may use: those whose every id parameter has an id of its kind in the state, or one
/// that a step of the same plan can register first (a chain from loading to a measure fits in one plan; its
/// later steps name the earlier ones' outputs as `$k`). Measured with Qwen2.5-Coder-1.5B when only tools
/// with existing inputs were offered: every plan held one step, and the model then repeated the first one
/// round after round (a band-power task loaded the same channels four times).
pub fn offered<'a>(tools: &[&'a ToolSpec], state: &SharedState) -> Vec<&'a ToolSpec> {
    let mut have: Vec<Of> = [Of::Recording, Of::View, Of::Labels, Of::Events, Of::Result]
        .into_iter()
        .filter(|&of| !state.ids(of).is_empty())
        .collect();
    let mut out: Vec<&'a ToolSpec> = Vec::new();
    loop {
        let before = out.len();
        for t in tools {
            let ready = t.params.iter().all(|p| !matches!(p.kind, Kind::Id(of) if !have.contains(&of)));
            if ready && !out.iter().any(|o| o.name == t.name) {
                out.push(t);
                if let Some(of) = registers(t.name).filter(|of| !have.contains(of)) {
                    have.push(of);
                }
            }
        }
        if out.len() == before {
            break;
        }
    }
    // In the toolset's order (the menu's).
    tools.iter().filter(|t| out.iter().any(|o| o.name == t.name)).copied().collect()
}

/// A step's arguments with its id parameters' `$k` references resolved: to the id step k of this plan
/// registered when that id is of the parameter's kind, else to the latest id of the kind in the state (a
/// repair, returned for the trace). Other values are left as they are.
pub fn resolve_args(
    t: &ToolSpec,
    args: &Value,
    produced: &[Option<String>],
    state: &SharedState,
) -> (Value, Vec<String>) {
    let mut args = args.clone();
    let mut repairs = Vec::new();
    let Some(map) = args.as_object_mut() else { return (args, repairs) };
    for p in t.params {
        let Kind::Id(of) = p.kind else { continue };
        let Some(given) = map.get(p.name).and_then(Value::as_str).filter(|g| g.starts_with('$')).map(str::to_string)
        else {
            continue;
        };
        let ids = state.ids(of);
        let step = given[1..].parse::<usize>().ok().and_then(|k| produced.get(k.wrapping_sub(1)).cloned().flatten());
        let id = match step {
            Some(id) if ids.contains(&id) => id,
            _ => match ids.last() {
                Some(latest) => {
                    let what = step.map_or("no id".to_string(), |id| id);
                    repairs.push(format!(
                        "{}: {given} registered {what}, not a {of:?} id; the latest, {latest}, was used",
                        p.name
                    ));
                    latest.clone()
                }
                None => continue,
            },
        };
        map.insert(p.name.to_string(), Value::String(id));
    }
    (args, repairs)
}

/// What to do instead of comparing scoring `id` with itself: the id that holds its file's other scoring
/// (`load_hypnogram` loads them all), else which column and file `id` is.
fn same_scoring_hint(state: &SharedState, id: &str, a: &str, b: &str) -> String {
    let Some(own) = state.labels.get(id) else {
        return " (load the other scoring's column with load_hypnogram first)".to_string();
    };
    let other = state.labels.iter().find(|(k, l)| *k != id && l.path == own.path && l.column != own.column);
    match other {
        Some((held, l)) => format!(
            " ({id} is column {} of {}; {held} is its column {}: {a}: {id}, {b}: {held})",
            own.column, own.path, l.column
        ),
        None => format!(" ({id} is column {} of {}, which holds no other scoring)", own.column, own.path),
    }
}

/// Checks a call's arguments against the tool (names, kinds, required, ids present in the state).
pub fn check(t: &ToolSpec, args: &Map<String, Value>, state: &SharedState) -> Result<(), ToolError> {
    t.check_names(args)?;
    let group = one_of(t.name);
    if !group.is_empty() && group.iter().all(|p| args.get(*p).is_none_or(Value::is_null)) {
        return Err(format!("{}: give at least one of {}", t.name, group.join(", ")).into());
    }
    // Two ids of one kind name two different things: a scoring compared with itself (every scorer_agreement
    // call of the Qwen suite run, lab1 with lab1: kappa 1) or a channel correlated with itself says nothing.
    for (i, p) in t.params.iter().enumerate() {
        for q in &t.params[i + 1..] {
            if let (Kind::Id(of), true) = (p.kind, p.kind == q.kind)
                && let Some(id) =
                    args.get(p.name).and_then(Value::as_str).filter(|id| args.get(q.name) == Some(&json!(id)))
            {
                let hint = match of {
                    Of::Labels => same_scoring_hint(state, id, p.name, q.name),
                    _ => String::new(),
                };
                return Err(format!(
                    "{}: {} and {} are both {id}: give two different ids{hint}",
                    t.name, p.name, q.name
                )
                .into());
            }
        }
    }
    for p in t.params {
        let Some(v) = args.get(p.name).filter(|v| !v.is_null()) else { continue };
        let ok = match p.kind {
            Kind::Id(of) => v.as_str().is_some_and(|id| state.ids(of).iter().any(|x| x == id)),
            Kind::Number => v.as_f64().is_some_and(f64::is_finite),
            Kind::Text | Kind::Path | Kind::Column => v.is_string(),
            Kind::Choice(c) => v.as_str().is_some_and(|x| c.contains(&x)),
            Kind::Texts | Kind::Channels => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
        };
        if let (Kind::Id(Of::Recording), Some(path)) = (p.kind, v.as_str().and_then(|id| state.table(id))) {
            return Err(format!(
                "{}: {v} ({path}) is a table, not a recording: a column of sleep stages loads with \
                 load_hypnogram(path, column)",
                t.name
            )
            .into());
        }
        if !ok {
            let what = match p.kind {
                Kind::Id(Of::Recording) => "a recording id (rec…) that exists in the state".to_string(),
                Kind::Id(Of::View) => "a view id (v…) that exists in the state".to_string(),
                Kind::Id(Of::Labels) => "a labels id (lab…) that exists in the state".to_string(),
                Kind::Id(Of::Events) => "an events id (ev…) that exists in the state".to_string(),
                Kind::Id(Of::Result) => "a result id (r…) that exists in the state".to_string(),
                Kind::Number => "a number".to_string(),
                Kind::Text | Kind::Path | Kind::Column => "a string".to_string(),
                Kind::Choice(c) => format!("one of {}", c.join(", ")),
                Kind::Texts | Kind::Channels => "a list of strings".to_string(),
            };
            return Err(format!("{}: argument {:?} must be {what}, got {v}", t.name, p.name).into());
        }
    }
    Ok(())
}

/// Argument accessors (arguments were checked).
pub struct Args<'a>(pub &'a Map<String, Value>);

impl Args<'_> {
    pub fn s(&self, k: &str) -> &str {
        self.0.get(k).and_then(Value::as_str).unwrap_or("")
    }
    pub fn opt_s(&self, k: &str) -> Option<&str> {
        self.0.get(k).and_then(Value::as_str)
    }
    pub fn f(&self, k: &str) -> Option<f64> {
        self.0.get(k).and_then(Value::as_f64)
    }
    pub fn need_f(&self, k: &str) -> Result<f64, ToolError> {
        self.f(k).ok_or_else(|| format!("missing number {k:?}").into())
    }
    pub fn list(&self, k: &str) -> Option<Vec<String>> {
        self.0
            .get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
    }
}

/// Runs a checked call; the observation says what was registered.
pub fn run(name: &str, args: &Map<String, Value>, state: &mut SharedState) -> Result<Value, ToolError> {
    let t = spec(name).ok_or_else(|| ToolError(format!("unknown tool {name:?}")))?;
    (t.run)(&Args(args), state)
}

/// `{"id": …, …}` observation helper.
pub(crate) fn registered(id: String, detail: Value) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    if let Value::Object(d) = detail {
        m.extend(d);
    }
    Value::Object(m)
}
