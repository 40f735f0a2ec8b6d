//! `brainlens bench judge RESULT --cases CASES --out NEW [provider options] [--json]`: a stored run's judged
//! units scored by a judge model after the run (`harness::judge`), into a new file.

use super::write_json;
use crate::bench::rescore::CaseIndex;
use anyhow::{Context, Result, bail};
use serde_json::{Value, json};
use std::io::Write;

pub fn judge(a: &super::StoredRunArgs, out: &mut dyn Write) -> Result<()> {
    let (result, out_path, json) = (a.result.as_path(), a.out.as_path(), a.json);
    let (mut file, set) = super::open_stored(a, "judged_after_run", "it was judged")?;
    if let Some(judge) = file.experiment.get("models").and_then(|m| m.get("semantic")).filter(|j| !j.is_null()) {
        bail!("{}: it was judged while it ran (experiment.models.semantic = {judge})", result.display());
    }
    let index = CaseIndex::new(&set.cases);
    let model = a.provider.config(crate::llm::config::Purpose::Parser)?.build()?;
    let cancel = crate::util::cancel::Cancel::default();
    super::on_interrupt(cancel.clone());
    let mut judged = Vec::new();
    for inst in &mut file.instances {
        let Some(case) = index.find(inst) else { continue };
        let j = crate::harness::judge::judge_stored(inst, case, &index, model.as_ref(), &cancel)
            .with_context(|| format!("{}: instance {}: the judge failed", result.display(), inst.instance_id))?;
        judged.extend(j);
    }
    file.experiment.insert(
        "judged_after_run".into(),
        json!({"by": "brainlens bench judge", "judge": model.name(), "from": result.display().to_string(),
               "instances": judged.iter().map(|j| &j.instance_id).collect::<Vec<_>>()}),
    );
    if let Some(models) = file.experiment.get_mut("models").and_then(Value::as_object_mut) {
        models.insert("semantic".into(), json!(model.name()));
    }
    file.refresh_summary();
    file.save(out_path)?;
    let total = file.summary.get("total_score").and_then(Value::as_f64).unwrap_or(0.0);
    if json {
        return write_json(
            out,
            &json!({"judged": judged, "judge": model.name(), "total_score": total, "written": out_path}),
        );
    }
    writeln!(out, "{} instances judged by {}", judged.len(), model.name())?;
    for j in &judged {
        let m: Vec<String> = j.metrics.iter().map(|(id, s)| format!("{id} {s}")).collect();
        writeln!(out, "  {}: {} ({} → {})", j.instance_id, m.join(", "), j.score_before, j.score_after)?;
    }
    writeln!(out, "total score {total:.4}; written to {}", out_path.display())?;
    Ok(())
}
