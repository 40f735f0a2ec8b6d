//! `brainlens`: parse the command line; no subcommand opens the GUI.

use brainlens::bench::aggregate::Levels;
use brainlens::cli::{
    BenchCommand, BidsCommand, Cli, Command, NetworkCommand, SandboxCommand, bench, bids, connectivity, convert,
    filter, network, physio, recording, reref, resample, sleep, spectrum,
};
use clap::Parser;
use std::process::ExitCode;

#[cfg(feature = "gui")]
fn run_options(cli: &Cli) -> brainlens::ui::RunOptions {
    brainlens::ui::RunOptions {
        screenshot: cli.screenshot.clone(),
        frame_stats: cli.frame_stats,
        page_s: cli.page,
        room: cli.room.clone(),
        network_view: cli.network_view.clone(),
        spectrum: cli.spectrum || cli.spectrum_zoom.is_some(),
        spectrum_zoom: cli.spectrum_zoom,
        hrv: cli.hrv,
        model_window: cli.model_window,
        evidence: cli.evidence,
        agent: cli.agent.clone(),
        agent_trace: cli.agent_trace.clone(),
        agent_runs: cli.agent_runs.clone(),
        cohort_model: cli.cohort_model.clone(),
    }
}

#[cfg(feature = "gui")]
fn gui(file: Option<std::path::PathBuf>, cli: &Cli) -> anyhow::Result<()> {
    brainlens::ui::run(file, run_options(cli))
}

#[cfg(feature = "gui")]
fn gui_bench(results: Vec<std::path::PathBuf>, cli: &Cli) -> anyhow::Result<()> {
    brainlens::ui::run_bench(results, cli.bench_view.clone(), run_options(cli))
}

#[cfg(not(feature = "gui"))]
fn gui_bench(_: Vec<std::path::PathBuf>, _: &Cli) -> anyhow::Result<()> {
    anyhow::bail!("this brainlens was built without the `gui` feature; use `bench report` instead")
}

#[cfg(not(feature = "gui"))]
fn gui(_: Option<std::path::PathBuf>, _: &Cli) -> anyhow::Result<()> {
    anyhow::bail!("this brainlens was built without the `gui` feature; use a subcommand (see --help)")
}

