//! Driving the app in egui_kittest tests.
#![allow(dead_code)]

use brainlens::ui::app::BrainLensApp;
use egui_kittest::Harness;

/// Runs frames until `done` holds (background jobs finish on their threads); fails after about a minute.
pub fn settle(h: &mut Harness<'static, BrainLensApp>, done: impl Fn(&BrainLensApp) -> bool) {
    for _ in 0..3000 {
        h.run_steps(1);
        if done(h.state()) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("the app never settled");
}
