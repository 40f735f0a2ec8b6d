//! `file_status_check`: workspace confinement (strict mode: `/workspace` mapping, `../` escapes, absolute
//! paths, symbolic links) and the EEG artifact field checks on `.npy` and EDF files written here.
//! Expected values are computed by hand from the synthetic signals written in each test (labelled synthetic).

mod common;

use brainlens::bench::scoring::{Metric, ScoreContext, score_metric};
use brainlens::signal::edf::{EdfFormat, SignalHeader, StartTime, WriteSpec, write_edf};
use ndarray::Array2;
use ndarray_npy::WriteNpyExt;
use serde_json::{Value, json};
use std::path::Path;

fn file_metric(params: Value) -> Metric {
    Metric::from_value(&json!({"metric_id": "artifact", "type": "file_status_check", "target_key": "path",
                               "weight": 100, "params": params}))
}

fn score(ws: &Path, strict: bool, reported: &str, params: Value) -> (f64, Vec<String>, Value) {
    let ctx = ScoreContext { workspace: Some(ws.to_path_buf()), strict, ..Default::default() };
    let s = score_metric(&json!({"path": reported}), "", &file_metric(params), &ctx);
    assert!(s.error.is_none(), "{:?}", s.error);
    (s.raw_score, s.violations, Value::Object(s.evidence))
}

#[test]
fn confinement_in_strict_mode() {
    let root = tempfile::tempdir().unwrap();
    let ws = root.path().join("ws");
    std::fs::create_dir_all(ws.join("file_check")).unwrap();
    std::fs::write(ws.join("file_check/out.txt"), b"x").unwrap();
    std::fs::write(root.path().join("secret.txt"), b"outside").unwrap();
    std::fs::write(ws.join("file_check/empty.txt"), b"").unwrap();
    let outside = root.path().join("secret.txt");
    let p = json!({});

    assert_eq!(score(&ws, true, "/workspace/file_check/out.txt", p.clone()).0, 1.0);
    assert_eq!(score(&ws, true, "file_check/out.txt", p.clone()).0, 1.0);
    assert_eq!(score(&ws, true, "file_check\\out.txt", p.clone()).0, 1.0);
    assert_eq!(score(&ws, true, "file_check/../file_check/out.txt", p.clone()).0, 1.0);
    assert_eq!(score(&ws, true, "file_check/empty.txt", p.clone()).0, 0.0, "an empty file fails");
    assert_eq!(score(&ws, true, "file_check/none.txt", p.clone()).0, 0.0, "a missing file fails");

    for escape in ["../secret.txt", "/workspace/../secret.txt", "file_check/../../secret.txt"] {
        let (raw, violations, _) = score(&ws, true, escape, p.clone());
        assert_eq!(raw, 0.0, "{escape}");
        assert!(violations[0].contains("escapes the workspace"), "{escape}: {violations:?}");
    }
    let (raw, violations, _) = score(&ws, true, outside.to_str().unwrap(), p.clone());
    assert_eq!(raw, 0.0);
    assert!(violations[0].contains("absolute"), "{violations:?}");
    // Without strict mode an absolute path is taken as it is.
    assert_eq!(score(&ws, false, outside.to_str().unwrap(), p.clone()).0, 1.0);

    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, ws.join("file_check/link.txt")).unwrap();
        std::os::unix::fs::symlink(root.path(), ws.join("up")).unwrap();
        for link in ["file_check/link.txt", "/workspace/up/secret.txt"] {
            let (raw, violations, _) = score(&ws, true, link, p.clone());
            assert_eq!(raw, 0.0, "{link}");
            assert!(violations[0].contains("symbolic link"), "{link}: {violations:?}");
        }
        assert_eq!(score(&ws, false, "file_check/link.txt", p.clone()).0, 1.0);
    }
}

