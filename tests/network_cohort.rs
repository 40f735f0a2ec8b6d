//! Cohort import on the real cohorts of `../shared/data/cohorts/` (unpacked outside the repository by its
//! `unpack.sh` into `BRAINLENS_COHORTS`, default `~/.cache/brainlens-cohorts`; `scripts/test.sh` does it and
//! sets BRAINLENS_REQUIRE_COHORTS=1, without which a machine lacking them skips these tests).
//!
//! Expected values: the connectomes nilearn 0.14.1 made (`*/nilearn_correlation/*.npy`, `ConnectivityMeasure(
//! kind="correlation", standardize=True)` on all 116 columns, see that folder's manifest.json), tolerance 1e-6;
//! subject and label counts and the 8 ABIDE subjects with a constant AAL-90 region from the cohorts' README.

mod common;

use brainlens::network::cohort::{self, ImportOptions, Regions, file};
use brainlens::util::cancel::Cancel;
use std::path::{Path, PathBuf};
use std::process::Command;

fn references(name: &str) -> Vec<(String, PathBuf)> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/cohorts").join(name).join("nilearn_correlation");
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "npy"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().to_string(), p))
        .collect();
    out.sort();
    assert_eq!(out.len(), 20, "{}", dir.display());
    out
}

fn link(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(from, to).unwrap();
}

fn check_against_nilearn(c: &cohort::Cohort, refs: &[(String, PathBuf)]) {
    assert_eq!(c.r, 116);
    for (id, path) in refs {
        let key = id.trim_start_matches('0');
        let i =
            c.ids.iter().position(|s| s == id || s.trim_start_matches('0') == key).unwrap_or_else(|| panic!("{id}"));
        let want: ndarray::Array2<f64> = ndarray_npy::read_npy(path).unwrap();
        // A region that is all zeros is flagged and its row NaN here; nilearn's epsilon guard gives it 0
        // (1 on the diagonal), a number that is not a correlation.
        let mut worst: f64 = 0.0;
        for (k, (a, b)) in c.matrix(i).iter().zip(want.iter()).enumerate() {
            if a.is_nan() {
                assert!(
                    c.flags[i].contains(" constant") && (*b == 0.0 || (*b == 1.0 && k / 116 == k % 116)),
                    "{id}[{k}]"
                );
            } else {
                worst = worst.max((a - b).abs());
            }
        }
        assert!(worst <= 1e-6, "{id}: {worst} from nilearn");
    }
}

