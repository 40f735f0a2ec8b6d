//! Settings that survive a restart, persisted by eframe (one serde struct, `#[serde(default)]`).

use crate::llm::config::{ProviderConfig, Purpose};
use crate::signal::filter::display::DisplayFilter;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Colour theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Theme {
    #[default]
    Dark,
    Light,
}

/// Persisted settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub theme: Theme,
    /// Most recent first, at most [`MAX_RECENT`].
    pub recent_files: Vec<PathBuf>,
    pub page_s: f64,
    pub epoch_grid: bool,
    pub display_filter: DisplayFilter,
    /// Language-model provider (never the API key: `ProviderConfig` skips it when serialising).
    pub llm: ProviderConfig,
    /// The network the Networks room opens at its first visit (the bundled HCP group FC when none).
    pub last_network: Option<PathBuf>,
    /// The window was sized to the screen once; since then eframe restores the size the user left.
    pub window_sized: bool,
}

/// How many recent files are remembered.
pub const MAX_RECENT: usize = 10;

impl Default for Settings {
    fn default() -> Self {
        Self {
            theme: Theme::Dark,
            recent_files: Vec::new(),
            page_s: 10.0,
            epoch_grid: false,
            display_filter: DisplayFilter::default(),
            llm: ProviderConfig::from_env(Purpose::Agent),
            last_network: None,
            window_sized: false,
        }
    }
}

impl Settings {
    /// Puts `path` first in the recent list.
    pub fn remember(&mut self, path: PathBuf) {
        self.recent_files.retain(|p| p != &path);
        self.recent_files.insert(0, path);
        self.recent_files.truncate(MAX_RECENT);
    }
}
