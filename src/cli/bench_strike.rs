//! `brainlens bench strike RESULT --cases CASES --out NEW [provider options] [--json]`: a stored run's reports
//! struck as a run now strikes them, the struck ones parsed again and rescored (`harness::restrike`).

use super::write_json;
use crate::bench::rescore::{CaseIndex, Keep, rescore_one};
use crate::bench::scoring::ScoreContext;
use anyhow::{Context, Result};
use serde_json::json;
use std::io::Write;

/// One instance whose report had sentences struck.
#[derive(Debug, serde::Serialize)]
struct Struck {
    instance_id: String,
    works: Vec<&'static str>,
    score_before: f64,
    score_after: f64,
}

pub fn strike(a: &super::StoredRunArgs, out: &mut dyn Write) -> Result<()> {
    let (result, out_path, json) = (a.result.as_path(), a.out.as_path(), a.json);
    let (mut file, set) = super::open_stored(a, "struck_after_run", "its reports were struck")?;
    let index = CaseIndex::new(&set.cases);
    let parser = a.provider.config(crate::llm::config::Purpose::Parser)?.build()?;
    let cancel = crate::util::cancel::Cancel::default();
    super::on_interrupt(cancel.clone());
    // As `bench rescore` without a workspace or judge: artifact checks and judged units keep their scores.
    let ctx = ScoreContext::default();
    let keep = Keep { judged: true, files: true };
    let mut struck = Vec::new();
    for inst in &mut file.instances {
        let Some(case) = index.find(inst) else { continue };
        let before = inst.total_score;
        let claims =
            crate::harness::restrike::strike_stored(inst, case, parser.as_ref(), &cancel).with_context(|| {
                format!("{}: instance {}: parsing the struck report", result.display(), inst.instance_id)
            })?;
        if claims.is_empty() {
            continue;
        }
        rescore_one(inst, &index, &ctx, keep);
        struck.push(Struck {
            instance_id: inst.instance_id.clone(),
            works: {
                let mut w = crate::agent::grounding::claimed_works(&claims);
                let mut seen = std::collections::HashSet::new();
                w.retain(|x| seen.insert(*x));
                w
            },
            score_before: before,
            score_after: inst.total_score,
        });
    }
    file.experiment.insert(
        "struck_after_run".into(),
        json!({"by": "brainlens bench strike", "parser": parser.name(), "from": result.display().to_string(),
               "instances": struck.iter().map(|s| &s.instance_id).collect::<Vec<_>>()}),
    );
    file.refresh_summary();
    file.save(out_path)?;
    let total = file.summary.get("total_score").and_then(|v| v.as_f64()).unwrap_or(0.0);
    if json {
        return write_json(out, &json!({"struck": struck, "total_score": total, "written": out_path}));
    }
    writeln!(out, "{} of {} reports had sentences struck", struck.len(), file.instances.len())?;
    for s in &struck {
        writeln!(out, "  {}: {} ({} → {})", s.instance_id, s.works.join(", "), s.score_before, s.score_after)?;
    }
    writeln!(out, "total score {total:.4}; written to {}", out_path.display())?;
    Ok(())
}