#[test]
fn twenty_subjects_of_each_cohort_equal_nilearn_in_their_own_layouts() {
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // ADHD-200: the files and the table side by side.
    let adhd = tmp.path().join("adhd");
    let refs = references("adhd200_aal");
    for (id, _) in &refs {
        let f = format!("{id}_rois_aal.1D");
        link(&root.join("adhd200_aal").join(&f), &adhd.join(&f));
    }
    link(
        &root.join("adhd200_aal/Phenotypic_V1_0b_preprocessed1.csv"),
        &adhd.join("Phenotypic_V1_0b_preprocessed1.csv"),
    );
    let opts = ImportOptions { regions: Some(Regions::All), keep_flagged: true, ..Default::default() };
    let c = cohort::import(&adhd, &opts, &|_, _| {}, &Cancel::default()).unwrap();
    assert_eq!((c.len(), c.provenance.layout.as_str()), (20, "ADHD-200"));
    check_against_nilearn(&c, &refs);
    // ABIDE: ABIDE_pcp/cpac/filt_noglobal/ and the table in ABIDE_pcp/, as nilearn downloads them.
    let abide = tmp.path().join("abide");
    let pcp = root.join("abide_pcp_aal/ABIDE_pcp");
    let refs = references("abide_pcp_aal");
    for (id, _) in &refs {
        let f = format!("cpac/filt_noglobal/{id}_rois_aal.1D");
        link(&pcp.join(&f), &abide.join("ABIDE_pcp").join(&f));
    }
    link(&pcp.join("Phenotypic_V1_0b_preprocessed1.csv"), &abide.join("ABIDE_pcp/Phenotypic_V1_0b_preprocessed1.csv"));
    let c = cohort::import(&abide, &opts, &|_, _| {}, &Cancel::default()).unwrap();
    assert_eq!((c.len(), c.provenance.layout.as_str()), (20, "ABIDE Preprocessed"));
    check_against_nilearn(&c, &refs);
    // Written and read back whole.
    let out = tmp.path().join("abide20.npz");
    file::write(&out, &c).unwrap();
    assert!(file::is_cohort(&out));
    let back = file::read(&out).unwrap();
    let bits = |c: &cohort::Cohort| c.connectomes.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(&c), "NaN entries included");
    let without = |c: &cohort::Cohort| cohort::Cohort { connectomes: Vec::new(), ..c.clone() };
    assert_eq!(without(&back), without(&c));
    // `network metrics` over the cohort: each subject's global metrics are those of its matrix on its own (same
    // options); a subject with undefined entries is skipped with its flags.
    let o = brainlens(&["network", "metrics", out.to_str().unwrap(), "--threshold-proportional", "0.2", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let all: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let subjects = all["subjects"].as_array().unwrap();
    assert_eq!(subjects.len(), 20);
    let first = c.flags.iter().position(String::is_empty).unwrap();
    let single = tmp.path().join("one.npy");
    ndarray_npy::write_npy(&single, &ndarray::Array2::from_shape_vec((116, 116), c.matrix(first).to_vec()).unwrap())
        .unwrap();
    let o = brainlens(&["network", "metrics", single.to_str().unwrap(), "--threshold-proportional", "0.2", "--json"]);
    let one: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for key in ["density", "mean_clustering", "transitivity", "char_path_length", "global_efficiency", "modularity"] {
        assert_eq!(subjects[first][key], one[key], "{key}");
    }
    for (i, s) in subjects.iter().enumerate() {
        assert_eq!(s["skipped"].is_string(), c.flags[i].contains(" constant"), "{s}");
    }
}

fn brainlens(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_brainlens")).args(args).output().unwrap()
}

#[test]
fn whole_cohorts_import_with_the_readme_counts() {
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("adhd.npz");
    let o = brainlens(&[
        "cohort",
        "import",
        root.join("adhd200_aal").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["n_subjects"].as_u64(), v["n_regions"].as_u64()), (Some(582), Some(90)));
    assert_eq!((v["labels"]["HC"].as_u64(), v["labels"]["ADHD"].as_u64()), (Some(364), Some(218)));
    assert_eq!(v["flagged"].as_array().unwrap().len(), 0);
    // ABIDE, flagged subjects kept: all 871 with the README's label counts, the 8 constant-region subjects
    // flagged and their undefined entries NaN.
    let out = tmp.path().join("abide.npz");
    let o = brainlens(&[
        "cohort",
        "import",
        root.join("abide_pcp_aal").to_str().unwrap(),
        "--keep-flagged",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["n_subjects"].as_u64(), Some(871));
    assert_eq!((v["labels"]["ASD"].as_u64(), v["labels"]["HC"].as_u64()), (Some(403), Some(468)));
    assert_eq!(v["sites"].as_object().unwrap().len(), 20);
    let flagged: Vec<&str> = v["flagged"].as_array().unwrap().iter().map(|f| f["subject"].as_str().unwrap()).collect();
    assert_eq!(
        flagged,
        [
            "CMU_b_0050648",
            "Caltech_0051464",
            "NYU_0051020",
            "NYU_0051118",
            "SBL_0051558",
            "SDSU_0050184",
            "SDSU_0050195",
            "Trinity_0050259"
        ]
    );
    let c = file::read(&out).unwrap();
    let i = c.ids.iter().position(|s| s == "NYU_0051020").unwrap();
    assert!(c.flags[i].contains(" constant"));
    assert!(c.matrix(i).iter().any(|v| v.is_nan()));
    let clean = c.ids.iter().position(|s| s == "NYU_0050952").unwrap();
    assert!(c.matrix(clean).iter().all(|v| v.is_finite()));
    // Left out by default: the table says which and why.
    let o = brainlens(&["cohort", "show", out.to_str().unwrap()]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("flagged: 8 (0 left out, 8 kept)"), "{text}");
}

#[test]
fn bad_input_is_refused_by_file_and_line_and_nothing_is_written() {
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let src = root.join("adhd200_aal");
    let pheno = std::fs::read_to_string(src.join("Phenotypic_V1_0b_preprocessed1.csv")).unwrap();
    let ids = ["0010001", "0010002", "0010003", "0010004", "0010005", "0010006"];
    let make = |name: &str| -> PathBuf {
        let d = tmp.path().join(name);
        for id in ids {
            let f = format!("{id}_rois_aal.1D");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::copy(src.join(&f), d.join(&f)).unwrap();
        }
        std::fs::write(d.join("Phenotypic_V1_0b_preprocessed1.csv"), &pheno).unwrap();
        d
    };
    let run = |dir: &Path| {
        let out = dir.join("out.npz");
        let o = brainlens(&["cohort", "import", dir.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert!(!o.status.success());
        assert!(!out.exists() && !dir.join("out.npz.partial").exists());
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    // A ragged row.
    let d = make("ragged");
    let f = d.join("0010003_rois_aal.1D");
    let mut text = std::fs::read_to_string(&f).unwrap();
    let cut = text.match_indices('\n').nth(5).unwrap().0;
    let body = text[..cut].trim_end().len();
    let last_value = text[..body].rfind(char::is_whitespace).unwrap();
    text.replace_range(last_value..body, "");
    std::fs::write(&f, text).unwrap();
    let e = run(&d);
    assert!(e.contains("0010003_rois_aal.1D: line 6: 115 values, but line 2 has 116: a ragged row"), "{e}");
    // A phenotype table without its id column (given explicitly: no preset matches it any more).
    let d = make("no-id");
    std::fs::write(d.join("Phenotypic_V1_0b_preprocessed1.csv"), pheno.replacen("ScanDir ID", "Scan", 1)).unwrap();
    let out = d.join("out.npz");
    let o = brainlens(&[
        "cohort",
        "import",
        d.to_str().unwrap(),
        "--phenotype",
        d.join("Phenotypic_V1_0b_preprocessed1.csv").to_str().unwrap(),
        "--id-column",
        "ScanDir ID",
        "--label-column",
        "DX",
        "--label-values",
        "0=HC,1=ADHD,2=ADHD,3=ADHD",
        "--task",
        "adhd",
        "--out",
        out.to_str().unwrap(),
    ]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && !out.exists());
    assert!(
        e.contains("Phenotypic_V1_0b_preprocessed1.csv: no column 'ScanDir ID' (the header has: Scan, Site"),
        "{e}"
    );
    // A label value the task does not know, on a named line.
    let d = make("label");
    let mut lines: Vec<String> = pheno.lines().map(str::to_string).collect();
    let row = lines.iter().position(|l| l.starts_with("10001,")).unwrap();
    let mut cells: Vec<String> = lines[row].split(',').map(str::to_string).collect();
    cells[5] = "pending".into();
    lines[row] = cells.join(",");
    std::fs::write(d.join("Phenotypic_V1_0b_preprocessed1.csv"), lines.join("\n")).unwrap();
    let e = run(&d);
    assert!(e.contains(&format!("line {}: DX = 'pending' is not a label of task adhd", row + 1)), "{e}");
    // Only one label among the subjects.
    let d = make("one-label");
    let keep: Vec<&str> =
        pheno.lines().filter(|l| l.starts_with("ScanDir") || l.split(',').nth(5) == Some("0")).collect();
    std::fs::write(d.join("Phenotypic_V1_0b_preprocessed1.csv"), keep.join("\n")).unwrap();
    for id in ids {
        if !keep.iter().any(|l| l.starts_with(&format!("{},", id.trim_start_matches('0')))) {
            std::fs::remove_file(d.join(format!("{id}_rois_aal.1D"))).unwrap();
        }
    }
    let e = run(&d);
    assert!(
        e.contains("every subject kept is labelled HC: a cohort for task adhd needs both of its labels (HC, ADHD)"),
        "{e}"
    );
}

/// `agent eval --cohort`: the agents' evaluation reads subjects, labels and connectomes from a cohort file —
/// here evidence-knn on 40 ADHD-200 subjects: a label-stratified split of 8 test subjects, the case memory
/// from the other 32, every test subject answered with a label, and no test subject in its own memory.
#[test]
fn the_agents_evaluate_straight_from_a_cohort_file() {
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let c = file::read(&cohort).unwrap();
    let eval = |method: &str, run: &Path| {
        let (cohort, run) = (cohort.to_str().unwrap(), run.to_str().unwrap());
        common::json(&[
            "agent", "eval", "--task", "adhd", "--cohort", cohort, "--method", method, "--out", run, "--json",
        ])
    };
    let run = tmp.path().join("knn.jsonl");
    let m = eval("evidence-knn", &run);
    let header: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&run).unwrap().lines().next().unwrap()).unwrap();
    let test: Vec<&str> = header["test"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let expected_test: usize =
        c.label_counts().iter().map(|(_, n)| ((*n as f64) * 0.2).round().max(1.0) as usize).sum();
    assert_eq!((m["samples"].as_u64(), test.len()), (Some(expected_test as u64), expected_test));
    assert_eq!(header["memory_cases"].as_u64(), Some((c.len() - expected_test) as u64));
    assert!(test.iter().all(|t| c.ids.iter().any(|id| id == t)));
    assert_eq!(m["failures"], serde_json::json!({}));
    assert!(m["interpretability"]["overall"].is_number(), "{m}");
    for line in std::fs::read_to_string(&run).unwrap().lines().skip(1) {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(["ADHD", "HC"].contains(&r["label"].as_str().unwrap()), "{r}");
        let hits = r["trace"]["rounds"][0]["data"]["hits"].as_array().unwrap();
        assert!(
            !hits.is_empty() && hits.iter().all(|h| h["group"] != r["sample"]),
            "no test subject in its own memory"
        );
    }
    // CARD's graph encoder is the supervised one, fitted on the training split alone: each hit's graph
    // similarity is the cosine of the encoder fitted here on the 32 training subjects (fitted on all 40, the
    // values would differ).
    assert_eq!(header["settings"]["card_encoder"], "supervised");
    let source = brainlens::network::cohort::source::Source::cohort_file(&cohort).unwrap();
    let load = |id: &str| source.connectome_of(id).unwrap();
    let train: Vec<(String, brainlens::network::Connectome)> =
        c.ids.iter().filter(|id| !test.contains(&id.as_str())).map(|id| (id.clone(), load(id))).collect();
    let train_labels: Vec<String> =
        c.ids.iter().zip(&c.labels).filter(|(id, _)| !test.contains(&id.as_str())).map(|(_, l)| l.clone()).collect();
    let encoder = brainlens::retrieval::edges::EdgeEncoder::fit(&train, &train_labels).unwrap();
    let first: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&run).unwrap().lines().nth(1).unwrap()).unwrap();
    let q = encoder.embed("q", &load(first["sample"].as_str().unwrap())).unwrap();
    for h in first["trace"]["rounds"][0]["data"]["hits"].as_array().unwrap().iter().take(5) {
        let e = encoder.embed("case", &load(h["case"].as_str().unwrap())).unwrap();
        let cos: f32 = q.iter().zip(&e).map(|(a, b)| a * b).sum();
        assert!((cos - h["graph_sim"].as_f64().unwrap() as f32).abs() < 1e-5, "{h} vs {cos}");
    }
    // The majority baseline on the same split: every test subject gets the training split's commoner label
    // (a tie goes to the task's first label, ADHD).
    // Leave-site-out: NYU's subjects are the test set, the other sites' the memory.
    let run = tmp.path().join("nyu.jsonl");
    let (path, out) = (cohort.to_str().unwrap(), run.to_str().unwrap());
    let args = ["agent", "eval", "--task", "adhd", "--cohort", path, "--hold-out-site", "NYU"];
    let m = common::json(&[&args[..], &["--method", "evidence-knn", "--out", out, "--json"]].concat());
    let nyu: Vec<&String> = c.ids.iter().zip(&c.site).filter(|(_, s)| s.as_str() == "NYU").map(|(id, _)| id).collect();
    assert_eq!(m["samples"].as_u64(), Some(nyu.len() as u64));
    let header: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&run).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(header["memory_cases"].as_u64(), Some((c.len() - nyu.len()) as u64));
    let (code, _, err) =
        common::run(&[&args[..6], &["--hold-out-site", "Mars", "--method", "majority", "--out", out]].concat());
    assert!(code != 0 && err.contains("no subject of site 'Mars' (sites: "), "{err}");
    let run = tmp.path().join("majority.jsonl");
    let m = eval("majority", &run);
    let train: Vec<&String> =
        c.labels.iter().zip(&c.ids).filter(|(_, id)| !test.contains(&id.as_str())).map(|(l, _)| l).collect();
    let adhd = train.iter().filter(|l| l.as_str() == "ADHD").count();
    let expected = if adhd * 2 >= train.len() { "ADHD" } else { "HC" };
    assert_eq!(m["positive_rate"].as_f64(), Some(if expected == "ADHD" { 1.0 } else { 0.0 }), "{m}");
    for line in std::fs::read_to_string(&run).unwrap().lines().skip(1) {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(r["label"].as_str(), Some(expected));
        assert!(r["trace"]["decision"]["rationale"].as_str().unwrap().starts_with("Supervised baseline, not an agent"));
    }
    // The logistic baseline on the same split learns from the training split alone (no case memory) and gives
    // each test subject P(ADHD); its label is the likelier one. (Equality with scikit-learn's
    // LogisticRegressionCV: scripts/reference/logistic_reference.py, in scripts/test.sh.)
    let run = tmp.path().join("logistic.jsonl");
    let m = eval("logistic", &run);
    assert_eq!((m["samples"].as_u64(), &m["failures"]), (Some(expected_test as u64), &serde_json::json!({})), "{m}");
    // A baseline writes no rationale: no interpretability scores (evidence-knn, above, has them).
    assert!(m["interpretability"].is_null(), "{m}");
    let text = std::fs::read_to_string(&run).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(
        (header["memory_cases"].as_u64(), header["training_samples"].as_u64()),
        (Some(0), Some(train.len() as u64))
    );
    for line in text.lines().skip(1) {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        let d = &r["trace"]["decision"];
        let probs: Vec<(String, f64)> = serde_json::from_value(d["label_probabilities"].clone()).unwrap();
        assert_eq!((probs[0].0.as_str(), probs[1].0.as_str()), ("HC", "ADHD"), "{d}");
        let p = probs[1].1;
        assert!((probs[0].1 + p - 1.0).abs() < 1e-12 && (0.0..=1.0).contains(&p), "{d}");
        assert_eq!(r["label"].as_str(), Some(if p > 0.5 { "ADHD" } else { "HC" }), "{d}");
        assert!((d["confidence"].as_f64().unwrap() - p.max(1.0 - p)).abs() < 1e-12, "{d}");
        assert!(d["rationale"].as_str().unwrap().contains("logistic regression on the Fisher z of the 4005"), "{d}");
    }
    // Leave-site-out majority learns from the other sites' labels without building a case memory.
    let run = tmp.path().join("nyu-majority.jsonl");
    let m = common::json(&[&args[..], &["--method", "majority", "--out", run.to_str().unwrap(), "--json"]].concat());
    assert_eq!(m["samples"].as_u64(), Some(nyu.len() as u64));
    let header: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&run).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(
        (header["memory_cases"].as_u64(), header["training_samples"].as_u64()),
        (Some(0), Some((c.len() - nyu.len()) as u64))
    );
}

