//! A CodeAct kernel that cannot be started again is an infrastructure failure (the BrainBench paper's
//! Table 11), not an agent error: the loop ends with `api_infrastructure_error`, and the runner reruns the
//! instance and keeps it out of the scores. The kernel runs unsandboxed here (no bubblewrap needed); its
//! interpreter is a link that the test removes, so the restart after the kernel exits cannot spawn.

mod common;
use brainlens::agent::codeact::{Outcome, Settings, run};
use brainlens::agent::grounding::Work;
use brainlens::llm::{ChatRequest, ErrorClass};
use brainlens::sandbox::Spec;
use brainlens::sandbox::kernel::Kernel;
use brainlens::util::cancel::Cancel;
use common::codeact_scripted::CodeActScripted;
use serde_json::Value;

/// A kernel without bubblewrap (these tests are about the loop, not the sandbox), its workspace in `dir`.
fn unsandboxed_kernel(dir: &std::path::Path) -> Kernel {
    let mut spec = Spec::new(&dir.join("ws"));
    spec.unsafe_no_sandbox = true;
    Kernel::start(&spec, std::path::Path::new("python3")).unwrap()
}

/// Runs the loop on `task` in an unsandboxed kernel with a scripted model that answers each request with
/// `reply(request)`.
fn run_scripted(task: &str, reply: impl Fn(&ChatRequest) -> String + Send + Sync + 'static) -> Outcome {
    let d = tempfile::tempdir().unwrap();
    let mut kernel = unsandboxed_kernel(d.path());
    let model = CodeActScripted { over: Some(Box::new(move |r| Some(Ok(Value::String(reply(r)))))) };
    run(task, &mut kernel, &model, &Cancel::default(), &Settings::default())
}

#[test]
fn a_kernel_that_cannot_restart_ends_the_run_as_an_infrastructure_failure() {
    let d = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().unwrap();
    let real = std::path::PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    let python = d.path().join("python3");
    std::os::unix::fs::symlink(&real, &python).unwrap();
    let mut spec = Spec::new(&d.path().join("ws"));
    spec.unsafe_no_sandbox = true;
    let mut kernel = Kernel::start(&spec, &python).unwrap();
    std::fs::remove_file(&python).unwrap();
    // The model's first block ends the kernel process; the restart finds no interpreter.
    let model = CodeActScripted {
        over: Some(Box::new(|_| Some(Ok(Value::String("<execute>import os\nos._exit(3)</execute>".into()))))),
    };
    let o = run("Report the answer.", &mut kernel, &model, &Cancel::default(), &Settings::default());
    let failure = o.failure.expect("the run fails");
    assert_eq!(failure.class, ErrorClass::ApiInfrastructureError, "{failure:?}");
    assert!(failure.message.contains("could not be started again"), "{}", failure.message);
    assert_eq!(o.trace.outcome, "api_infrastructure_error");
    assert_eq!(o.trace.ended_by, "kernel_failed");
    assert_eq!(o.trace.rounds.len(), 1, "the model is not asked again");
    assert!(o.report.is_empty());
}

/// A block that resent the code of a failed round is not run again: the model is asked once more in the
/// same round, told which round failed and with what, and its second answer runs (the first stays in the
/// trace); a block that ran is not run again either. Unsandboxed kernel, scripted model: round 1 fails,
/// round 2 resends it and the re-ask gets the fixed block, round 3 resends that and the re-ask answers.
#[test]
fn resent_failing_code_is_asked_again_not_run_again() {
    let o = run_scripted("Report x.", |r| {
        let last = &r.messages.last().unwrap().content;
        let good = "<execute>x = 41 + 1\nprint('x', x)\n</execute>";
        let text = if last.contains("Note: the code of round 1 failed with") {
            good
        } else if last.contains("Note: the code of round 2 already ran") {
            "<solution>x: 42</solution>"
        } else if last.contains("x 42") {
            good
        } else {
            "<execute>import sys\nx = sys.no_such_name\n</execute>"
        };
        text.into()
    });
    assert!(o.failure.is_none(), "{:?}", o.failure);
    let r = &o.trace.rounds;
    assert_eq!(r.len(), 3, "{r:#?}");
    assert!(r[0].failed && r[0].observation.contains("AttributeError"), "{:?}", r[0]);
    let resent = r[1].resent.as_ref().expect("round 2 resent round 1's code");
    assert_eq!(resent.of_round, 1);
    assert!(resent.reply.contains("sys.no_such_name"));
    assert!(!r[1].failed && r[1].observation.contains("x 42"), "{:?}", r[1]);
    assert_eq!(r[2].resent.as_ref().map(|x| x.of_round), Some(2), "{:?}", r[2]);
    assert!(r[2].code.is_none() && r[2].reply.starts_with("<solution>"));
    assert_eq!(o.report, "x: 42");
}

