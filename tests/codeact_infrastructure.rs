//! A CodeAct kernel that cannot be started again is an infrastructure failure (the BrainBench paper's
//! Table 11), not an agent error: the loop ends with `api_infrastructure_error`, and the runner reruns the
//! instance and keeps it out of the scores. The kernel runs unsandboxed here (no bubblewrap needed); its
//! interpreter is a link that the test removes, so the restart after the kernel exits cannot spawn.

mod common;
use brainlens::agent::codeact::{Settings, run};
use brainlens::llm::ErrorClass;
use brainlens::sandbox::Spec;
use brainlens::sandbox::kernel::Kernel;
use brainlens::util::cancel::Cancel;
use common::codeact_scripted::CodeActScripted;
use serde_json::Value;

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
