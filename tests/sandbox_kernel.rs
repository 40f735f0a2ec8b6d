//! The persistent Python kernel in the sandbox: one namespace across blocks, stdout and the last expression's
//! repr, tracebacks that leave the kernel alive, an in-Python interrupt at the timeout, and a kill + restart
//! when a block cannot be interrupted. Skipped without bubblewrap unless BRAINLENS_REQUIRE_SANDBOX=1.

use brainlens::sandbox::Spec;
use brainlens::sandbox::kernel::Kernel;
use std::path::PathBuf;

fn python() -> PathBuf {
    let out = std::process::Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().unwrap();
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// Whether bubblewrap is here (the tests skip without it, unless BRAINLENS_REQUIRE_SANDBOX=1).
fn sandbox_here() -> bool {
    if brainlens::sandbox::bwrap_version().is_none() {
        assert_ne!(std::env::var("BRAINLENS_REQUIRE_SANDBOX").as_deref(), Ok("1"), "bubblewrap is missing");
        eprintln!("skipped: bubblewrap is not installed");
        return false;
    }
    true
}

#[test]
fn blocks_share_a_namespace_and_timeouts_interrupt_or_restart() {
    if !sandbox_here() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::write(input.join("a.txt"), "42").unwrap();
    let mut spec = Spec::new(&d.path().join("ws"));
    spec.input = Some(input);
    let mut k = Kernel::start(&spec, &python()).unwrap();
    assert_eq!(k.report.as_ref().unwrap().mode, "bubblewrap");
    let e = k.exec("x = int(open('/input/a.txt').read()) - 1\nprint('loaded', x)", 10.0).unwrap();
    assert_eq!((e.stdout.as_str(), e.error.as_deref()), ("loaded 41\n", None));
    let e = k.exec("x + 1", 10.0).unwrap();
    assert_eq!(e.result.as_deref(), Some("42"));
    let e = k.exec("1 / 0", 10.0).unwrap();
    assert!(e.error.as_deref().unwrap().contains("ZeroDivisionError"), "{e:?}");
    assert!(!e.error.as_deref().unwrap().contains("driver.py"), "the driver's frames are hidden: {e:?}");
    // Interrupted inside Python: the namespace survives.
    let e = k.exec("import time\ntime.sleep(30)", 1.0).unwrap();
    assert!(e.timed_out && !e.restarted && e.seconds < 5.0, "{e:?}");
    assert_eq!(k.exec("x", 10.0).unwrap().result.as_deref(), Some("41"));
    // A block that blocks the interrupt: killed after the grace period, the kernel starts again, empty.
    let e = k.exec("import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(60)", 1.0).unwrap();
    assert!(e.timed_out && e.restarted, "{e:?}");
    assert_eq!(k.restarts, 1);
    let e = k.exec("x", 10.0).unwrap();
    assert!(e.error.as_deref().unwrap().contains("NameError"), "{e:?}");
    // Artifacts land in the host workspace; exit() inside a block does not end the kernel.
    let e = k.exec("import os\nos.makedirs('/workspace/file_check', exist_ok=True)\nopen('/workspace/file_check/r.txt','w').write('ok')\nexit(3)", 10.0).unwrap();
    assert!(e.error.as_deref().unwrap().contains("SystemExit"), "{e:?}");
    assert_eq!(std::fs::read_to_string(d.path().join("ws/file_check/r.txt")).unwrap(), "ok");
    assert_eq!(k.exec("1 + 1", 10.0).unwrap().result.as_deref(), Some("2"));
}

/// A CodeAct kernel starts in the read-only input folder, so a task's relative path opens as given and a
/// write there fails; a traceback shows the failing line of the block.
#[test]
fn relative_paths_resolve_in_the_read_only_inputs_and_tracebacks_show_the_line() {
    if !sandbox_here() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in");
    std::fs::create_dir_all(input.join("data/eeg")).unwrap();
    std::fs::write(input.join("data/eeg/a.txt"), "42").unwrap();
    let mut spec = Spec::new(&d.path().join("ws"));
    spec.input = Some(input);
    spec.cwd_input = true;
    let mut k = Kernel::start(&spec, &python()).unwrap();
    let e = k.exec("import os\nprint(os.getcwd(), open('data/eeg/a.txt').read())", 10.0).unwrap();
    assert_eq!((e.stdout.as_str(), e.error.as_deref()), ("/input 42\n", None));
    let e = k.exec("open('out.txt', 'w').write('x')", 10.0).unwrap();
    assert!(e.error.as_deref().unwrap().contains("Read-only file system"), "{e:?}");
    let e = k.exec("values = [1, 2]\nvalues[5]", 10.0).unwrap();
    let err = e.error.unwrap();
    assert!(err.contains("line 2") && err.contains("values[5]") && err.contains("IndexError"), "{err}");
    // A block that fails part-way: which lines ran, where it stopped, what the lines that ran bound (kept).
    let e = k.exec("import os\ny = 2\nfor i in range(2):\n    print(i)\nz = values[9]\nprint('never')", 10.0).unwrap();
    assert_eq!((e.ran_to, e.stopped_at, e.defined.clone()), (Some(4), Some(5), vec!["y".to_string(), "i".to_string()]));
    assert_eq!(k.exec("y", 10.0).unwrap().result.as_deref(), Some("2"));
    // An import of a name that does not exist, which the block does not use, is left out; one it uses fails.
    let e = k.exec("from os.path import join, no_such\nimport no_such_module\nprint(join('a', 'b'))", 10.0).unwrap();
    assert_eq!((e.stdout.as_str(), e.error.as_deref()), ("a/b\n", None), "{e:?}");
    assert_eq!(e.skipped, ["os.path.no_such", "no_such_module"]);
    let e = k.exec("from os.path import no_such\nno_such", 10.0).unwrap();
    assert!(e.error.as_deref().unwrap().contains("cannot import name 'no_such'") && e.skipped.is_empty(), "{e:?}");
    // What the module has instead: its names like the missing one (in spelling, or sharing a word), or none.
    assert_eq!(e.help.as_deref(), Some("posixpath has no no_such, and no name in it like that one."), "{e:?}");
    let e = k.exec("from os.path import joinn\njoinn('a')", 10.0).unwrap();
    assert_eq!(e.help.as_deref(), Some("posixpath has no joinn; names in it like that one: join."), "{e:?}");
    let e = k.exec("from os.path import real_name\nreal_name('a')", 10.0).unwrap();
    assert_eq!(
        e.help.as_deref(),
        Some(
            "posixpath has no real_name; names in it like that one: basename, dirname, realpath, supports_unicode_filenames."
        ),
        "{e:?}"
    );
    let e = k.exec("os.getcwdd()", 10.0).unwrap();
    assert_eq!(e.help.as_deref(), Some("os has no getcwdd; names in it like that one: getcwd, getcwdb."), "{e:?}");
    assert_eq!(
        k.exec("os.qqqqqq", 10.0).unwrap().help.as_deref(),
        Some("os has no qqqqqq, and no name in it like that one.")
    );
    assert_eq!(k.exec("values.qqqqqq", 10.0).unwrap().help, None);
    // A call given an argument its function does not take: the signature, found on the failing line.
    let e = k.exec("def f(a, b: int = 1):\n    return a\n\ny = f(1,\n      c=2)", 10.0).unwrap();
    assert_eq!(e.help.as_deref(), Some("the signature is f(a, b=1)."), "{e:?}");
    let e = k.exec("values.append(1, 2)", 10.0).unwrap();
    assert_eq!(e.help.as_deref(), Some("the signature is values.append(object, /)."), "{e:?}");
    assert_eq!(k.exec("len(1, 2)", 10.0).unwrap().help.as_deref(), Some("the signature is len(obj, /)."));
    assert_eq!(k.exec("1 + 'a'", 10.0).unwrap().help, None);
    // A module used without its import (the input folder's `data/` is not one).
    let mut help = |code: &str| k.exec(code, 10.0).unwrap().help;
    assert_eq!(
        help("json.dumps(1)").as_deref(),
        Some("json is not defined in this session; it is a module here: add `import json`.")
    );
    assert_eq!(help("data").as_deref(), None);
    assert_eq!(help("no_such_name").as_deref(), None);
    let e = k.exec("values[9]", 10.0).unwrap();
    assert_eq!((e.ran_to, e.stopped_at), (None, Some(1)), "{e:?}");
    let e = k.exec("def f(:\n    pass", 10.0).unwrap();
    let err = e.error.unwrap();
    assert!(err.contains("def f(:") && err.contains("SyntaxError") && !err.contains("ast.py"), "{err}");
}