#[test]
fn npy_fields() {
    let ws = tempfile::tempdir().unwrap();
    // Synthetic 3 × 4 array; rows sum to zero at every sample (average reference).
    let a =
        Array2::from_shape_vec((3, 4), vec![1.0, -2.0, 3.0, 0.0, -1.0, 1.0, -4.0, 2.0, 0.0, 1.0, 1.0, -2.0]).unwrap();
    a.write_npy(std::fs::File::create(ws.path().join("x.npy")).unwrap()).unwrap();
    // RMS = sqrt((1+4+9+0+1+1+16+4+0+1+1+4)/12) = sqrt(42/12).
    let rms = (42.0f64 / 12.0).sqrt();
    let cfg = |fields: Value| json!({"match_mode": "eeg_file_match", "validator_config": fields});
    let one =
        |name: &str, value: Value| score(ws.path(), true, "x.npy", cfg(json!({name: {"value": value, "weight": 1}}))).0;
    assert_eq!(one("channel_count", json!(3)), 1.0);
    assert_eq!(one("channel_count", json!(4)), 0.0);
    assert_eq!(one("npy_shape", json!([3, 4])), 1.0);
    assert_eq!(one("npy_shape", json!([4, 3])), 0.0);
    assert_eq!(one("signal_rms", json!(rms * 1.09)), 1.0, "within the default 10 %");
    assert_eq!(one("signal_rms", json!(rms * 1.2)), 0.0);
    assert_eq!(one("reference_mode", json!("average")), 1.0);
    assert_eq!(one("sfreq_hz", json!(256)), 0.0, "a .npy has no sampling rate");
    // Weighted mean: channel_count (w 3) passes, npy_shape (w 1) fails → 0.75.
    let (raw, _, evidence) = score(
        ws.path(),
        true,
        "x.npy",
        cfg(json!({"channel_count": {"value": 3, "weight": 3}, "npy_shape": {"value": [1, 2], "weight": 1},
                   "file_name": {"value": "x.npy"}})),
    );
    assert_eq!(raw, 0.75);
    assert_eq!(evidence["fields"]["npy_shape"]["found"], json!([3, 4]));
    let wrong_name = cfg(json!({"channel_count": {"value": 3, "weight": 1}, "file_name": {"value": "y.npy"}}));
    assert_eq!(score(ws.path(), true, "x.npy", wrong_name).0, 0.0);
    // 3-D: epochs × channels × times → channels on axis 1.
    let b = ndarray::Array3::<f32>::zeros((5, 2, 7));
    b.write_npy(std::fs::File::create(ws.path().join("epochs.npy")).unwrap()).unwrap();
    assert_eq!(score(ws.path(), true, "epochs.npy", cfg(json!({"channel_count": {"value": 2, "weight": 1}}))).0, 1.0);
}

#[test]
fn edf_fields() {
    let ws = tempfile::tempdir().unwrap();
    let header = |label: &str| SignalHeader {
        label: label.into(),
        transducer: String::new(),
        physical_dimension: "uV".into(),
        physical_min: -32768.0,
        physical_max: 32767.0,
        digital_min: -32768,
        digital_max: 32767,
        prefilter: "HP:0.5Hz LP:40Hz".into(),
        samples_per_record: 100,
        reserved: String::new(),
        is_annotation: false,
    };
    let spec = WriteSpec {
        format: EdfFormat::EdfPlusC,
        patient: "X X X X".into(),
        recording: "SYNTHETIC".into(),
        start: StartTime { year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, subsecond: 0.0 },
        record_duration: 1.0,
        record_count: 4,
        signals: vec![header("Fz"), header("Cz"), header("Pz")],
        annotations: vec![],
        record_onsets: None,
    };
    // Synthetic: Fz = i, Cz = −2i, Pz = i (µV, gain 1) → channel mean 0 at every sample.
    write_edf(&ws.path().join("clean.edf"), &spec, |_, bufs| {
        for (s, b) in bufs.iter_mut().enumerate() {
            let k = [1, -2, 1][s];
            b.extend((0..100).map(|i| k * i));
        }
        Ok(())
    })
    .unwrap();
    let fields = json!({
        "channel_count": {"value": 3, "weight": 1}, "sfreq_hz": {"value": 100.0, "weight": 1},
        "duration_sec": {"value": 4.0, "weight": 1}, "channel_names": {"value": ["Fz", "Cz", "Pz"], "weight": 1},
        "reference_mode": {"value": "average", "weight": 1}, "bandpass_hz": {"value": [0.5, 40], "weight": 1},
    });
    let (raw, _, evidence) = score(
        ws.path(),
        true,
        "/workspace/clean.edf",
        json!({"match_mode": "eeg_file_match", "validator_config": fields}),
    );
    assert_eq!(raw, 1.0, "{evidence}");
    let wrong = json!({"bandpass_hz": {"value": [1.0, 40], "weight": 1}, "channel_names": {"value": ["Fz", "Cz"], "weight": 1},
                       "sfreq_hz": {"value": 100.0, "weight": 2}});
    let (raw, _, _) = score(ws.path(), true, "clean.edf", json!({"validator_config": wrong}));
    assert_eq!(raw, 0.5);
}

