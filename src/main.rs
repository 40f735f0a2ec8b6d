//! `brainlens`: parse the command line; no subcommand opens the GUI.

use brainlens::cli::{Cli, Command, NetworkCommand, network, recording};
use clap::Parser;
use std::process::ExitCode;

#[cfg(feature = "gui")]
fn gui(file: Option<std::path::PathBuf>, cli: &Cli) -> anyhow::Result<()> {
    let options = brainlens::ui::RunOptions {
        screenshot: cli.screenshot.clone(),
        frame_stats: cli.frame_stats,
        page_s: cli.page,
    };
    brainlens::ui::run(file, options)
}

#[cfg(not(feature = "gui"))]
fn gui(_: Option<std::path::PathBuf>, _: &Cli) -> anyhow::Result<()> {
    anyhow::bail!("this brainlens was built without the `gui` feature; use a subcommand (see --help)")
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    let mut stdout = std::io::stdout().lock();
    let result = match cli.command.take() {
        Some(Command::Info { file, json }) => recording::info(&file, json, &mut stdout),
        Some(Command::Samples { file, channel, start, duration, json }) => {
            recording::samples(&file, &channel, start, duration, json, &mut stdout)
        }
        Some(Command::Annotations { file, json }) => recording::annotations(&file, json, &mut stdout),
        Some(Command::Page { file, start, duration, montage, highpass, lowpass, notch, json }) => {
            let filter = brainlens::signal::filter::display::DisplayFilter {
                highpass_hz: highpass,
                lowpass_hz: lowpass,
                notch_hz: notch,
            };
            recording::page(&file, start, duration, &montage, &filter, json, &mut stdout)
        }
        Some(Command::Network { command: NetworkCommand::Open { file } }) => gui(Some(file), &cli),
        Some(Command::Network { command }) => network::run(command, &mut stdout),
        Some(Command::Open { file }) => gui(Some(file), &cli),
        None => gui(None, &cli),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("brainlens: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