/// `agent eval`'s default split of `source` (20 % test, seed 0), one run a subject.
fn seeded(
    source: &std::sync::Arc<brainlens::network::cohort::source::Source>,
) -> brainlens::agent::graph::eval::Cohort {
    brainlens::agent::graph::eval::Cohort {
        source: source.clone(),
        fraction: 0.2,
        seed: 0,
        runs: 1,
        memory: None,
        hold_out_site: None,
        shard: None,
        subset: None,
    }
}

/// An evaluation holds its cohort as a value: the cohort file is read once when the source is opened (its
/// bytes hashed as they are parsed), and nothing after that opens it — here the file is moved away before the
/// case memory, the supervised baseline, the runs and the metrics (with their per-site table) are made. The
/// run header records the source's file and SHA-256, and each test subject's site.
#[test]
fn an_evaluation_opens_the_cohort_archive_once() {
    use brainlens::agent::graph::eval::{self, Plan};
    use brainlens::agent::graph::{Method, Settings, Task};
    use brainlens::network::cohort::source::Source;
    use brainlens::util::cancel::Cancel;
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let sha256 = brainlens::util::hash::sha256_hex(&std::fs::read(&cohort).unwrap());
    let c = file::read(&cohort).unwrap();
    let source = std::sync::Arc::new(Source::cohort_file(&cohort).unwrap());
    assert_eq!((source.origin.kind.as_str(), source.origin.sha256.as_str()), ("cohort file", sha256.as_str()));
    let moved = tmp.path().join("moved-away.npz");
    std::fs::rename(&cohort, &moved).unwrap();
    let task = Task::load("adhd").unwrap();
    for method in [Method::EvidenceKnn, Method::Logistic] {
        let plan =
            Plan::new(task.clone(), Settings::for_method(method), None, &seeded(&source), &Cancel::default()).unwrap();
        let out = tmp.path().join(format!("{}.jsonl", method.as_str()));
        let run = eval::run(&plan.job(1, false, out), &Cancel::default(), &|_, _| {}).unwrap();
        let h = &run.header;
        assert_eq!(
            h.source.as_ref().map(|o| (o.file.clone(), o.sha256.clone())),
            Some((cohort.display().to_string(), sha256.clone()))
        );
        let site_of = |id: &str| c.site[c.ids.iter().position(|x| x == id).unwrap()].clone();
        assert_eq!(h.sites, h.test.iter().map(|id| site_of(id)).collect::<Vec<_>>());
        assert_eq!(run.records.len(), h.test.len());
        assert!(run.records.iter().all(|r| r.label.is_some()), "{method:?}");
        let m = eval::metrics(&run, &task);
        assert_eq!(m.sites.iter().map(|s| s.samples).sum::<usize>(), h.test.len());
        assert!(m.sites.len() > 1, "{:?}", m.sites);
        // Every method's P(positive) is scored; the regression's is a probability, knn's a stated confidence.
        let p = m.probability.as_ref().expect("scores");
        let want = match method {
            Method::Logistic => brainlens::agent::graph::scores::FROM_PROBABILITY,
            _ => brainlens::agent::graph::scores::FROM_CONFIDENCE,
        };
        assert_eq!(
            (p.source.as_str(), p.samples, p.reliability.iter().map(|b| b.samples).sum::<usize>()),
            (want, h.test.len(), h.test.len())
        );
        assert!(p.auroc.is_some_and(|a| (0.0..=1.0).contains(&a)) && p.ece.is_some(), "{p:?}");
        // Beside the ECE, what a calibrated P would show on these subjects (util::calibration's numpy check).
        let r = p.ece_if_calibrated.expect("the calibrated reference");
        assert!(r.draws == 2000 && r.median <= r.p90 && (0.0..=1.0).contains(&r.at_least_observed), "{r:?}");
        assert!(p.line().contains("a calibrated P on these"), "{}", p.line());
        let figures = brainlens::agent::graph::paper::figures(std::slice::from_ref(&m));
        assert!(figures.iter().any(|(name, svg)| name.starts_with("reliability_") && svg.contains("AUROC")));
    }
    assert!(!cohort.exists(), "the cohort file was not rewritten");
}

