//! The learned graph encoder: training writes a model and a loss log, resumes from its checkpoint exactly
//! where it stopped, the trained model embeds 100-region graphs to unit vectors and refuses other sizes; the
//! CLI trains and a case memory can be built with it; the GUI draws the loss curve of a log.

mod common;

use brainlens::network::connectome::Asymmetry;
use brainlens::retrieval::gfm::train::{TrainOptions, train};
use brainlens::retrieval::gfm::{GfmModel, graph_files};
use brainlens::util::cancel::Cancel;

fn graphs() -> Vec<brainlens::network::Connectome> {
    let files = graph_files(std::path::Path::new("fixtures/networks/fc")).unwrap();
    files
        .iter()
        .filter(|f| f.to_string_lossy().contains("_win"))
        .take(4)
        .map(|f| brainlens::network::io::load(f, Asymmetry::Symmetrize).unwrap())
        .collect()
}

#[test]
fn trains_resumes_and_embeds() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gfm.safetensors");
    let g = graphs();
    assert_eq!(g.len(), 4);
    let small = TrainOptions { epochs: 2, dim: 16, layers: 1, ..Default::default() };
    let first = train(&g, &out, &small, &mut |_| {}, &Cancel::default()).unwrap();
    assert_eq!((first.epochs_done, first.losses.len()), (2, 2));
    assert!(out.is_file() && out.with_extension("json").is_file());
    // Resume to 4 epochs: the first two epochs are kept as they were, two more are run.
    let more = TrainOptions { epochs: 4, resume: true, ..small };
    let resumed = train(&g, &out, &more, &mut |_| {}, &Cancel::default()).unwrap();
    assert_eq!(resumed.epochs_done, 4);
    assert_eq!(&resumed.losses[..2], &first.losses[..]);
    assert!(resumed.losses.iter().all(|e| e.total.is_finite() && (e.total - e.masked - e.contrastive).abs() < 1e-3));
    // A fresh seeded run of 4 epochs: identical first epochs; after the resume point only AdamW's moment
    // estimates differ (they restart), so the losses stay within 2 %.
    let fresh = train(
        &g,
        &dir.path().join("fresh.safetensors"),
        &TrainOptions { epochs: 4, ..small },
        &mut |_| {},
        &Cancel::default(),
    )
    .unwrap();
    for (i, (a, b)) in fresh.losses.iter().zip(&resumed.losses).enumerate() {
        let tol = if i < 2 { 1e-4 } else { 0.02 };
        assert!((a.total - b.total).abs() <= tol * a.total.abs().max(1.0), "epoch {}: {a:?} vs {b:?}", i + 1);
    }
    let model = GfmModel::load(&out).unwrap();
    let e = model.embed(&g[0]).unwrap();
    assert_eq!(e.len(), 16);
    assert!((e.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-4);
    let small_graph =
        brainlens::network::Connectome::from_matrix("t", 2, 2, vec![0.0, 1.0, 1.0, 0.0], None, Asymmetry::Error)
            .unwrap();
    assert!(model.embed(&small_graph).unwrap_err().to_string().contains("100-region"));
    // A case memory built with it records the encoder and CARD uses it for the query.
    let mem = dir.path().join("mem");
    let labels = dir.path().join("labels.csv");
    let files = graph_files(std::path::Path::new("fixtures/networks/fc")).unwrap();
    let rows: Vec<String> = files
        .iter()
        .filter(|f| f.to_string_lossy().contains("_win"))
        .take(4)
        .enumerate()
        .map(|(i, f)| {
            format!(
                "{},{},g{i}",
                f.file_name().unwrap().to_string_lossy(),
                if f.to_string_lossy().contains("100206") { "a" } else { "b" }
            )
        })
        .collect();
    std::fs::write(&labels, format!("file,label,group\n{}\n", rows.join("\n"))).unwrap();
    let (code, _, err) = common::run(&[
        "cases",
        "build",
        "--graphs",
        "fixtures/networks/fc",
        "--labels",
        labels.to_str().unwrap(),
        "--task",
        "t",
        "--gfm",
        out.to_str().unwrap(),
        "--out",
        mem.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v = common::json(&["card", files[0].to_str().unwrap(), "--memory", mem.to_str().unwrap(), "--json"]);
    assert_eq!(v["candidates"].as_array().unwrap().len(), 4);
    let memory: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(mem.join("memory.json")).unwrap()).unwrap();
    assert!(memory["encoder"].as_str().unwrap().starts_with("gfm:"), "{}", memory["encoder"]);
}

#[test]
fn cli_trains_and_refuses_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.safetensors");
    let v = common::json(&[
        "gfm",
        "train",
        "--graphs",
        "fixtures/networks/fc",
        "--out",
        out.to_str().unwrap(),
        "--epochs",
        "1",
        "--json",
    ]);
    assert_eq!(v["epochs_done"], 1);
    assert_eq!(v["graphs"], 16);
    let (code, _, err) =
        common::run(&["gfm", "train", "--graphs", dir.path().to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(code == 1 && err.contains("no graph files"), "{err}");
}

/// The paper's Table 5 settings as options: several heads, a chosen feed-forward width, a 2-layer decoder, a
/// learned mask token, seeded dropout and shuffled minibatches train (small here: width 16, 1 layer), the
/// same seed gives the same losses, the log records every setting, and the model loads and embeds. `--paper`
/// starts from Table 5 and the options override it.
#[test]
fn table_5_settings_train_deterministically_and_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let g = graphs();
    let o = TrainOptions {
        epochs: 2,
        dim: 16,
        layers: 1,
        heads: 4,
        ffn: 24,
        decoder_layers: 2,
        mask_token: true,
        mask_fraction: 0.7,
        dropout: 0.3,
        temperature: 1.0,
        batch: 2,
        ..Default::default()
    };
    let a = train(&g, &dir.path().join("a.safetensors"), &o, &mut |_| {}, &Cancel::default()).unwrap();
    let b = train(&g, &dir.path().join("b.safetensors"), &o, &mut |_| {}, &Cancel::default()).unwrap();
    assert_eq!(a.losses, b.losses, "seeded: dropout masks and batches repeat");
    assert!(a.losses.iter().all(|e| e.total.is_finite()));
    assert_eq!((a.config.heads, a.config.ffn, a.config.decoder_layers, a.config.mask_token), (4, 24, 2, true));
    let t = a.training.unwrap();
    assert_eq!((t.dropout, t.mask_ratio, t.tau, t.batch), (0.3, 0.7, 1.0, 2));
    let model = GfmModel::load(&dir.path().join("a.safetensors")).unwrap();
    assert_eq!(model.embed(&g[1]).unwrap().len(), 16);
    let one = TrainOptions { batch: 1, ..o };
    let e = train(&g, &dir.path().join("d.safetensors"), &one, &mut |_| {}, &Cancel::default()).unwrap_err();
    assert!(e.to_string().contains("batch 1"), "{e}");
    let bad = TrainOptions { heads: 3, ..o };
    let e = train(&g, &dir.path().join("c.safetensors"), &bad, &mut |_| {}, &Cancel::default()).unwrap_err();
    assert!(e.to_string().contains("does not divide into 3 heads"), "{e}");
    let p = TrainOptions::paper();
    assert_eq!(
        (
            p.layers,
            p.dim,
            p.ffn,
            p.heads,
            p.dropout,
            p.mask_fraction,
            p.decoder_layers,
            p.temperature,
            p.batch,
            p.epochs
        ),
        (6, 128, 256, 8, 0.3, 0.7, 2, 1.0, 128, 500)
    );
    let out = dir.path().join("cli.safetensors");
    let log = common::json(&[
        "gfm",
        "train",
        "--graphs",
        "fixtures/networks/fc",
        "--out",
        out.to_str().unwrap(),
        "--paper",
        "--epochs",
        "1",
        "--layers",
        "1",
        "--width",
        "16",
        "--ffn",
        "32",
        "--json",
    ]);
    assert_eq!(log["epochs_done"], 1);
    let c = &log["config"];
    assert_eq!((&c["dim"], &c["layers"], &c["heads"], &c["ffn"]), (&16.into(), &1.into(), &8.into(), &32.into()));
    assert_eq!((&c["decoder_layers"], &c["mask_token"]), (&2.into(), &true.into()));
    assert_eq!((&log["training"]["dropout"], &log["training"]["batch"]), (&0.3.into(), &128.into()));
}
