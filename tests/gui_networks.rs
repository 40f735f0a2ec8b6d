//! GUI behaviour of the Networks room with egui_kittest: open the real HCP group FC, move the density
//! slider, select a hub in the table and see it selected in the matrix and circle views.
#![cfg(feature = "gui")]

use brainlens::ui::app::{BrainLensApp, Room};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::Path;

/// Frames until the metrics job of the last option change has ended (it runs off the UI thread).
fn settle_metrics(h: &mut Harness<'static, BrainLensApp>) {
    for _ in 0..500 {
        h.run_steps(1);
        if !h.state().networks.current.as_ref().is_some_and(|o| o.recomputing()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the metrics job never ended");
}

/// A primary click at `pos` (points), then three frames.
fn click_at(h: &mut Harness<'static, BrainLensApp>, pos: egui::Pos2) {
    h.event(egui::Event::PointerMoved(pos));
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        });
    }
    h.run_steps(3);
}

fn harness() -> Harness<'static, BrainLensApp> {
    let mut app = BrainLensApp::new(None, false);
    app.open(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/networks/group-train706_fc.npz"));
    let mut h =
        Harness::builder().with_size([1280.0, 800.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    h
}

#[test]
fn opens_a_matrix_in_the_networks_room() {
    let h = harness();
    assert_eq!(h.state().room, Room::Networks);
    let o = h.state().networks.current.as_ref().expect("network open");
    assert_eq!(o.connectome.n, 100);
    assert_eq!(o.connectome.labels[0], "LH_Vis_1");
    assert!((o.metrics.density - 0.2).abs() < 1e-12);
}

#[test]
fn the_density_slider_recomputes() {
    let mut h = harness();
    // Move the slider to 30 % as assistive technology (and a drag) would.
    h.get_by_role_and_label(egui::accesskit::Role::Slider, "Density %").set_value_accesskit(30.0);
    h.run_steps(2);
    settle_metrics(&mut h);
    let o = h.state().networks.current.as_ref().unwrap();
    assert!((o.metrics.density - 0.30).abs() < 1e-12, "density {}", o.metrics.density);
}

#[test]
fn selecting_a_hub_in_the_table_selects_it_everywhere() {
    let mut h = harness();
    h.get_by_label("betweenness").click();
    h.run_steps(2);
    let hub = {
        let o = h.state().networks.current.as_ref().unwrap();
        let best = (0..o.connectome.n)
            .max_by(|&a, &b| o.metrics.nodes[a].betweenness.total_cmp(&o.metrics.nodes[b].betweenness))
            .unwrap();
        o.connectome.labels[best].clone()
    };
    h.get_by_label(&hub).click();
    h.run_steps(2);
    assert_eq!(
        h.state().networks.current.as_ref().unwrap().connectome.labels
            [h.state().networks.current.as_ref().unwrap().selected.unwrap()],
        hub
    );
    let caption = format!("selected: {hub}");
    h.get_by_label_contains(&format!("Matrix (atlas order) — {caption}"));
    h.get_by_label_contains(&format!("Circle — {caption}"));
    h.get_by_label_contains(&format!("Glass brain — {caption}"));
}

/// Clicks where the core's glass-brain figure puts a region (its marks, scaled into the painted widget):
/// the region becomes the selection of the table, matrix and circle; the circle picks the same way.
#[test]
fn clicking_a_node_on_the_glass_brain_or_circle_selects_it() {
    use brainlens::network::plot::{circle, glass};
    let mut h = harness();
    for (label, target) in [("glass brain figure", 37usize), ("circle figure", 81)] {
        let (figure, rect) = {
            let o = h.state().networks.current.as_ref().unwrap();
            let style = o.figure_style();
            let f = if label.starts_with("glass") {
                glass::draw(&o.input(), &style)
            } else {
                circle::draw(&o.input(), &style)
            };
            (f.unwrap(), h.get_by_label(label).rect())
        };
        let scale = rect.width() / figure.scene.width;
        let mark = figure.marks.iter().find(|m| m.node == target).unwrap();
        let pos = rect.min + egui::vec2(mark.at[0], mark.at[1]) * scale;
        click_at(&mut h, pos);
        let o = h.state().networks.current.as_ref().unwrap();
        assert_eq!(o.selected, Some(target), "{label}");
        h.get_by_label_contains(&format!("Matrix (atlas order) — selected: {}", o.connectome.labels[target]));
    }
}

#[test]
fn small_world_runs_in_the_background() {
    let mut h = harness();
    h.get_by_role_and_label(egui::accesskit::Role::Slider, "Density %").set_value_accesskit(30.0);
    h.run_steps(2);
    settle_metrics(&mut h);
    h.get_by_label("Compute σ/ω (20 references)").click();
    // Waits for the background job, not for a time: up to 2 minutes on a loaded machine (10 s was too short
    // for a debug build beside two model runs on 2 cores).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while std::time::Instant::now() < deadline {
        h.run_steps(1);
        if h.state().networks.current.as_ref().unwrap().small_world.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    h.run_steps(2);
    let o = h.state().networks.current.as_ref().unwrap();
    let r = o.small_world.as_ref().expect("finished").as_ref().expect("σ/ω computed");
    assert!(r.values.sigma > 1.0 && r.nodes_used == 98, "σ {} on {} nodes", r.values.sigma, r.nodes_used);
    h.get_by_label_contains("largest component of 98 regions, 20 references");
}

#[test]
fn an_asymmetric_matrix_opens_as_directed() {
    let mut app = BrainLensApp::new(None, false);
    app.open(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/networks/sub-100206_REST1_lag1_xcorr.npy"));
    let mut h =
        Harness::builder().with_size([1280.0, 800.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(3);
    assert!(h.state().networks.current.as_ref().unwrap().connectome.directed);
    h.get_by_label_contains("directed (asymmetric matrix, row to column)");
}

#[test]
fn an_eeg_connectivity_matrix_opens_with_its_electrode_positions() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("plv.csv");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_brainlens"))
        .args([
            "connectivity",
            "fixtures/eeg/mne_sample_eeg60.edf",
            "--method",
            "plv",
            "--band",
            "8-12",
            "--positions",
            "fixtures/eeg/mne_sample_eeg60_positions.csv",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut app = BrainLensApp::new(None, false);
    app.open(out);
    assert_eq!(app.room, Room::Networks);
    let net = app.networks.current.as_ref().unwrap();
    assert_eq!(net.connectome.n, 60);
    let atlas = net.atlas.as_ref().expect("the atlas beside the matrix");
    assert_eq!(atlas.coords.as_ref().unwrap().len(), 60);
    assert!(net.atlas_note.contains("beside the matrix"));
}

#[test]
fn the_status_bar_lists_every_rooms_jobs_and_cancels_them() {
    let mut h = harness();
    // A long σ/ω job in the Networks room, then the user goes to the Recordings room.
    h.state_mut().networks.current.as_mut().unwrap().start_small_world(5000);
    h.state_mut().room = Room::Recordings;
    h.run_steps(2);
    assert!(h.query_all_by_label_contains("Networks: σ/ω references").count() >= 1, "the other room's job is listed");
    h.get_by_label("Cancel").click();
    for _ in 0..500 {
        h.run_steps(1);
        if h.query_all_by_label_contains("σ/ω references").count() == 0 {
            // Back in the room, the cancelled job leaves no result.
            h.state_mut().room = Room::Networks;
            h.run_steps(3);
            assert!(h.state().networks.current.as_ref().unwrap().small_world.is_none());
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the σ/ω job did not stop");
}

#[test]
fn the_first_visit_opens_the_bundled_hcp_group_fc_and_the_toolbar_fits_1280_px() {
    // As `brainlens` starts: the sample recording open, the Networks room never visited.
    let mut app = BrainLensApp::new(None, false);
    app.open(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/eeg/mne_sample_eeg60.edf"));
    let mut h =
        Harness::builder().with_size([1280.0, 800.0]).build_ui_state(|ui, app: &mut BrainLensApp| app.show(ui), app);
    h.run_steps(2);
    assert!(h.state().networks.current.is_none(), "nothing opens before the room is visited");
    h.get_by_label("Networks").click();
    h.run_steps(3);
    let o = h.state().networks.current.as_ref().expect("a network on first visit");
    assert!(o.path.ends_with("fixtures/networks/group-train706_fc.npz"), "{}", o.path.display());
    assert_eq!((o.connectome.n, o.connectome.labels[0].as_str()), (100, "LH_Vis_1"));
    assert_eq!(h.state().settings.last_network.as_deref(), Some(o.path.as_path()));
    // Every toolbar control is inside the 1280-px window (the row wraps instead of running off).
    for label in ["Open matrix…", "Knowledge (HARK)…", "Similar cases (CARD)…", "Review knowledge…", "BrainAgent…"]
    {
        let r = h.get_by_label(label).rect();
        assert!(r.right() <= 1280.0 && r.left() >= 0.0, "{label} at {r:?}");
    }
}

/// Every network under File > Open sample network opens with an atlas that has coordinates (so the glass
/// brain draws it), from the bundled real files.
#[test]
fn every_sample_network_opens_with_coordinates() {
    for (name, path) in brainlens::ui::SAMPLE_NETWORKS {
        let mut app = BrainLensApp::new(None, false);
        app.open(brainlens::util::paths::bundled(path));
        let net = app.networks.current.as_ref().unwrap_or_else(|| panic!("{name}: {:?}", app.networks.error));
        let n = net.connectome.n;
        assert!(name.contains(&format!("Schaefer-{n}")), "{name}: {n} regions");
        assert_eq!(net.atlas.as_ref().and_then(|a| a.coords.as_ref()).map(Vec::len), Some(n), "{name}");
    }
}

/// The 3-D view picks as it draws: the core renders the same camera at the widget's pixel size, and a
/// click on the front-most node's centre selects that region everywhere.
#[test]
fn clicking_a_node_in_the_3d_view_selects_it() {
    use brainlens::network::plot::brain3d::{self, Mesh};
    let mut h = harness();
    h.state_mut().networks.brain_view = brainlens::ui::networks::BrainView::ThreeD;
    h.run_steps(3);
    let rect = h.get_by_label("3-D view").rect();
    let (target, pos) = {
        let app = h.state();
        let o = app.networks.current.as_ref().unwrap();
        let cam = app.networks.view3d.camera.unwrap_or_default();
        let mesh = Mesh::new(brainlens::network::surface::fsaverage5("pial").unwrap());
        let style = o.figure_style();
        let (w, hh) = (rect.width().round() as u32, rect.height().round() as u32);
        let frame = brain3d::render(&o.input(), &style, &mesh, &cam, w, hh).unwrap();
        // The front-most node drawn larger than a few pixels.
        let m = frame.marks.iter().find(|m| m.r >= 3.0).unwrap();
        (m.node, rect.min + egui::vec2(m.at[0], m.at[1]))
    };
    click_at(&mut h, pos);
    let o = h.state().networks.current.as_ref().unwrap();
    assert_eq!(o.selected, Some(target));
    h.get_by_label_contains(&format!("Matrix (atlas order) — selected: {}", o.connectome.labels[target]));
    // A surface file that is not GIFTI: the error names it, the previous surface stays on screen.
    let bad = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/atlas/power264.csv");
    h.state_mut().networks.view3d.load(bad.to_str().unwrap());
    h.run_steps(2);
    h.get_by_label_contains("surface not loaded (the previous one stays)");
    h.get_by_label_contains("power264.csv: not a GIFTI file");
    h.get_by_label("3-D view");
    h.get_by_label_contains("surface: fsaverage5 pial");
}

/// An atlas given in the room: one with another region count or a broken .node is refused with the reason
/// and the current atlas stays; a fitting CSV replaces the labels, networks and positions.
#[test]
fn an_atlas_that_does_not_fit_is_refused_and_the_view_kept() {
    let mut h = harness();
    let d = tempfile::tempdir().unwrap();
    let node = d.path().join("bad.node");
    std::fs::write(&node, "10 20 30 1 1 A\n-10 20\n").unwrap();
    for (spec, why) in [("aal90", "has 90 regions, the matrix 100"), (node.to_str().unwrap(), "bad.node: line 2")] {
        h.state_mut().networks.current.as_mut().unwrap().set_atlas(spec);
        h.run_steps(2);
        h.get_by_label_contains(why);
        let o = h.state().networks.current.as_ref().unwrap();
        assert_eq!(o.atlas.as_ref().unwrap().name, "Schaefer-100 (Yeo-7)", "{spec}");
        h.get_by_label("glass brain figure");
    }
    let csv = d.path().join("mine.csv");
    let rows: String = (0..100).map(|i| format!("R{i},{},{},{},net{}\n", i as f64 - 50.0, i % 7, 10, i % 3)).collect();
    std::fs::write(&csv, format!("label,x,y,z,network\n{rows}")).unwrap();
    h.state_mut().networks.current.as_mut().unwrap().set_atlas(csv.to_str().unwrap());
    settle_metrics(&mut h);
    h.run_steps(2);
    let o = h.state().networks.current.as_ref().unwrap();
    assert_eq!((o.connectome.labels[3].as_str(), o.metrics.nodes[3].label.as_str()), ("R3", "R3"));
    assert_eq!(o.network_of(4), Some("net1"));
    assert!(o.atlas_error.is_none());
}