/// `--card-encoder gfm`: CARD's graph encoder is the GFM trained on the training split's 32 graphs alone
/// (the small default model; 5 epochs here, 150 by default), kept in the cache under the hash of those graphs; each hit's graph
/// similarity is the cosine of that model's embeddings; a second evaluation reuses the model.
#[test]
fn the_gfm_card_encoder_is_trained_on_the_training_split_alone() {
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let cache = tmp.path().join("cache");
    let eval = |run: &Path| {
        let args = ["agent", "eval", "--task", "adhd", "--cohort", cohort.to_str().unwrap(), "--method"];
        let out = Command::new(env!("CARGO_BIN_EXE_brainlens"))
            .args(args)
            .args([
                "evidence-knn",
                "--card-encoder",
                "gfm",
                "--gfm-epochs",
                "5",
                "--out",
                run.to_str().unwrap(),
                "--json",
            ])
            .env("BRAINLENS_CACHE", &cache)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    let run = tmp.path().join("gfm.jsonl");
    eval(&run);
    let text = std::fs::read_to_string(&run).unwrap();
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(header["settings"]["card_encoder"], "gfm");
    let models: Vec<PathBuf> = std::fs::read_dir(cache.join("gfm"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "safetensors"))
        .collect();
    assert_eq!(models.len(), 1, "{models:?}");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(models[0].with_extension("json")).unwrap()).unwrap();
    let tested = header["test"].as_array().unwrap().len();
    assert_eq!((log["graphs"].as_u64(), log["epochs_done"].as_u64()), (Some(40 - tested as u64), Some(5)));
    let model = brainlens::retrieval::gfm::GfmModel::load(&models[0]).unwrap();
    let source = brainlens::network::cohort::source::Source::cohort_file(&cohort).unwrap();
    let load = |id: &str| source.connectome_of(id).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let q = model.embed(&load(first["sample"].as_str().unwrap())).unwrap();
    for h in first["trace"]["rounds"][0]["data"]["hits"].as_array().unwrap().iter().take(5) {
        let e = model.embed(&load(h["case"].as_str().unwrap())).unwrap();
        let cos: f32 = q.iter().zip(&e).map(|(a, b)| a * b).sum();
        assert!((cos - h["graph_sim"].as_f64().unwrap() as f32).abs() < 1e-5, "{h} vs {cos}");
    }
    let trained = std::fs::metadata(&models[0]).unwrap().modified().unwrap();
    eval(&tmp.path().join("again.jsonl"));
    assert_eq!(std::fs::metadata(&models[0]).unwrap().modified().unwrap(), trained, "the model was trained again");
}

