//! Runs of one model and paradigm in two report modes are not repeats: on the shipped real runs
//! (fixtures/bench/real: Qwen2.5-Coder-1.5B's BrainAgent with `--report system` and `--report model`) the
//! leaderboard keeps them apart, and the "model" run pairs with CodeAct (both the model's text alone).

use brainlens::bench::aggregate::{Levels, Report};
use brainlens::bench::collection::{BRAINAGENT, CODEACT, Collection, HYBRID};
use std::path::Path;

#[test]
fn two_report_modes_of_one_model_stay_apart_on_the_leaderboard() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/bench/real");
    let c = Collection::load(&[real]);
    let qwen = "local:qwen2.5-coder-1.5b-instruct-q4_k_m";
    let system = format!("{qwen} [system report]");
    let report = Report::build(&c, Levels::default());
    let overall = |model: &str, paradigm: &str| {
        let cells: Vec<_> = report
            .leaderboard
            .iter()
            .filter(|x| x.model == model && x.paradigm == paradigm && x.key == "Overall")
            .collect();
        assert_eq!(cells.len(), 1, "{model} {paradigm}: {:?}", report.leaderboard);
        cells[0].value
    };
    // Expected values: the shipped files' difficulty-weighted scores, as `bench report` printed each file
    // alone (docs/bench.md, "A real demo"); tolerance 0.005 (two decimals). The system-report run (c7c0719)
    // scores what the model-report run (0769874) scores, instance for instance: at temperature 0 their plans
    // and tool calls are the same (the report mode changes only the report), and the parser read the same
    // values from both.
    assert!((overall(&system, BRAINAGENT) - 43.85).abs() < 0.005);
    // The model-report run: 0769874 (docs/bench.md).
    assert!((overall(qwen, BRAINAGENT) - 43.85).abs() < 0.005);
    // CodeAct: the c7c0719 run, its reports struck while it ran (docs/bench.md).
    assert!((overall(qwen, CODEACT) - 17.47).abs() < 0.005);
    // The hybrid: the complete suite run of 2026-12-07 at 446a020 (docs/bench.md, "The hybrid paradigm"; one report mode, so
    // the model keeps its name).
    assert!((overall(qwen, HYBRID) - 39.45).abs() < 0.005);
    // Provenance says how many reports were struck, and when: by `bench strike` after the run, or while the
    // run ran (the CodeAct file and the system-report BrainAgent file, c7c0719, and the model-report
    // BrainAgent file, 0769874; docs/bench.md: 2, 6 and 5).
    let lines = c.provenance();
    let line = |what: &str| lines.iter().find(|l| l.contains(what)).unwrap_or_else(|| panic!("{what}: {lines:?}"));
    assert!(line("CodeAct, report model").ends_with("2 reports struck while it ran"), "{lines:?}");
    assert!(line("BrainAgent, report model").ends_with("5 reports struck while it ran"), "{lines:?}");
    assert!(line("BrainAgent, report system").ends_with("6 reports struck while it ran"), "{lines:?}");
    assert!(line("Hybrid, report system").ends_with("4 reports struck while it ran"), "{lines:?}");
    // One mode only: the name stays as it is.
    assert!(c.runs.iter().any(|r| r.model == "local:SmolLM2-135M-Instruct.Q4_1" && r.paradigm == BRAINAGENT));
    assert!(c.runs.iter().all(|r| r.run == 1), "no run is a repeat of another");
    // Answers that scored but no output of what ran shows (docs/bench.md, read by hand from the traces): in the
    // CodeAct run, Foundational 2_1 and 2_2 ("delta": no code that ran printed a band), 3_2 (12.5 Hz: a PSD
    // ran and printed no peak) and Neurocognitive 3_1 ("visual"); the table's examples are
    // the first three. In SmolLM2's BrainAgent run, Foundational 6_1 ("theta", and no step computed a PLV); in
    // Qwen's model-report BrainAgent run, Foundational 2_2 ("delta": the one band power was 1-4 Hz relative to
    // 1-4 Hz, 100 %) and Neurocognitive 3_1 ("visual": no step computed an event power), and the same two in
    // its system-report run (the same steps).
    let unshown = |paradigm: &str, model: &str| {
        let rows: Vec<_> =
            report.failures_of("answer_unshown").filter(|f| f.paradigm == paradigm && f.model == model).collect();
        let mut ids: Vec<String> = rows.iter().flat_map(|f| f.examples.clone()).collect();
        ids.sort();
        (rows.iter().map(|f| f.count).sum::<usize>(), ids)
    };
    let (n, ids) = unshown(CODEACT, qwen);
    assert_eq!(n, 4);
    assert_eq!(
        ids,
        [
            "Foundational Analysis-case2-case2_1",
            "Foundational Analysis-case2-case2_2",
            "Foundational Analysis-case3-case3_2"
        ]
    );
    let (n, ids) = unshown(BRAINAGENT, "local:SmolLM2-135M-Instruct.Q4_1");
    assert_eq!((n, ids), (1, vec!["Foundational Analysis-case6-case6_1".to_string()]));
    let (n, ids) = unshown(BRAINAGENT, qwen);
    assert_eq!(n, 2);
    assert_eq!(ids, ["Foundational Analysis-case2-case2_2", "Neurocognitive Assessment-case3-case3_1"]);
    assert_eq!(unshown(BRAINAGENT, &system), unshown(BRAINAGENT, qwen));
    // The hybrid run: Foundational 2_1 and 2_2 ("delta"), as in CodeAct's run, and Neurocognitive 3_1 ("visual"),
    // as in BrainAgent's (docs/bench.md).
    let (n, ids) = unshown(HYBRID, qwen);
    assert_eq!(n, 3);
    assert_eq!(
        ids,
        [
            "Foundational Analysis-case2-case2_1",
            "Foundational Analysis-case2-case2_2",
            "Neurocognitive Assessment-case3-case3_1"
        ]
    );
}