/// A block that ran, sent again after the note that it ran, runs once more and the next turn is the last.
/// Scripted model: the same block every turn until it is told the turn is the last.
#[test]
fn a_block_that_ran_sent_again_after_the_note_makes_the_next_turn_the_last() {
    let o = run_scripted("Report x.", |r| {
        let asked: String = r.messages.iter().map(|m| m.content.as_str()).collect();
        let text = if asked.contains("This is the last turn") {
            "<solution>x: 42</solution>"
        } else {
            "<execute>x = 41 + 1\nprint('x', x)\n</execute>"
        };
        text.into()
    });
    assert!(o.failure.is_none(), "{:?}", o.failure);
    let r = &o.trace.rounds;
    assert_eq!(r.len(), 3, "{r:#?}");
    assert!(r[0].observation.contains("x 42") && !r[0].observation.contains("Note:"), "{:?}", r[0]);
    assert_eq!(r[1].resent.as_ref().map(|x| x.of_round), Some(1), "{:?}", r[1]);
    assert!(r[1].code.is_some() && !r[1].failed, "{:?}", r[1]);
    assert!(r[1].observation.contains("this is the code of round 1 again"), "{}", r[1].observation);
    assert_eq!(o.trace.ended_by, "forced_solution");
    assert_eq!(o.report, "x: 42");
}

/// An empty `<execute>` block runs nothing and is answered as a reply without an action.
#[test]
fn an_empty_block_runs_nothing_and_is_told_so() {
    let o = run_scripted("Report x.", |r| {
        let last = &r.messages.last().unwrap().content;
        let text = if last.contains("was empty") { "<solution>nothing computed</solution>" } else { "<execute>\n\n" };
        text.into()
    });
    let r = &o.trace.rounds;
    assert_eq!(r.len(), 2, "{r:#?}");
    assert!(r[0].code.is_none() && r[0].failed && r[0].observation.contains("nothing ran"), "{:?}", r[0]);
    assert_eq!(o.report, "nothing computed");
}

/// A solution claiming work that no code that ran did is answered once an instance, in its round: the model
/// is told which work it claimed (not shown its reply), and its second answer is the solution (kept even if it still claims:
/// the runner's check flags it). Scripted model: round 1 computes x without touching data; the solution
/// claims a load and a filter; asked again it keeps the filter claim, and is not asked a third time.
#[test]
fn a_solution_claiming_work_no_code_did_is_asked_again_once() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let o = run_scripted("Report x.", |r| {
        CALLS.fetch_add(1, Ordering::SeqCst);
        let last = &r.messages.last().unwrap().content;
        let text = if last.contains("Note: an earlier answer was a solution that claimed work") {
            assert!(last.contains("loading the data") && last.contains("filtering"), "{last}");
            assert!(!last.contains("I loaded the EEG file"), "the rejected reply is not shown again: {last}");
            "<solution>x: 42. The signal was filtered 1-30 Hz.</solution>"
        } else if last.contains("x 42") {
            "<solution>I loaded the EEG file and filtered it 1-30 Hz. x: 42</solution>"
        } else {
            "<execute>x = 41 + 1\nprint('x', x)\n</execute>"
        };
        text.into()
    });
    assert!(o.failure.is_none(), "{:?}", o.failure);
    let r = &o.trace.rounds;
    assert_eq!(r.len(), 2, "{r:#?}");
    let again = r[1].solution_again.as_ref().expect("round 2's first solution was asked again");
    assert!(again.reply.contains("I loaded the EEG file"), "{again:?}");
    let works = &again.works;
    assert!(
        works.iter().any(|w| w == Work::Load.name()) && works.iter().any(|w| w == Work::Filter.name()),
        "{works:?}"
    );
    // What the second answer still claims is struck from the report; the trace keeps it as written.
    // (Its band, 1-30 Hz, is a value nothing printed.)
    let marker = brainlens::agent::grounding::strike::marker(&[Work::Filter, Work::Value]);
    assert_eq!(o.report, format!("x: 42. {marker}."));
    assert_eq!(o.trace.solution_as_written.as_deref(), Some("x: 42. The signal was filtered 1-30 Hz."));
    assert_eq!(o.trace.struck_claims.iter().map(|c| c.work).collect::<Vec<_>>(), [Work::Filter, Work::Value]);
    assert_eq!(CALLS.load(Ordering::SeqCst), 3, "asked again once, not a third time");
}

