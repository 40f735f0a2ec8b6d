//! `brainlens network plot`: every view of the real HCP group FC (Schaefer-100) and of AAL-90 and Power-264
//! matrices (seeded synthetic weights on the atlases' real coordinates) written as PNG and SVG headless,
//! the layout JSON, and bad atlases refused with the file and the problem.

mod common;
use common::{json, run};
use std::path::{Path, PathBuf};

/// A seeded symmetric n × n matrix as CSV (synthetic weights for figure tests).
fn synthetic(dir: &Path, name: &str, n: usize) -> PathBuf {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut w = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..i {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v = (state >> 11) as f64 / (1u64 << 53) as f64 - 0.3;
            (w[i * n + j], w[j * n + i]) = (v, v);
        }
    }
    let rows: Vec<String> =
        (0..n).map(|i| (0..n).map(|j| format!("{:.4}", w[i * n + j])).collect::<Vec<_>>().join(",")).collect();
    let p = dir.join(name);
    std::fs::write(&p, rows.join("\n") + "\n").unwrap();
    p
}

fn png_size(p: &Path) -> (u32, u32) {
    let b = std::fs::read(p).unwrap();
    assert!(b.starts_with(b"\x89PNG"), "{} is not a PNG", p.display());
    (u32::from_be_bytes(b[16..20].try_into().unwrap()), u32::from_be_bytes(b[20..24].try_into().unwrap()))
}

#[test]
fn every_view_of_three_atlases_is_written_as_png_and_svg() {
    let d = tempfile::tempdir().unwrap();
    let group = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/networks/group-train706_fc.npz");
    let cases = [
        (group, "auto", 100, "Schaefer-100 (Yeo-7)"),
        (synthetic(d.path(), "aal90.csv", 90), "aal90", 90, "AAL-90"),
        (synthetic(d.path(), "power264.csv", 264), "auto", 264, "Power-264"),
    ];
    for (file, atlas, n, name) in &cases {
        for view in ["glass", "circle", "matrix"] {
            let (png, svg) = (d.path().join(format!("{n}-{view}.png")), d.path().join(format!("{n}-{view}.svg")));
            let v = json(&[
                "network",
                "plot",
                file.to_str().unwrap(),
                "--view",
                view,
                "--atlas",
                atlas,
                "--png",
                png.to_str().unwrap(),
                "--svg",
                svg.to_str().unwrap(),
                "--json",
            ]);
            assert_eq!(v["atlas"], *name);
            let (w, h) = png_size(&png);
            let (fw, fh) = (v["width"].as_f64().unwrap(), v["height"].as_f64().unwrap());
            assert_eq!((w, h), ((fw * 2.0).ceil() as u32, (fh * 2.0).ceil() as u32), "{name} {view}: PNG at 2×");
            let text = std::fs::read_to_string(&svg).unwrap();
            resvg::usvg::Tree::from_str(&text, &Default::default()).unwrap_or_else(|e| panic!("{name} {view}: {e}"));
            let nodes = v["nodes"].as_array().unwrap().len();
            assert_eq!(nodes, if view == "glass" { 3 * n } else { *n }, "{name} {view}: every node placed");
            if view == "glass" {
                assert_eq!(v["panels"].as_array().unwrap().len(), 3);
                assert!(v["edges"].as_u64().unwrap() > 0);
            }
        }
    }
    // The 3-D view of each: a PNG at 2× and a short turning GIF; every node placed once.
    for (file, atlas, n, name) in &cases {
        let (png, gif) = (d.path().join(format!("{n}-3d.png")), d.path().join(format!("{n}-3d.gif")));
        let v = json(&[
            "network",
            "plot",
            file.to_str().unwrap(),
            "--view",
            "3d",
            "--atlas",
            atlas,
            "--png",
            png.to_str().unwrap(),
            "--gif",
            gif.to_str().unwrap(),
            "--frames",
            "4",
            "--camera",
            "top",
            "--json",
        ]);
        assert_eq!(v["atlas"], *name);
        assert_eq!(png_size(&png), (780, 600), "{name}: 390 × 300 at 2×");
        assert!(std::fs::read(&gif).unwrap().starts_with(b"GIF89a"), "{name}");
        assert_eq!(v["nodes"].as_array().unwrap().len(), *n);
    }
    // nilearn's four-panel mode.
    let v = json(&["network", "plot", cases[2].0.to_str().unwrap(), "--display-mode", "lzry", "--json"]);
    let names: Vec<&str> = v["panels"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["l", "z", "r", "y"]);
}

#[test]
fn atlases_that_do_not_fit_are_refused_with_the_file_and_the_problem() {
    let d = tempfile::tempdir().unwrap();
    let m = synthetic(d.path(), "m.csv", 3);
    let m = m.to_str().unwrap();
    let node = d.path().join("bad.node");
    std::fs::write(&node, "10 20 30 1 1 A\n-10 20\n0 0 0 1 1 C\n").unwrap();
    let (code, _, err) = run(&["network", "plot", m, "--atlas", node.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.node") && err.contains("line 2"), "{err}");
    let (code, _, err) = run(&["network", "plot", m, "--atlas", "aal90", "--json"]);
    assert_eq!(code, 1);
    assert!(err.contains("m.csv") && err.contains("3 regions but atlas AAL-90 has 90"), "{err}");
    let labels = d.path().join("labels.csv");
    std::fs::write(&labels, "label\nA\nB\nC\n").unwrap();
    let (code, _, err) = run(&["network", "plot", m, "--atlas", labels.to_str().unwrap(), "--json"]);
    assert_eq!(code, 1);
    assert!(err.contains("has no coordinates for the glass brain"), "{err}");
    let (code, out, _) =
        run(&["network", "plot", m, "--atlas", labels.to_str().unwrap(), "--view", "circle", "--json"]);
    assert_eq!(code, 0, "the circle needs no coordinates: {out}");
    let (code, _, err) = run(&["network", "plot", m, "--view", "glass", "--edge-threshold", "120%", "--json"]);
    assert_eq!(code, 1);
    assert!(err.contains("between 0 and 100"), "{err}");
    // A surface that is not GIFTI.
    let aal = synthetic(d.path(), "aal.csv", 90);
    let (code, _, err) =
        run(&["network", "plot", aal.to_str().unwrap(), "--atlas", "aal90", "--view", "3d", "--surface", m, "--json"]);
    assert_eq!(code, 1);
    assert!(err.contains("m.csv: not a GIFTI file"), "{err}");
}
