//! `brainlens`: parse the command line; no subcommand opens the GUI.

use brainlens::cli::{Cli, Command, recording};
use clap::Parser;
use std::process::ExitCode;

#[cfg(feature = "gui")]
fn gui(file: Option<std::path::PathBuf>, screenshot: &Option<std::path::PathBuf>, frames: Option<u32>) -> anyhow::Result<()> {
    brainlens::ui::run(file, screenshot.clone(), frames)
}

#[cfg(not(feature = "gui"))]
fn gui(_: Option<std::path::PathBuf>, _: &Option<std::path::PathBuf>, _: Option<u32>) -> anyhow::Result<()> {
    anyhow::bail!("this brainlens was built without the `gui` feature; use a subcommand (see --help)")
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut stdout = std::io::stdout().lock();
    let result = match cli.command {
        Some(Command::Info { file, json }) => recording::info(&file, json, &mut stdout),
        Some(Command::Samples { file, channel, start, duration, json }) => {
            recording::samples(&file, &channel, start, duration, json, &mut stdout)
        }
        Some(Command::Annotations { file, json }) => recording::annotations(&file, json, &mut stdout),
        Some(Command::Page { file, start, duration, montage, highpass, lowpass, notch, json }) => {
            let filter = brainlens::signal::filter::display::DisplayFilter { highpass_hz: highpass, lowpass_hz: lowpass, notch_hz: notch };
            recording::page(&file, start, duration, &montage, &filter, json, &mut stdout)
        }
        Some(Command::Open { file }) => gui(Some(file), &cli.screenshot, cli.frame_stats),
        None => gui(None, &cli.screenshot, cli.frame_stats),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("brainlens: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