/// A block that fails after some of its statements ran keeps them: the observation says which lines ran,
/// the model's next request shows the block from its failing line on, and sending that part again is asked
/// again, not run. Unsandboxed kernel, scripted model: round 1 loads x then fails; round 2 resends the failing
/// part and, asked again, fixes it using the x that round 1 left.
#[test]
fn a_block_that_fails_part_way_keeps_what_ran_and_shows_the_rest() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = seen.clone();
    let o = run_scripted("Report x2.", move |r| {
        let last = &r.messages.last().unwrap().content;
        let history: Vec<String> = r.messages.iter().map(|m| m.content.clone()).collect();
        log.lock().unwrap().push(history.join("\n---\n"));
        let text = if last.contains("x2 82") {
            "<solution>x2: 82</solution>"
        } else if last.contains("Note: the code of round 1 failed with") {
            "<execute>print('x2', x * 2)</execute>"
        } else if last.contains("send the code from line 3 on") {
            "<execute>import sys\nprint('x2', x * sys.no_such_name)</execute>"
        } else {
            "<execute>import sys\nx = 41\nprint('x2', x * sys.no_such_name)</execute>"
        };
        text.into()
    });
    assert!(o.failure.is_none(), "{:?}", o.failure);
    let r = &o.trace.rounds;
    assert_eq!(r.len(), 3, "{r:#?}");
    assert_eq!(r[0].stopped_at, Some(3));
    assert!(
        r[0].observation.contains("lines 1–2 of this block ran without an error and bound x"),
        "{}",
        r[0].observation
    );
    let history = seen.lock().unwrap()[1].clone();
    assert!(
        history.contains(
            "<execute>\n# Lines 1–2 ran without an error; x is defined.\nprint('x2', x * sys.no_such_name)\n</execute>"
        ),
        "{history}"
    );
    assert_eq!(r[1].resent.as_ref().map(|x| x.of_round), Some(1), "{:?}", r[1]);
    assert!(!r[1].failed && r[1].observation.contains("x2 82"), "{:?}", r[1]);
    assert_eq!(o.report, "x2: 82");
}

/// Kernels started at once after the driver changed (a stale `driver.py` in the cache) all start: each writes
/// the new driver under its own temporary name (one name per process let one thread rename another's away).
#[test]
fn kernels_started_at_once_over_a_stale_driver_all_start() {
    let dir = brainlens::util::paths::cache_dir().join("kernel");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("driver.py"), "# stale").unwrap();
    let d = tempfile::tempdir().unwrap();
    std::thread::scope(|s| {
        let started: Vec<_> = (0..4)
            .map(|i| {
                s.spawn({
                    let ws = d.path().join(i.to_string());
                    move || unsandboxed_kernel(&ws).exec("print(1)", 10.0).unwrap().stdout
                })
            })
            .collect();
        for t in started {
            assert_eq!(t.join().unwrap(), "1\n");
        }
    });
}