/// `image_file_match` with a weighted `vlm_prompt`: the image goes to the vision judge as an OpenAI image input
/// (a PNG data URL beside the prompt) on a scripted loopback endpoint, and its `{"score"}` is the raw score;
/// the judge's tokens and call are kept. Without a judge, or with `vlm_prompt` weight 0, the reference rules
/// apply (0, and 1 for any non-empty image). A file that is not an image is an error naming it.
#[test]
fn image_artifacts_go_to_the_vision_judge_as_image_input() {
    use brainlens::harness::runner::roles::LlmJudge;
    use brainlens::llm::config::{ProviderConfig, ProviderKind};
    use common::fake_openai::{Reply, fake, ok_body};
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join("file_check")).unwrap();
    let img = image::RgbImage::from_fn(8, 8, |x, y| image::Rgb([(x * 30) as u8, (y * 30) as u8, 128]));
    img.save(ws.path().join("file_check/topomap.png")).unwrap();
    std::fs::write(ws.path().join("file_check/notes.txt"), b"not an image").unwrap();
    let f = fake(vec![Reply::Ok(ok_body(r#"{"score": 0.75, "reason": "alpha over occipital sites"}"#)); 2]);
    let config = ProviderConfig {
        provider: ProviderKind::Openai,
        base_url: f.url.clone(),
        model: "vision".into(),
        ..Default::default()
    };
    let client = brainlens::llm::openai::OpenAiClient::new(&config).unwrap();
    let cancel = brainlens::util::cancel::Cancel::default();
    let judge = LlmJudge::new(&client, &cancel);
    let params = |w: f64| {
        json!({"match_mode": "image_file_match",
               "validator_config": {"vlm_prompt": {"value": "Does the map show posterior alpha?", "weight": w}}})
    };
    let ctx = ScoreContext {
        workspace: Some(ws.path().to_path_buf()),
        strict: true,
        vlm_judge: Some(&judge),
        ..Default::default()
    };
    let s = score_metric(&json!({"path": "file_check/topomap.png"}), "", &file_metric(params(1.0)), &ctx);
    assert_eq!((s.raw_score, s.error.as_deref()), (0.75, None));
    let requests = f.requests.lock().unwrap();
    let messages = requests[0].1["messages"].as_array().unwrap();
    assert!(messages[0]["content"].as_str().unwrap().starts_with("Does the map show posterior alpha?"));
    let parts = messages[1]["content"].as_array().unwrap();
    assert_eq!(parts[0]["type"], "text");
    assert!(parts[1]["image_url"]["url"].as_str().unwrap().starts_with("data:image/png;base64,iVBOR"));
    drop(requests);
    assert_eq!(judge.calls.lock().unwrap().len(), 1);
    assert!(judge.spent.lock().unwrap().tokens > 0);
    // Not an image: an error naming the file, scored 0.
    let s = score_metric(&json!({"path": "file_check/notes.txt"}), "", &file_metric(params(1.0)), &ctx);
    assert_eq!(s.raw_score, 0.0);
    assert!(s.error.as_deref().is_some_and(|e| e.contains("notes.txt") && e.contains("not an image")), "{:?}", s.error);
    // The reference rules without a judge or without weight.
    assert_eq!(score(ws.path(), true, "file_check/topomap.png", params(1.0)).0, 0.0);
    assert_eq!(score(ws.path(), true, "file_check/topomap.png", params(0.0)).0, 1.0);
}