#[test]
fn a_sharded_evaluation_merges_into_the_unsharded_run() {
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let eval = |out: &Path, shard: Option<&str>| {
        let mut args =
            vec!["agent", "eval", "--task", "adhd", "--cohort", cohort.to_str().unwrap(), "--method", "logistic"];
        args.extend(["--out", out.to_str().unwrap()]);
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        let (code, _, err) = common::run(&args);
        assert_eq!(code, 0, "{err}");
    };
    let whole = tmp.path().join("whole.jsonl");
    eval(&whole, None);
    let shards: Vec<std::path::PathBuf> = (1..=3).map(|i| tmp.path().join(format!("shard-{i}.jsonl"))).collect();
    for (i, s) in shards.iter().enumerate() {
        eval(s, Some(&format!("{}/3", i + 1)));
    }
    // Each shard holds every third test subject; together they are the whole evaluation.
    let sizes: Vec<usize> = shards.iter().map(|s| common::run_essence(s).len() - 1).collect();
    assert_eq!(sizes.iter().sum::<usize>(), common::run_essence(&whole).len() - 1, "{sizes:?}");
    let merged = tmp.path().join("merged.jsonl");
    let s: Vec<&str> = shards.iter().map(|p| p.to_str().unwrap()).collect();
    let (code, _, err) = common::run(&[&["agent", "merge"], &s[..], &["--out", merged.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        common::run_essence(&merged),
        common::run_essence(&whole),
        "merged shards = the unsharded run (header and records)"
    );
    // A shard missing, or one cut short, is refused by name; nothing is written.
    let bad = tmp.path().join("bad.jsonl");
    let (code, _, err) = common::run(&["agent", "merge", s[0], s[2], "--out", bad.to_str().unwrap()]);
    assert!(code != 0 && err.contains("shard 2/3 is missing"), "{err}");
    let text = std::fs::read_to_string(&shards[1]).unwrap();
    std::fs::write(&shards[1], text.lines().take(2).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let (code, _, err) = common::run(&[&["agent", "merge"], &s[..], &["--out", bad.to_str().unwrap()]].concat());
    assert!(code != 0 && err.contains("shard-2.jsonl: shard 2/3 has 1 of its"), "{err}");
    assert!(!bad.exists());
}

/// `cohort train` on 40 ADHD-200 subjects: the model file records the cohort's hash, agent eval's split and
/// its own cross-validation; `cohort predict` on a test subject's matrix gives the calibrated P the model's
/// numbers give and names ten edges by region. Bad input — a model of another task, a graph of another atlas,
/// a damaged model file, a cohort whose training split holds one label — is refused by name, nothing written.
/// (Equality with scikit-learn's CalibratedClassifierCV: scripts/reference/cohort_model_reference.py.)
#[test]
fn a_cohort_model_is_trained_saved_and_used_on_one_connectome() {
    use brainlens::agent::graph::cohort_model::CohortModel;
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let model = tmp.path().join("model.json");
    let (c_path, m_path) = (cohort.to_str().unwrap(), model.to_str().unwrap());
    let v = common::json(&["cohort", "train", c_path, "--task", "adhd", "--out", m_path, "--json"]);
    let m = CohortModel::load(&model).unwrap();
    let sha256 = brainlens::util::hash::sha256_hex(&std::fs::read(&cohort).unwrap());
    assert_eq!((m.cohort.sha256.as_str(), m.task.as_str(), m.atlas.as_str()), (sha256.as_str(), "adhd", "aal90"));
    let run = tmp.path().join("majority.jsonl");
    common::json(&[
        "agent",
        "eval",
        "--task",
        "adhd",
        "--cohort",
        c_path,
        "--method",
        "majority",
        "--out",
        run.to_str().unwrap(),
        "--json",
    ]);
    let header: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&run).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(serde_json::json!(m.split.test), header["test"], "the model's test split is agent eval's");
    assert_eq!(m.split.train.len() + m.split.test.len(), 40);
    for k in ["accuracy", "auroc", "brier", "ece"] {
        let x = v["cv"][k].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&x), "{k} {x}");
    }
    // One test subject's matrix as a CSV file (AAL-90 assumed from its 90 regions).
    let c = file::read(&cohort).unwrap();
    let id = &m.split.test[0];
    let i = c.ids.iter().position(|s| s == id).unwrap();
    let g = brainlens::network::Connectome::from_matrix(
        id,
        c.r,
        c.r,
        c.matrix(i).to_vec(),
        None,
        brainlens::network::connectome::Asymmetry::Symmetrize,
    )
    .unwrap();
    let graph = tmp.path().join(format!("{id}.csv"));
    brainlens::network::io::write_csv(&graph, &g).unwrap();
    let p = common::json(&["cohort", "predict", m_path, graph.to_str().unwrap(), "--task", "adhd", "--json"]);
    // The score and P from the saved numbers: x·w + b on the Fisher z upper triangle, then the calibrator.
    let z = brainlens::network::features::fisher_z_upper(id, &g).unwrap();
    let score: f64 = z.iter().zip(&m.weights).map(|(a, b)| a * b).sum::<f64>() + m.intercept;
    assert!((p["score"].as_f64().unwrap() - score).abs() < 1e-9);
    assert!((p["probability"].as_f64().unwrap() - m.calibrator.apply(score)).abs() < 1e-12);
    // The label is the one P favours against the training split's rate of ADHD.
    let rate = m.split.train.iter().filter(|s| c.labels[c.ids.iter().position(|x| x == *s).unwrap()] == "ADHD").count()
        as f64
        / m.split.train.len() as f64;
    assert!((m.prior - rate).abs() < 1e-12);
    let want = if p["probability"].as_f64().unwrap() > rate { "ADHD" } else { "HC" };
    assert_eq!(p["label"], want);
    let edges = p["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 10);
    assert!(edges.iter().all(|e| e["regions"][0].as_str().is_some_and(|r| m.regions.iter().any(|x| x == r))));
    let parts: Vec<f64> = edges.iter().map(|e| e["contribution"].as_f64().unwrap().abs()).collect();
    assert!(parts.windows(2).all(|w| w[0] >= w[1]), "largest first");
    // Another task, another atlas, a damaged file.
    let (code, _, err) = common::run(&["cohort", "predict", m_path, graph.to_str().unwrap(), "--task", "asd"]);
    assert!(code != 0 && err.contains("a cohort model of task adhd (atlas aal90), not of task asd"), "{err}");
    let schaefer =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/cases/hcp_fingerprint/graphs/sub-100206_REST1_t0.npy");
    let (code, _, err) = common::run(&["cohort", "predict", m_path, schaefer.to_str().unwrap()]);
    assert!(code != 0 && err.contains("100 regions") && err.contains("is of atlas aal90 (90 regions)"), "{err}");
    let damaged = tmp.path().join("damaged.json");
    let text = std::fs::read_to_string(&model).unwrap();
    std::fs::write(&damaged, &text[..text.len() / 2]).unwrap();
    let (code, _, err) = common::run(&["cohort", "predict", damaged.to_str().unwrap(), graph.to_str().unwrap()]);
    assert!(code != 0 && err.contains("damaged.json: not a cohort model"), "{err}");
    std::fs::write(&damaged, text.replacen("\"weights\":[", "\"weights\":[0.5,", 1)).unwrap();
    let (code, _, err) = common::run(&["cohort", "predict", damaged.to_str().unwrap(), graph.to_str().unwrap()]);
    assert!(code != 0 && err.contains("damaged.json: a damaged cohort model: weights has 4006 entries"), "{err}");
    let rate = format!("\"prior\":{}", serde_json::to_string(&m.prior).unwrap());
    std::fs::write(&damaged, text.replacen(&rate, "\"prior\":1.5", 1)).unwrap();
    let (code, _, err) = common::run(&["cohort", "predict", damaged.to_str().unwrap(), graph.to_str().unwrap()]);
    assert!(code != 0 && err.contains("damaged.json: a damaged cohort model: a number that is not finite"), "{err}");
    // A cohort of one label: refused, no model written.
    let one = tmp.path().join("one-label.npz");
    file::write(&one, &cohort::Cohort { labels: vec!["HC".into(); c.len()], ..c.clone() }).unwrap();
    let out = tmp.path().join("never.json");
    let (code, _, err) =
        common::run(&["cohort", "train", one.to_str().unwrap(), "--task", "adhd", "--out", out.to_str().unwrap()]);
    assert!(code != 0 && err.contains("one-label.npz: the training split holds 0 ADHD subject(s)"), "{err}");
    assert!(!out.exists() && !out.with_extension("part").exists());
}

/// brainagent-hybrid on 40 ADHD-200 subjects with a scripted model that always concludes the label opposite to
/// the evidence: with overrides off every decision is the cohort model's (its calibrated P, the same model
/// `cohort train` makes on this split); with overrides on, a proposal citing a similar case of its label is
/// taken and one citing only the cohort model's own edge is refused. The ledger marks what was cited.
#[test]
fn the_hybrid_decides_by_the_evidence_and_overrides_only_by_rule() {
    use brainlens::agent::graph::cohort_model::CohortModel;
    use brainlens::agent::graph::eval::{self, Plan};
    use brainlens::agent::graph::ledger::Rule;
    use brainlens::agent::graph::{Method, Settings, Task};
    use brainlens::network::cohort::source::Source;
    use common::scripted::Scripted;
    use serde_json::{Value, json};
    let Some(root) = common::cohorts() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let cohort = common::adhd_cohort(&root, tmp.path(), "adhd40", 14, 40);
    let source = std::sync::Arc::new(Source::cohort_file(&cohort).unwrap());
    let task = Task::load("adhd").unwrap();
    // The other label: the first claim cites the cohort model (P:cohort, E:1), the second a similar case — of the
    // proposed label when `via_case`, else of the evidence's label where there is one.
    let contrary = |via_case: bool| {
        Scripted::with(move |name, r| {
            (name == "analysis").then(|| {
                let prompt = r.messages.last().map(|m| m.content.clone()).unwrap_or_default();
                let decided = prompt.split("The evidence decides ").nth(1).and_then(|t| t.split(' ').next()).unwrap();
                let other = if decided == "ADHD" { "HC" } else { "ADHD" };
                let want = if via_case { other } else { decided };
                let cases: Vec<&str> = prompt.lines().filter(|l| l.starts_with("[C:")).collect();
                let line = cases.iter().find(|l| l.ends_with(&format!("supports {want}"))).or(cases.first()).unwrap();
                let case = line[1..line.find(']').unwrap()].to_string();
                Ok(json!({
                    "on_model": {"claim": "The cohort model and its first edge.", "evidence": ["P:cohort", "E:1"]},
                    "on_second": {"claim": "A similar case.", "evidence": [case]},
                    "more": [{"claim": "The density is the threshold's.", "evidence": ["G:density"]}],
                    "label": other, "confidence": 0.6}))
            })
        })
    };
    let standalone =
        CohortModel::train(&source, &task, 0.2, 0, brainlens::util::calibration::Method::Sigmoid, &Cancel::default())
            .unwrap();
    for (overrides, via_case) in [(false, true), (true, true), (true, false)] {
        let settings = Settings { overrides, ..Settings::for_method(Method::BrainagentHybrid) };
        let c = seeded(&source);
        let plan =
            Plan::new(task.clone(), settings, Some(std::sync::Arc::new(contrary(via_case))), &c, &Cancel::default())
                .unwrap();
        let out = tmp.path().join(format!("hybrid-{overrides}-{via_case}.jsonl"));
        let run = eval::run(&plan.job(1, false, out), &Cancel::default(), &|_, _| {}).unwrap();
        assert_eq!(run.header.method, if overrides { "brainagent-hybrid-overrides" } else { "brainagent-hybrid" });
        assert_eq!(run.header.training_samples, standalone.split.train.len());
        let mut rules = Vec::new();
        for r in &run.records {
            let h = r.trace.hybrid.as_ref().expect("the hybrid's record");
            let d = r.trace.decision.as_ref().unwrap();
            let g = source.connectome_of(&r.sample).unwrap();
            let atlas = brainlens::network::atlas::Atlas::load("aal90").unwrap();
            let p = standalone.predict(&r.sample, &g, Some(&atlas)).unwrap().probability;
            assert!((h.probability - p).abs() < 1e-12, "the evidence is cohort train's model on this split");
            assert_ne!(h.proposed, h.evidence_label);
            // Only a cited, unweighed item of the proposed label (a similar case) lets an override through.
            let backed = h.ledger.iter().any(|i| i.cited && !i.weighed && i.supports.as_ref() == Some(&h.proposed));
            let expected = match (overrides, backed) {
                (false, _) => Rule::OverridesOff,
                (true, true) => Rule::Overridden,
                (true, false) => Rule::Refused,
            };
            assert_eq!(h.rule, expected, "{}", h.reason);
            let want = if h.rule == Rule::Overridden { &h.proposed } else { &h.evidence_label };
            assert_eq!(&d.label, want);
            assert_eq!(d.label_probabilities.as_ref().unwrap()[1], ("ADHD".to_string(), h.probability));
            assert!(h.ledger.iter().any(|i| i.id == "G:density" && i.cited && i.supports.is_none()));
            assert_eq!(h.ledger.iter().filter(|i| i.id.starts_with("E:")).count(), 10);
            rules.push(h.rule.clone());
        }
        if overrides {
            let want = if via_case { Rule::Overridden } else { Rule::Refused };
            assert!(rules.contains(&want), "{rules:?}");
        }
        for r in &run.records {
            let d = r.trace.decision.as_ref().unwrap();
            let kinds: std::collections::BTreeSet<&str> = d.evidence.iter().map(|e| &e[..2]).collect();
            assert!(d.evidence.len() >= 3 && kinds.len() >= 2 && d.unknown_evidence.is_empty(), "{:?}", d.evidence);
        }
        let m = eval::metrics(&run, &task);
        assert_eq!(m.probability.as_ref().unwrap().source, brainlens::agent::graph::scores::FROM_PROBABILITY);
        let v: Value = serde_json::to_value(&run.records[0].trace.hybrid).unwrap();
        assert!(v["ledger"].as_array().unwrap().len() >= 12, "{v}");
    }
}