fn main() -> ExitCode {
    let mut cli = Cli::parse();
    brainlens::signal::open_options::set_defaults(cli.open_options());
    if let Some(n) = cli.threads {
        brainlens::llm::local::threads::set_threads(usize::from(n));
    }
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
        Some(Command::Psd { file, channel, welch, method, bandwidth, json }) => {
            spectrum::psd(&file, &channel, &welch, &method, bandwidth, json, &mut stdout)
        }
        Some(Command::Spectrogram { file, channel, welch, max_columns, cdsa, epoch, bandwidth, json }) => {
            let cdsa = cdsa.then_some((epoch, bandwidth.or(Some(1.0))));
            spectrum::spectrogram_cmd(&file, &channel, &welch, max_columns, cdsa, json, &mut stdout)
        }
        Some(Command::Topomap { file, band, welch, positions, png, json }) => {
            spectrum::topomap_cmd(&file, &band, &welch, positions.as_deref(), png.as_deref(), json, &mut stdout)
        }
        Some(Command::Bandpower { file, band, welch, json }) => {
            spectrum::bandpower(&file, &band, &welch, json, &mut stdout)
        }
        Some(Command::Sleep { command }) => sleep::run(command, &mut stdout),
        Some(Command::Hrv { file, channel, key, fs, powerline, json }) => {
            physio::hrv_cmd(&file, channel.as_deref(), key.as_deref(), fs, powerline, json, &mut stdout)
        }
        Some(Command::Eog { file, channel, k, json }) => physio::eog_cmd(&file, &channel, k, json, &mut stdout),
        Some(Command::Spo2 { file, channel, drop, json }) => physio::spo2_cmd(&file, &channel, drop, json, &mut stdout),
        Some(Command::Filter { file, args }) => filter::run(&file, &args, &mut stdout),
        Some(Command::Reref { file, args }) => reref::run(&file, &args, &mut stdout),
        Some(Command::Convert { file, out, samples, resolution }) => {
            convert::run(&file, &out, &samples, resolution, &mut stdout)
        }
        Some(Command::Resample { file, sfreq, out }) => resample::run(&file, sfreq, &out, &mut stdout),
        Some(Command::Stats { file, channels, line, json }) => {
            spectrum::stats(&file, &channels, line, json, &mut stdout)
        }
        Some(Command::Connectivity { file, args }) => connectivity::run(&file, &args, &mut stdout),
        Some(Command::Network { command: NetworkCommand::Open { file } }) => gui(Some(file), &cli),
        Some(Command::Network { command }) => network::run(command, &mut stdout),
        Some(Command::Bids { command: BidsCommand::Export(args) }) => bids::export_cmd(&args, &mut stdout),
        Some(Command::Bids { command: BidsCommand::Ls { dir, json } }) => bids::ls(&dir, json, &mut stdout),
        Some(Command::Sandbox { command: SandboxCommand::Run(args) }) => match brainlens::cli::sandbox::run(args) {
            Ok(code) => return ExitCode::from(code.clamp(0, 255) as u8),
            Err(e) => Err(e),
        },
        Some(Command::Doctor { json }) => brainlens::cli::doctor::doctor(json, &mut stdout),
        Some(Command::Bench { command }) => match command {
            BenchCommand::Validate { cases, strict, json } => bench::validate(&cases, strict, json, &mut stdout),
            BenchCommand::Rescore { result, cases, out, workspace, strict, json } => {
                bench::rescore(&result, &cases, out.as_deref(), workspace.as_deref(), strict, json, &mut stdout)
            }
            BenchCommand::Strike(a) => brainlens::cli::bench_strike::strike(&a, &mut stdout),
            BenchCommand::Judge(a) => brainlens::cli::bench_judge::judge(&a, &mut stdout),
            BenchCommand::AuditParser { results, cases, n, provider, json } => {
                bench::audit_parser(&results, &cases, n, &provider, json, &mut stdout)
            }
            BenchCommand::Report {
                results,
                easy_max,
                medium_max,
                json,
                csv,
                html,
                latex,
                figures,
                families,
                shown_only,
            } => {
                let levels = Levels { easy_max, medium_max };
                let files = bench::ReportFiles {
                    csv: csv.as_deref(),
                    html: html.as_deref(),
                    latex: latex.as_deref(),
                    figures: figures.as_deref(),
                    families: families.as_deref(),
                };
                bench::report(&results, levels, json, shown_only, &files, &mut stdout)
            }
            BenchCommand::Generate { data, templates, out, seed, per_template, json } => bench::generate(
                &data.unwrap_or_else(|| brainlens::util::paths::bundled("fixtures")),
                templates.as_deref(),
                &out,
                seed,
                per_template,
                json,
                &mut stdout,
            ),
            BenchCommand::Run(args) => bench::run_command(&args, &mut stdout),
            BenchCommand::Compare(args) => brainlens::cli::bench_compare::run(&args, &mut stdout),
            BenchCommand::Merge { shards, cases, out, json } => {
                bench::merge(&shards, cases.as_deref(), &out, json, &mut stdout)
            }
            BenchCommand::Slurm(args) => brainlens::cli::slurm::slurm(&args, &mut stdout),
            BenchCommand::Open { results } => gui_bench(results, &cli),
        },
        Some(Command::Embed { text, model, json }) => {
            brainlens::cli::retrieval::embed(&text, &model, json, &mut stdout)
        }
        Some(Command::Hark { args }) => brainlens::cli::retrieval::hark(&args, &mut stdout),
        Some(Command::Kb { command }) => brainlens::cli::retrieval::kb(command, &mut stdout),
        Some(Command::Gfm { command }) => brainlens::cli::retrieval::gfm(command, &mut stdout),
        Some(Command::Cases { command }) => brainlens::cli::retrieval::cases(command, &mut stdout),
        Some(Command::Card { graph, memory, beta, k, exclude_group, json }) => {
            brainlens::cli::retrieval::card(&graph, &memory, beta, k, exclude_group.as_deref(), json, &mut stdout)
        }
        Some(Command::Agent { command }) => brainlens::cli::agent::run(command, &mut stdout),
        Some(Command::Llm { command }) => brainlens::cli::llm::run(command, &mut stdout),
        Some(Command::Models { command }) => brainlens::cli::models::run(command, &mut stdout),
        Some(Command::Cohort { command }) => brainlens::cli::cohort::run(command, &mut stdout),
        Some(Command::Open { file }) => gui(Some(file), &cli),
        None => gui(None, &cli),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("brainlens: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// A reader that stopped reading (`brainlens … | head`) is not an error.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>().and_then(|j| j.io_error_kind())
                == Some(std::io::ErrorKind::BrokenPipe)
    })
}
