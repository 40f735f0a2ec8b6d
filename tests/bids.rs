//! BIDS-EEG export and import: a recording exported (EDF+ and BrainVision data) re-opens with the same
//! channels, samples and events; `events.tsv` drives the annotations and `channels.tsv` status=bad the bad
//! channels; broken sidecars name the file and line. scripts/bids_validate.sh runs the official
//! bids-validator on exported datasets.

use brainlens::signal::Recording;
use brainlens::signal::bids::Entities;
use brainlens::signal::bids::dataset::recordings;
use brainlens::signal::bids::export::{BidsData, ExportSpec, export};
use std::path::Path;

const SAMPLE: &str = "fixtures/eeg/mne_sample_eeg60.edf";

fn spec<'a>(root: &'a Path, subject: &str, data: BidsData) -> ExportSpec<'a> {
    ExportSpec {
        root,
        entities: Entities { subject: subject.into(), session: Some("1".into()), task: "audvis".into(), run: None },
        data,
        line_freq: Some(60.0),
        reference: None,
    }
}

#[test]
fn an_exported_recording_reopens_with_its_channels_samples_and_events() {
    let dir = tempfile::tempdir().unwrap();
    let src = Recording::open(Path::new(SAMPLE)).unwrap();
    let want = src.read(&[0, 30], 0.0, 4.0).unwrap();
    for (subject, data) in [("01", BidsData::EdfOrBdf), ("02", BidsData::BrainVision)] {
        let files = export(&src, src.annotations().unwrap(), &spec(dir.path(), subject, data)).unwrap();
        let back = Recording::open(&files[0]).unwrap();
        let labels = |r: &Recording| r.channels().iter().map(|c| c.label.clone()).collect::<Vec<_>>();
        assert_eq!(labels(&back), labels(&src));
        let got = back.read(&[0, 30], 0.0, 4.0).unwrap();
        for (g, w) in got.iter().zip(&want) {
            // EDF+: the same digital samples; BrainVision float32: float32 precision.
            let peak = w.values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            let err = g.values.iter().zip(&w.values).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            assert!(err <= peak * 1e-7, "{subject}: {err} vs peak {peak}");
        }
        let texts =
            |r: &Recording| r.annotations().unwrap().iter().map(|a| (a.onset_s, a.text.clone())).collect::<Vec<_>>();
        assert_eq!(texts(&back), texts(&src), "{subject}: events.tsv gives the annotations");
        let sidecar: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&files[3]).unwrap()).unwrap();
        assert_eq!(
            (sidecar["SamplingFrequency"].as_f64(), sidecar["EEGChannelCount"].as_u64()),
            (Some(250.0), Some(60))
        );
        assert_eq!(sidecar["EOGChannelCount"], 1);
        assert_eq!(sidecar["RecordingType"], "continuous");
    }
    let listed = recordings(dir.path()).unwrap();
    assert_eq!(listed.iter().map(|r| r.subject.as_str()).collect::<Vec<_>>(), ["01", "02"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("participants.tsv")).unwrap(),
        "participant_id\nsub-01\nsub-02\n"
    );
}

#[test]
fn sidecars_drive_annotations_and_bad_channels_and_broken_ones_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = Recording::open(Path::new(SAMPLE)).unwrap();
    let files = export(&src, src.annotations().unwrap(), &spec(dir.path(), "01", BidsData::EdfOrBdf)).unwrap();
    let (data, channels, events) = (&files[0], &files[1], &files[2]);
    let t = std::fs::read_to_string(channels).unwrap().replacen("EEG 005\tEEG\tuV\tgood", "EEG 005\tEEG\tuV\tbad", 1);
    let t = t.replacen("EEG 007\tEEG", "EEG 007\tECG", 1).replacen("EEG 008\tEEG", "EEG 008\tVEOG", 1);
    std::fs::write(channels, t).unwrap();
    std::fs::write(events, "onset\tduration\tvalue\n2.5\tn/a\t7\n1.0\t0.5\t3\n").unwrap();
    let back = Recording::open(data).unwrap();
    assert_eq!(back.bads(), ["EEG 005"]);
    // The channels.tsv types are the channels' types (the file's own labels say EEG).
    let kind = |l: &str| back.channels()[back.channel_index(l).unwrap()].kind.name();
    assert_eq!((kind("EEG 006"), kind("EEG 007"), kind("EEG 008"), kind("EOG 061")), ("eeg", "ecg", "eog", "eog"));
    let a = back.annotations().unwrap();
    assert_eq!(
        a.iter().map(|a| (a.onset_s, a.duration_s, a.text.as_str())).collect::<Vec<_>>(),
        [(1.0, Some(0.5), "3"), (2.5, None, "7")]
    );
    std::fs::write(events, "onset\tduration\ttrial_type\nsoon\t0\tx\n").unwrap();
    let e = Recording::open(data).unwrap_err().to_string();
    assert!(e.contains("_events.tsv") && e.contains("line 2") && e.contains("soon"), "{e}");
    let bad = Entities { subject: "0_1".into(), task: "x".into(), ..Default::default() };
    let e = export(&src, &[], &ExportSpec { entities: bad, ..spec(dir.path(), "01", BidsData::EdfOrBdf) });
    assert!(e.unwrap_err().to_string().contains("letters and digits"));
}
