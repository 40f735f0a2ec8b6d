//! What every room gives the shell (as egui_demo_app's and rerun's panels do): draw yourself, say one status
//! line, list your running jobs, stop them, say when nothing is loading. Rooms never reach into each other:
//! a cross-room action is an [`AppCmd`] posted through the [`Shell`] and applied by the app after the frame.

use super::settings::Settings;
use crate::llm::config::ProviderConfig;
use std::path::PathBuf;

/// An action for the app or another room, applied after the frame that posted it.
#[derive(Debug, Clone, PartialEq)]
pub enum AppCmd {
    /// Open a file in the room that reads it (e.g. a connectivity matrix in Networks).
    Open(PathBuf),
    /// Put a file on the recent-files list.
    Remember(PathBuf),
}

/// What the shell lends a room for one frame.
pub struct Shell<'a> {
    pub settings: &'a mut Settings,
    /// The language model the user chose in the Model window (with the session's key).
    pub provider: &'a ProviderConfig,
    pub commands: &'a mut Vec<AppCmd>,
}

/// A running background job: its name and the fraction done.
pub type JobStatus = (String, f32);

pub trait Room {
    fn show(&mut self, ui: &mut egui::Ui, shell: &mut Shell);
    /// One line for the status bar.
    fn status(&self) -> String;
    /// Every job of the room that is running now.
    fn jobs(&self) -> Vec<JobStatus>;
    /// Stops every running job of the room.
    fn cancel(&mut self);
    /// Nothing loads or computes: a screenshot may be taken.
    fn settled(&self) -> bool;
}
