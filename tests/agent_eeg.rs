//! BrainAgent (EEG) tools on their own: outputs registered under ids, arguments checked against the tool and
//! the state, inputs confined (no absolute paths elsewhere, no `..`), artifacts confined to file_check/, and
//! bad input answered with an error, never a panic. Plus the runner's refusals from the CLI.

mod common;

use brainlens::agent::eeg::state::{Of, SharedState};
use brainlens::agent::eeg::tools::{self, Domain};
use serde_json::{Map, Value, json};
use std::path::Path;

fn args(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn call(st: &mut SharedState, tool: &str, a: Value) -> Result<Value, String> {
    let a = args(a);
    tools::check(tools::spec(tool).unwrap(), &a, st).map_err(|e| e.0)?;
    tools::run(tool, &a, st).map_err(|e| e.0)
}

/// A temporary folder with `inputs/data/rec.edf` (the 60-channel MNE sample EEG), for runs of the agent.
fn inputs_with_recording() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let inputs = d.path().join("inputs");
    std::fs::create_dir_all(inputs.join("data")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eeg/mne_sample_eeg60.edf"),
        inputs.join("data/rec.edf"),
    )
    .unwrap();
    (d, inputs)
}

#[test]
fn tools_register_ids_and_refuse_bad_input() {
    let ws = tempfile::tempdir().unwrap();
    let inputs = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut st = SharedState::new(&inputs, ws.path());
    let rec = call(&mut st, "inspect_file", json!({"path": "eeg/mne_sample_eeg60.edf"})).unwrap();
    assert_eq!(rec["id"], "rec1");
    assert_eq!(rec["kinds"], json!({"eeg": 60, "eog": 1}));
    let v = call(&mut st, "load_channels", json!({"recording": "rec1", "kind": "eog"})).unwrap();
    assert_eq!((v["id"].as_str(), v["channels"].as_u64()), (Some("v1"), Some(1)));
    let eeg = call(&mut st, "load_channels", json!({"recording": "rec1"})).unwrap();
    assert_eq!(eeg["channels"], 60);
    // Pearson |r| of EOG with each EEG channel: the best is what the reference analysis finds.
    let c = call(&mut st, "correlate", json!({"view": "v2", "reference": "v1"})).unwrap();
    assert_eq!(c["best"]["channel"], "EEG 002");
    // Confinement: outside the inputs, '..', missing files.
    for bad in ["/etc/passwd", "../Cargo.toml", "eeg/nope.edf"] {
        let e = call(&mut st, "inspect_file", json!({"path": bad})).unwrap_err();
        assert!(e.contains(bad), "{e}");
    }
    // Argument checks: unknown ids, unknown arguments, wrong kinds, missing required ones.
    assert!(call(&mut st, "filter", json!({"view": "v9", "l_freq": 1.0})).unwrap_err().contains("\"view\""));
    assert!(call(&mut st, "filter", json!({"view": "v2", "cutoff": 1.0})).unwrap_err().contains("unknown argument"));
    assert!(call(&mut st, "crop", json!({"view": "v2", "tmin": "0", "tmax": 1})).unwrap_err().contains("a number"));
    assert!(call(&mut st, "resample", json!({"view": "v2"})).unwrap_err().contains("missing argument"));
    assert!(call(&mut st, "filter", json!({"view": "v2"})).unwrap_err().contains("at least one of l_freq, h_freq"));
    // A 0 Hz high-pass edge is none, as in MNE (the 1.5B model wrote `"l_freq": 0` for "no high-pass").
    let low = call(&mut st, "filter", json!({"view": "v2", "l_freq": 0.0, "h_freq": 40.0})).unwrap();
    assert_eq!(low["ops"].as_array().unwrap().last().unwrap(), "filter --40 Hz (FIR, zero-phase)");
    let views = st.ids(Of::View).len();
    let same = call(&mut st, "select_channels", json!({"view": "v1", "channels": ["EOG 061"]})).unwrap();
    assert_eq!(same["id"], "v1", "{same}");
    assert!(same["note"].as_str().unwrap().contains("already holds exactly these channels"));
    assert_eq!(st.ids(Of::View).len(), views, "no copy registered");
    let e = call(&mut st, "correlate", json!({"view": "v2", "reference": "v2"})).unwrap_err();
    assert!(e.contains("view and reference are both v2: give two different ids"), "{e}");
    // An empty channel list keeps nothing: refused, not an empty view.
    assert!(
        call(&mut st, "select_channels", json!({"view": "v2", "channels": []})).unwrap_err().contains("at least one")
    );
    // Signal errors come back as messages.
    assert!(call(&mut st, "filter", json!({"view": "v2", "l_freq": 200.0})).is_err());
    assert!(
        call(&mut st, "crop", json!({"view": "v2", "tmin": 30.0, "tmax": 40.0})).unwrap_err().contains("no samples")
    );
    // Artifacts: a file name under file_check/ only (named bare or with the folder, as tasks name it); a
    // cropped view cannot be an EDF.
    for bad in
        ["../x.edf", "/tmp/x.edf", "sub/x.edf", "x.txt", ".edf", "file_check/../x.edf", "file_check/", "/input/x.edf"]
    {
        assert!(call(&mut st, "write_artifact", json!({"view": "v2", "name": bad})).is_err(), "{bad}");
    }
    for named in ["file_check/whole.npy", "/workspace/file_check/whole.npy"] {
        let a = call(&mut st, "write_artifact", json!({"view": "v2", "name": named})).unwrap();
        assert_eq!(a["path"], "file_check/whole.npy", "{named}");
    }
    assert!(ws.path().join("file_check/whole.npy").is_file() && !ws.path().join("file_check/file_check").exists());
    let cropped = call(&mut st, "crop", json!({"view": "v2", "tmin": 1.0, "tmax": 3.0})).unwrap();
    let e = call(&mut st, "write_artifact", json!({"view": cropped["id"], "name": "c.edf"})).unwrap_err();
    assert!(e.contains(".npy"), "{e}");
    let a = call(&mut st, "write_artifact", json!({"view": cropped["id"], "name": "c.npy"})).unwrap();
    assert_eq!(a["path"], "file_check/c.npy");
    assert!(ws.path().join("file_check/c.npy").is_file());
    let p = call(&mut st, "plot", json!({"view": "v2", "name": "traces.png"})).unwrap();
    assert!(ws.path().join(p["path"].as_str().unwrap()).metadata().unwrap().len() > 1000);
    // Aggregation over a per-channel result; a result without one is refused.
    let bp = call(&mut st, "band_power", json!({"view": "v2", "lo": 8.0, "hi": 13.0})).unwrap();
    let top = call(&mut st, "aggregate", json!({"result": bp["id"], "op": "top_k", "k": 3})).unwrap();
    assert_eq!(top["value"].as_array().unwrap().len(), 3);
    let e = call(&mut st, "aggregate", json!({"result": top["id"], "op": "mean"})).unwrap_err();
    assert!(
        e.contains("no per-channel values")
            && e.contains(&format!("{} (band power 8-13 Hz)", bp["id"].as_str().unwrap())),
        "{e}"
    );
    // An average reference of one channel names a view of several to reference first.
    let e = call(&mut st, "rereference", json!({"view": "v1"})).unwrap_err();
    assert!(e.contains("view v1 has 1 channel") && e.contains("such as v2, 60 channels"), "{e}");
    // The summary the planner sees names ids, not arrays.
    let s = st.summary();
    assert!(s.contains("rec1") && s.contains("v2 60 ch @ 250 Hz") && s.contains("a3 file_check/c.npy"), "{s}");
    assert!(st.changes.len() >= 8);
    // Toolsets: common tools everywhere, domain tools only in their agent.
    let sleep: Vec<&str> = tools::toolset(Domain::Sleep).iter().map(|t| t.name).collect();
    assert!(sleep.contains(&"hypnogram_stats") && !sleep.contains(&"ecg_hrv") && sleep.contains(&"band_power"));
    // A channel of the recording that the view did not load: where it is and how to load it.
    let e = call(&mut st, "select_channels", json!({"view": "v2", "channels": ["EOG 061"]})).unwrap_err();
    assert!(e.contains("recording rec1 has it") && e.contains("load_channels(recording rec1"), "{e}");
    assert!(call(&mut st, "select_channels", json!({"view": "v2", "channels": ["Cz"]})).unwrap_err().contains("Cz"));
    // A table is not a recording; a column of epoch numbers is not a hypnogram (the error names the columns).
    call(&mut st, "inspect_file", json!({"path": "hypnograms/sample_data_sri.csv"})).unwrap();
    let e = call(&mut st, "load_channels", json!({"recording": "rec2"})).unwrap_err();
    assert!(e.contains("is a table, not a recording") && e.contains("load_hypnogram"), "{e}");
    assert_eq!(st.ids(Of::Recording), ["rec1"], "a plan's recording is never the table");
    assert!(st.summary().contains("rec2 hypnograms/sample_data_sri.csv"), "the summary lists it");
    let e = call(&mut st, "load_hypnogram", json!({"path": "hypnograms/sample_data_sri.csv", "column": "epoch"}));
    let e = e.unwrap_err();
    assert!(e.contains("is not a sleep stage (the file's columns: subject,epoch,reference,device)"), "{e}");
    let loaded =
        call(&mut st, "load_hypnogram", json!({"path": "hypnograms/sample_data_sri.csv", "column": "reference"}));
    let loaded = loaded.unwrap();
    let lab = loaded["id"].as_str().unwrap().to_string();
    // The statistics name the file's four stages (Light, Deep), with the minutes of YASA's N2 and N3.
    let stats = call(&mut st, "hypnogram_stats", json!({"labels": lab})).unwrap();
    let h = brainlens::signal::sleep::Hypnogram::load(
        &inputs.join("hypnograms/sample_data_sri.csv"),
        Some("reference"),
        None,
        brainlens::signal::sleep::Codes::Sri,
    )
    .unwrap();
    let want = brainlens::signal::sleep::sleep_statistics(&h).unwrap();
    assert_eq!((stats["Light"].as_f64(), stats["Deep"].as_f64()), (Some(want.N2), Some(want.N3)), "{stats}");
    assert!(stats.get("N2").is_none() && stats.get("%N1").is_none(), "{stats}");
    // The file's other scoring loaded with it (not its subject or epoch columns, which hold no stages), and the
    // summary says which id is which column; loading it again gives the same id.
    let path = "hypnograms/sample_data_sri.csv";
    let dev = loaded["also_loaded"].as_object().unwrap();
    assert_eq!(dev.values().collect::<Vec<_>>(), [&json!("device")], "{loaded}");
    let dev = dev.keys().next().unwrap().clone();
    let s = st.summary();
    assert!(
        s.contains(&format!("{lab} column reference of {path}"))
            && s.contains(&format!("{dev} column device of {path}"))
    );
    let again = call(&mut st, "load_hypnogram", json!({"path": path, "column": "device"})).unwrap();
    assert_eq!((again["id"].as_str(), again.get("also_loaded")), (Some(dev.as_str()), None), "{again}");
    // A scoring compared with itself: the error names the id that holds the file's other scoring.
    let e = call(&mut st, "scorer_agreement", json!({"a": lab, "b": lab})).unwrap_err();
    assert!(e.contains(&format!("give two different ids ({lab} is column reference of {path}; {dev} is its column device: a: {lab}, b: {dev})")), "{e}");
    let g = call(&mut st, "scorer_agreement", json!({"a": lab, "b": dev})).unwrap();
    let want = brainlens::signal::sleep::agreement::agreement(
        &h,
        &brainlens::signal::sleep::Hypnogram::load(
            &inputs.join(path),
            Some("device"),
            None,
            brainlens::signal::sleep::Codes::Sri,
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(g["kappa"].as_f64(), Some(want.kappa), "{g}");
    // A file with one scoring loads nothing else, and the refusal says so.
    let one = tempfile::tempdir().unwrap();
    std::fs::write(one.path().join("one.csv"), "epoch,stage\n1,0\n2,1\n3,2\n4,3\n5,1\n").unwrap();
    let mut single = SharedState::new(one.path(), ws.path());
    let only = call(&mut single, "load_hypnogram", json!({"path": "one.csv", "column": "stage"})).unwrap();
    assert!(only.get("also_loaded").is_none() && single.labels.len() == 1, "{only}");
    let e = call(&mut single, "scorer_agreement", json!({"a": "lab1", "b": "lab1"})).unwrap_err();
    assert!(e.ends_with("(lab1 is column stage of one.csv, which holds no other scoring)"), "{e}");
    // Without a kind, a recording with no EEG channel loads all of its channels (EEG otherwise, above).
    let eog = call(&mut st, "write_artifact", json!({"view": "v1", "name": "eog.edf"})).unwrap();
    let only_eog = tempfile::tempdir().unwrap();
    std::fs::copy(ws.path().join(eog["path"].as_str().unwrap()), only_eog.path().join("eog.edf")).unwrap();
    let mut other = SharedState::new(only_eog.path(), ws.path());
    assert_eq!(call(&mut other, "inspect_file", json!({"path": "eog.edf"})).unwrap()["kinds"], json!({"eog": 1}));
    assert_eq!(call(&mut other, "load_channels", json!({"recording": "rec1"})).unwrap()["channels"], 1);
    // With no view of several channels to name, the reference error says only what is wrong.
    let e = call(&mut other, "rereference", json!({"view": "v1"})).unwrap_err();
    assert_eq!(e, "view v1 has 1 channel; an average reference needs at least two");
    assert!(call(&mut other, "load_channels", json!({"recording": "rec1", "kind": "eeg"})).is_err());
}

/// A plan step is one tool of the menu with that tool's own arguments, and a parameter that names something
/// can only name what exists: ids of its kind (or `$k`), data files under the inputs, channel labels.
#[test]
fn plan_steps_can_only_name_what_exists() {
    use brainlens::llm::schema::Schema;
    use brainlens::llm::schema::grammar::Grammar;
    let ws = tempfile::tempdir().unwrap();
    let inputs = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut st = SharedState::new(&inputs, ws.path());
    call(&mut st, "inspect_file", json!({"path": "eeg/mne_sample_eeg60.edf"})).unwrap();
    call(&mut st, "load_channels", json!({"recording": "rec1", "kind": "eog"})).unwrap();
    let menu = tools::toolset(Domain::Physiol);
    let schema = Schema::compile(&tools::step_schema(&menu, &st, 4)).unwrap();
    let g = Grammar::new(schema.clone());
    let accepts = |text: &str| {
        let mut s = g.start();
        g.feed_all(&mut s, text.as_bytes()) && g.accepts_end(&s)
    };
    for ok in [
        r#"{"tool":"load_channels","args":{"recording":"rec1","channels":["EEG 001","EOG 061"]}}"#,
        r#"{"tool":"filter","args":{"view":"v1","l_freq":1,"h_freq":null}}"#,
        r#"{"tool":"filter","args":{"view":"v1","l_freq":null,"h_freq":40}}"#,
        r#"{"tool":"filter","args":{"view":"v1","l_freq":0.5,"h_freq":40}}"#,
        r#"{"tool":"band_power","args":{"view":"$2","lo":8,"hi":13,"method":"multitaper"}}"#,
        r#"{"tool":"inspect_file","args":{"path":"eeg/mne_sample_eeg60.edf"}}"#,
    ] {
        assert!(accepts(ok), "{ok}");
        schema.validate(&serde_json::from_str(ok).unwrap()).unwrap();
    }
    for bad in [
        r#"{"tool":"filter","args":{"view":"v2","l_freq":1}}"#,
        r#"{"tool":"filter","args":{"view":"rec1"}}"#,
        // A constrained filter step writes both edges (a number or null; `check` refuses two nulls).
        r#"{"tool":"filter","args":{"view":"v1"}}"#,
        r#"{"tool":"filter","args":{"view":"v1","l_freq":1}}"#,
        r#"{"tool":"load_channels","args":{"recording":"v1"}}"#,
        r#"{"tool":"load_channels","args":{"recording":"rec1","channels":["Fp1"]}}"#,
        r#"{"tool":"inspect_file","args":{"path":"eeg/nope.edf"}}"#,
        r#"{"tool":"load_hypnogram","args":{"path":"hypnograms/x.csv","column":"a"}}"#,
        r#"{"tool":"filter","args":{"view":"v1","method":"plv"}}"#,
        r#"{"tool":"band_power","args":{"view":"v1","lo":8,"hi":13,"method":"fft"}}"#,
    ] {
        assert!(!accepts(bad), "{bad}");
        assert!(schema.validate(&serde_json::from_str(bad).unwrap()).is_err(), "{bad}");
    }
    // A table column is one of the columns in the inputs' CSV headers.
    let cols = st.table_columns();
    assert!(cols.contains(&"reference".to_string()) && cols.contains(&"device".to_string()), "{cols:?}");
    let sleep_g = Grammar::new(Schema::compile(&tools::step_schema(&tools::toolset(Domain::Sleep), &st, 4)).unwrap());
    let sleep_accepts = |text: &str| {
        let mut s = sleep_g.start();
        sleep_g.feed_all(&mut s, text.as_bytes()) && sleep_g.accepts_end(&s)
    };
    assert!(sleep_accepts(
        r#"{"tool":"load_hypnogram","args":{"path":"hypnograms/sample_data_sri.csv","column":"reference"}}"#
    ));
    assert!(!sleep_accepts(
        r#"{"tool":"load_hypnogram","args":{"path":"hypnograms/sample_data_sri.csv","column":"referencia"}}"#
    ));
    // A `$k` resolves to the id its step registered when that is of the parameter's kind; otherwise to the
    // latest id of the kind, said in the trace.
    let filter = tools::spec("filter").unwrap();
    let (a, repairs) = tools::resolve_args(filter, &json!({"view": "$1", "l_freq": 1.0}), &[Some("v1".into())], &st);
    assert_eq!((a["view"].as_str(), repairs.len()), (Some("v1"), 0));
    for produced in [vec![], vec![Some("rec1".to_string())], vec![None]] {
        let (a, repairs) = tools::resolve_args(filter, &json!({"view": "$1", "l_freq": 1.0}), &produced, &st);
        assert_eq!((a["view"].as_str(), repairs.len()), (Some("v1"), 1), "{repairs:?}");
    }
    // Tools are offered whose id parameters have ids in the state, or that a step of the same plan can
    // register first (a hypnogram statistic after a load): a chain fits in one plan.
    let sleep = tools::toolset(Domain::Sleep);
    let offered: Vec<&str> = tools::offered(&sleep, &st).iter().map(|t| t.name).collect();
    assert!(offered.contains(&"filter") && offered.contains(&"load_hypnogram"), "{offered:?}");
    assert!(offered.contains(&"hypnogram_stats"), "labels can be loaded first: {offered:?}");
    let empty = SharedState::new(&inputs, ws.path());
    let from_nothing = tools::offered(&sleep, &empty);
    for t in &from_nothing {
        // Each id a tool takes is registered by some offered tool.
        for p in t.params {
            if let tools::Kind::Id(of) = p.kind {
                assert!(from_nothing.iter().any(|o| tools::registers(o.name) == Some(of)), "{}: {of:?}", t.name);
            }
        }
    }
    let names: Vec<&str> = from_nothing.iter().map(|t| t.name).collect();
    assert!(names.contains(&"band_power") && names.contains(&"scorer_agreement"), "{names:?}");
    // Every id the schema offers for a view passes the tool's own check once resolved.
    for id in st.ids(Of::View) {
        tools::check(tools::spec("filter").unwrap(), &args(json!({"view": id, "l_freq": 1.0})), &st).unwrap();
    }
}

#[test]
fn the_runner_refuses_clearly() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r.json");
    let (code, _, err) = common::run(&[
        "bench",
        "run",
        "/nonexistent/suite",
        "--provider",
        "replay",
        "--transcript",
        "/nonexistent.jsonl",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent.jsonl"), "{err}");
    let s = d.path().join("suite");
    common::json(&["bench", "generate", "--out", s.to_str().unwrap(), "--json"]);
    let t = d.path().join("t.jsonl");
    std::fs::write(&t, "").unwrap();
    let (code, _, err) = common::run(&[
        "bench",
        "run",
        s.to_str().unwrap(),
        "--paradigm",
        "codeact",
        "--python",
        "/nonexistent/python3",
        "--provider",
        "replay",
        "--transcript",
        t.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("CodeAct needs its Python environment") && err.contains("/nonexistent/python3"), "{err}");
    // A broken case file is skipped with its name; the rest run (an empty transcript: configuration errors, kept).
    let bad = s.join("Foundational_Analysis/cases/case1/case1_1.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let (code, _, err) = common::run(&[
        "bench",
        "run",
        s.join("Foundational_Analysis").to_str().unwrap(),
        "--limit",
        "2",
        "--provider",
        "replay",
        "--transcript",
        t.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("case1_1.json") && err.contains("not valid JSON"), "{err}");
    let f = brainlens::bench::results::ResultFile::load(&out).unwrap();
    assert_eq!(f.instances.len(), 2);
    assert!(
        f.instances.iter().all(|i| i.errors.iter().any(|e| e.contains("no recorded response"))),
        "{:?}",
        f.instances[0].errors
    );
}

#[test]
fn every_listed_tool_runs_through_its_own_handler_and_refuses_empty_arguments() {
    let ws = tempfile::tempdir().unwrap();
    let inputs = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut names = std::collections::BTreeSet::new();
    for t in tools::TOOLS {
        assert!(names.insert(t.name), "{} listed twice", t.name);
        let mut st = SharedState::new(&inputs, ws.path());
        // Unchecked empty arguments reach the handler the table registers for the name: an error, no panic.
        let direct = (t.run)(&tools::Args(&Map::new()), &mut st);
        let by_name = tools::run(t.name, &Map::new(), &mut st);
        assert!(direct.is_err() && by_name.is_err(), "{}: {direct:?} / {by_name:?}", t.name);
        assert_eq!(direct, by_name, "{}: the name dispatches to the listed handler", t.name);
    }
    assert!(tools::run("no_such_tool", &Map::new(), &mut SharedState::new(&inputs, ws.path())).is_err());
}

/// A plan that is neither done nor has a step (the capable model's failure: a thought cut at its budget,
/// then `"steps": [], "done": false`) is asked again with the reason, and the second plan runs; a route
/// that lacks the subset's domain tools is corrected, and both are recorded in the trace.
#[test]
fn an_empty_plan_is_asked_again_and_a_wrong_route_is_corrected() {
    use brainlens::agent::eeg::{Settings, run};
    use brainlens::util::cancel::Cancel;
    use common::eeg_scripted::EegScripted;
    let (d, inputs) = inputs_with_recording();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = asked.clone();
    let model = EegScripted::with(move |name, r| {
        let prompt = r.messages.iter().map(|m| m.content.clone()).collect::<Vec<_>>().join("\n");
        match name {
            "route" => Some(Ok(json!({"agent": "SleepAgent", "reason": "EEG data"}))),
            // The first plan only: a cut thought and nothing to run.
            "plan" if seen.lock().unwrap().is_empty() => {
                seen.lock().unwrap().push("empty".into());
                Some(Ok(json!({"thought": "first load_channels, select_channels, ", "steps": [], "done": false})))
            }
            "plan" => {
                let again = prompt.contains("Your plan had no steps but done was false");
                seen.lock().unwrap().push(if again { "again" } else { "later" }.into());
                None
            }
            _ => None,
        }
    });
    let query =
        "Load the data file: data/rec.edf\nReport the mean relative power of the 8-13 Hz band across EEG channels.";
    let o = run(
        query,
        Some("Physiological Integration"),
        &inputs,
        &d.path().join("work"),
        &model,
        &Cancel::default(),
        &Settings::default(),
    );
    assert!(o.failure.is_none(), "{:?}", o.failure);
    let route = o.trace.route.as_ref().unwrap();
    assert_eq!(route.agent, "PhysiolAgent");
    assert!(
        route.check.as_deref().is_some_and(|c| c.contains("SleepAgent") && c.contains("PhysiolAgent")),
        "{route:?}"
    );
    let first = &o.trace.rounds[0];
    assert_eq!(first.replanned.as_deref(), Some("the plan had no steps but was not done"));
    assert!(first.executed.iter().any(|s| s.tool == "band_power" && s.status == "ok"), "{:?}", first.executed);
    assert_eq!(asked.lock().unwrap()[..2], ["empty".to_string(), "again".to_string()]);
    assert!(o.trace.calls.iter().any(|c| c.step == "plan 1 (again)"));
    // Foundational tasks need only the common tools: any route stands.
    let o = run(
        query,
        Some("Foundational Analysis"),
        &inputs,
        &d.path().join("w2"),
        &EegScripted::default(),
        &Cancel::default(),
        &Settings::default(),
    );
    assert!(o.trace.route.as_ref().unwrap().check.is_none());
}

/// Runs an inspection whose first report is `first`; the report asked for again (a new request of two
/// messages whose note `check_ask` accepts) is `second`. The outcome is checked to have ended without failure
/// and with `second` as a grounded report.
fn report_asked_again(
    query: &str,
    first: &'static str,
    check_ask: fn(&str),
    second: &'static str,
) -> brainlens::agent::eeg::Outcome {
    use brainlens::agent::eeg::{Settings, run};
    use brainlens::agent::grounding;
    use brainlens::util::cancel::Cancel;
    use common::eeg_scripted::EegScripted;
    let (d, inputs) = inputs_with_recording();
    let model = EegScripted::with(move |name, r| match name {
        // Only the file is inspected.
        "plan" => Some(Ok(json!({"done": true, "thought": "inspect",
            "steps": [{"tool": "inspect_file", "args": {"path": "data/rec.edf"}}]}))),
        "" if !r.messages.last().unwrap().content.contains("An earlier answer") => Some(Ok(json!(first))),
        "" => {
            // A new request with the reason, not a second turn after the rejected report.
            assert_eq!(r.messages.len(), 2);
            check_ask(&r.messages.last().unwrap().content);
            Some(Ok(json!(second)))
        }
        _ => None,
    });
    let o = run(query, None, &inputs, &d.path().join("w"), &model, &Cancel::default(), &Settings::default());
    assert!(o.failure.is_none(), "{:?}", o.failure);
    assert_eq!(o.trace.report_text, second);
    assert!(grounding::ungrounded(&o.trace.report_text, &grounding::done_by_tools(&o.trace), query).is_empty());
    o
}

/// A report that claims work no step did (the capable model's habit: "The EEG channels were band-pass
/// filtered … the Welch PSD was computed" after an inspection) is asked for again in a new request naming
/// the work it claimed; the second report stands, and the trace says why it was written again.
#[test]
fn a_report_claiming_work_no_step_did_is_written_again() {
    let o = report_asked_again(
        "Load the data file: data/rec.edf\nBand-pass filter the EEG and report the alpha relative power.",
        "The data file was loaded. The EEG channels were band-pass filtered and the Welch PSD was computed.",
        |asked| assert!(asked.contains("filtering") && !asked.contains("band-pass filtered"), "{asked}"),
        "The file was inspected: 60 EEG channels. Nothing was filtered or computed.",
    );
    let again = o.trace.report_again.as_deref().unwrap_or_default();
    assert!(again.contains("filtering") && again.contains("spectral"), "{again}");
    assert!(o.trace.calls.iter().any(|c| c.step == "report (again)"));
}

/// A report that still claims work no step did when asked again (4 of the 54 Qwen model-report instances at
/// ee7d256) has those sentences struck: the delivered report shows a marker in their place and keeps the rest,
/// the trace keeps the report as written and what was struck.
#[test]
fn what_a_report_still_claims_after_the_re_ask_is_struck() {
    use brainlens::agent::eeg::{ReportMode, Settings, run};
    use brainlens::agent::grounding::{self, Work, strike::marker};
    use brainlens::util::cancel::Cancel;
    use common::eeg_scripted::EegScripted;
    let (d, inputs) = inputs_with_recording();
    let claim = "The file was inspected: 60 EEG channels. The Welch PSD was computed for each channel.";
    let model = EegScripted::with(move |name, _| match name {
        "plan" => Some(Ok(json!({"done": true, "thought": "inspect",
            "steps": [{"tool": "inspect_file", "args": {"path": "data/rec.edf"}}]}))),
        "" => Some(Ok(json!(claim))),
        _ => None,
    });
    let query = "Load the data file: data/rec.edf\nReport the alpha relative power.";
    let s = Settings { report: ReportMode::Model, ..Settings::default() };
    let o = run(query, None, &inputs, &d.path().join("w"), &model, &Cancel::default(), &s);
    assert!(o.failure.is_none(), "{:?}", o.failure);
    let struck = format!("The file was inspected: 60 EEG channels. {}.", marker(&[Work::Spectrum]));
    assert_eq!((o.report.as_str(), o.trace.report_text.as_str()), (struck.as_str(), struck.as_str()));
    assert_eq!(o.trace.report_as_written.as_deref(), Some(claim));
    assert_eq!(o.trace.struck_claims.iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Spectrum]);
    assert!(grounding::ungrounded(&o.report, &grounding::done_by_tools(&o.trace), query).is_empty());
}

/// A report that states values no step measured (Qwen2.5-Coder-1.5B's "72 bpm, and the RMSSD is 0.12" for
/// a missing file) is asked for again, as a claim of work is: the note names the kind, not the values; the
/// trace keeps the measured results the values were checked against.
#[test]
fn a_report_stating_a_value_no_step_measured_is_written_again() {
    let o = report_asked_again(
        "Load the data file: data/rec.edf\nReport the mean heart rate as hr_bpm.",
        "The mean heart rate of the ECG is 72 bpm, and the RMSSD is 0.12.",
        |asked| assert!(asked.contains("a value nothing measured") && !asked.contains("72 bpm"), "{asked}"),
        "The file holds 60 EEG channels; the heart rate could not be measured.",
    );
    let again = o.trace.report_again.as_deref().unwrap_or_default();
    assert_eq!(again, "the report claimed work no step did: a value nothing measured");
    assert!(o.trace.measured.starts_with("Measured results"), "{}", o.trace.measured);
}

/// A report that repeats its prompt (Qwen2.5-Coder-1.5B's answer in 32 of 54 suite instances: "Task: …
/// Steps that ran: …" to the token limit) is asked for again; the second report stands and the trace says why.
#[test]
fn a_report_that_repeats_its_prompt_is_written_again() {
    use brainlens::agent::eeg::{Settings, run};
    use brainlens::util::cancel::Cancel;
    use common::eeg_scripted::EegScripted;
    let (d, inputs) = inputs_with_recording();
    let model = EegScripted::with(|name, r| match name {
        "plan" => Some(Ok(json!({"done": true, "thought": "inspect",
            "steps": [{"tool": "inspect_file", "args": {"path": "data/rec.edf"}}]}))),
        // The prompt itself, cut as at the token limit.
        "" if !r.messages.last().unwrap().content.contains("An earlier answer") => {
            let prompt = &r.messages.last().unwrap().content;
            Some(Ok(json!(prompt.chars().take(prompt.chars().count() * 2 / 3).collect::<String>())))
        }
        "" => {
            let asked = r.messages.last().unwrap().content.clone();
            assert_eq!(r.messages.len(), 2);
            assert!(asked.contains("repeated the task"), "{asked}");
            Some(Ok(json!("The file was inspected: 60 EEG channels. Nothing was filtered or computed.")))
        }
        _ => None,
    });
    let query = "Load the data file: data/rec.edf\nReport the number of EEG channels as n_eeg.";
    let o = run(query, None, &inputs, &d.path().join("w"), &model, &Cancel::default(), &Settings::default());
    assert!(o.failure.is_none(), "{:?}", o.failure);
    assert!(o.trace.report_again.as_deref().unwrap_or_default().contains("repeated its prompt"));
    assert!(o.trace.calls.iter().any(|c| c.step == "report (again)"));
    assert_eq!(o.trace.report_text, "The file was inspected: 60 EEG channels. Nothing was filtered or computed.");
}

/// A step that repeats one that already succeeded (same tool and arguments) is not run again: the trace
/// says which round ran it and which id to use (the capable model re-planned its first step every round).
#[test]
fn a_repeated_step_is_not_run_again() {
    use brainlens::agent::eeg::{Settings, run};
    use brainlens::util::cancel::Cancel;
    use common::eeg_scripted::EegScripted;
    let (d, inputs) = inputs_with_recording();
    let menus = std::sync::Arc::new(std::sync::Mutex::new(Vec::<bool>::new()));
    let seen = menus.clone();
    let model = EegScripted::with(move |name, r| match name {
        "plan" => {
            let prompt = &r.messages.last().unwrap().content;
            // Every tool is described in the prompt's stable part; the usable ones are named at its end.
            let usable = prompt.lines().find(|l| l.starts_with("Tools this plan may use:")).unwrap_or("");
            seen.lock().unwrap().push(usable.contains("inspect_file"));
            Some(Ok(json!({"done": false, "thought": "inspect",
                "steps": [{"tool": "inspect_file", "args": {"path": "data/rec.edf"}}]})))
        }
        _ => None,
    });
    let query = "Load the data file: data/rec.edf\nReport the number of EEG channels.";
    let s = Settings { max_rounds: 4, ..Settings::default() };
    let o = run(query, None, &inputs, &d.path().join("w"), &model, &Cancel::default(), &s);
    assert!(o.failure.is_none(), "{:?}", o.failure);
    assert_eq!(o.trace.rounds[0].executed[0].status, "ok");
    let again = &o.trace.rounds[1].executed[0];
    assert_eq!(again.status, "repeated");
    assert!(again.error.as_deref().is_some_and(|e| e.contains("round 1") && e.contains("rec1")), "{again:?}");
    assert_eq!(o.trace.rounds.iter().flat_map(|r| &r.executed).filter(|s| s.status == "ok").count(), 1);
    // Once a step of a tool was refused as a repeat, the tool is off the menu for the rest of the run: from
    // round 2's second ask on (this scripted model ignores the menu, so rounds 3 and 4 are asked twice too).
    assert_eq!(*menus.lock().unwrap(), [true, true, false, false, false, false, false]);
}

/// A plan whose first step repeats one that ran is asked again in the same round, with the reason and
/// without that tool: the round goes to a step that has not run.
#[test]
fn a_plan_that_starts_with_a_repeat_is_asked_again_in_the_round() {
    use brainlens::agent::eeg::{Settings, run};
    use brainlens::util::cancel::Cancel;
    use common::eeg_scripted::EegScripted;
    let (d, inputs) = inputs_with_recording();
    let model = EegScripted::with(move |name, r| match name {
        "plan" => {
            let prompt = &r.messages.last().unwrap().content;
            let step = if prompt.contains("first step was not run") {
                json!({"tool": "load_channels", "args": {"recording": "rec1"}})
            } else {
                json!({"tool": "inspect_file", "args": {"path": "data/rec.edf"}})
            };
            Some(Ok(json!({"done": false, "thought": "next", "steps": [step]})))
        }
        _ => None,
    });
    let query = "Load the data file: data/rec.edf\nReport the number of EEG channels.";
    let s = Settings { max_rounds: 2, ..Settings::default() };
    let o = run(query, None, &inputs, &d.path().join("w"), &model, &Cancel::default(), &s);
    assert!(o.failure.is_none(), "{:?}", o.failure);
    let r2 = &o.trace.rounds[1];
    assert_eq!((r2.executed[0].tool.as_str(), r2.executed[0].status.as_str()), ("load_channels", "ok"));
    let why = r2.replanned.as_deref().unwrap_or("");
    assert!(why.contains("first step was not run") && why.contains("round 1") && why.contains("rec1"), "{why}");
    assert!(o.trace.calls.iter().any(|c| c.step == "plan 2 (again)"));
    // Round 1 had nothing to repeat: one call.
    assert!(!o.trace.calls.iter().any(|c| c.step == "plan 1 (again)"));
}

/// A step that failed is not run again with the same arguments either: the trace repeats the failure.
#[test]
fn a_repeated_failing_step_is_not_run_again() {
    use brainlens::agent::eeg::{Settings, run};
    use brainlens::util::cancel::Cancel;
    use common::eeg_scripted::EegScripted;
    let (d, inputs) = inputs_with_recording();
    let model = EegScripted::with(|name, _| match name {
        "plan" => Some(Ok(json!({"done": false, "thought": "inspect",
            "steps": [{"tool": "inspect_file", "args": {"path": "data/missing.edf"}}]}))),
        _ => None,
    });
    let query = "Load the data file: data/missing.edf\nReport the number of EEG channels.";
    let s = Settings { max_rounds: 2, ..Settings::default() };
    let o = run(query, None, &inputs, &d.path().join("w"), &model, &Cancel::default(), &s);
    assert_eq!(o.trace.rounds[0].executed[0].status, "failed");
    let again = &o.trace.rounds[1].executed[0];
    assert_eq!(again.status, "repeated");
    assert!(
        again.error.as_deref().is_some_and(|e| e.contains("already failed in round 1") && e.contains("missing.edf")),
        "{again:?}"
    );
}
