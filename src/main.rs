//! `brainlens`: parse the command line; no subcommand opens the GUI.

use brainlens::cli::{Cli, Command, recording};
use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut stdout = std::io::stdout().lock();
    let result = match cli.command {
        Some(Command::Info { file, json }) => recording::info(&file, json, &mut stdout),
        Some(Command::Samples { file, channel, start, duration, json }) => {
            recording::samples(&file, &channel, start, duration, json, &mut stdout)
        }
        Some(Command::Annotations { file, json }) => recording::annotations(&file, json, &mut stdout),
        Some(Command::Open { file }) => brainlens::ui::run(Some(file), cli.screenshot, cli.frame_stats),
        None => brainlens::ui::run(None, cli.screenshot, cli.frame_stats),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("brainlens: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
