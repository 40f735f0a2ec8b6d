//! Writing a result file one instance at a time: the instances go to a part file beside the target as they
//! come, then the whole file (experiment, instances, summary, other blocks) is written to a temporary file
//! and renamed over the target — laid out as [`super::ResultFile::save`] lays it out.

use super::{Instance, ResultError, ResultFile};
use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub struct StreamWriter {
    path: PathBuf,
    part: PathBuf,
    out: Option<BufWriter<File>>,
    count: usize,
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// `value` as pretty JSON whose lines after the first are indented by `indent` spaces.
fn pretty_at(value: &impl Serialize, indent: usize) -> Result<String, serde_json::Error> {
    Ok(serde_json::to_string_pretty(value)?.replace('\n', &format!("\n{}", " ".repeat(indent))))
}

impl StreamWriter {
    pub fn create(path: &Path) -> Result<StreamWriter, ResultError> {
        let fail = |message: String| ResultError::new(path, message);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| fail(format!("cannot create folder: {e}")))?;
        }
        let part = sibling(path, ".instances.tmp");
        let file = File::create(&part).map_err(|e| fail(format!("cannot write {}: {e}", part.display())))?;
        Ok(StreamWriter { path: path.to_path_buf(), part, out: Some(BufWriter::new(file)), count: 0 })
    }

    fn fail(&self, message: String) -> ResultError {
        ResultError::new(&self.path, message)
    }

    pub fn push(&mut self, inst: &Instance) -> Result<(), ResultError> {
        let text = pretty_at(inst, 4).map_err(|e| self.fail(e.to_string()))?;
        let sep = if self.count == 0 { "" } else { ",\n" };
        let out = self.out.as_mut().expect("open until finish");
        write!(out, "{sep}    {text}")
            .map_err(|e| ResultError::new(&self.path, format!("cannot write {}: {e}", self.part.display())))?;
        self.count += 1;
        Ok(())
    }

    /// Writes the whole file: `head`'s experiment, the instances pushed, `head`'s summary and other blocks.
    pub fn finish(mut self, head: &ResultFile) -> Result<(), ResultError> {
        let out = self.out.take().expect("open until finish");
        out.into_inner().map_err(|e| self.fail(format!("cannot write {}: {e}", self.part.display())))?;
        let tmp = sibling(&self.path, ".tmp");
        let written = (|| -> Result<(), Box<dyn std::error::Error>> {
            let mut w = BufWriter::new(File::create(&tmp)?);
            write!(w, "{{\n  \"experiment\": {},\n  \"instances\": ", pretty_at(&head.experiment, 2)?)?;
            if self.count == 0 {
                write!(w, "[]")?;
            } else {
                writeln!(w, "[")?;
                std::io::copy(&mut File::open(&self.part)?, &mut w)?;
                write!(w, "\n  ]")?;
            }
            write!(w, ",\n  \"summary\": {}", pretty_at(&head.summary, 2)?)?;
            for (k, v) in &head.extra {
                write!(w, ",\n  {}: {}", serde_json::to_string(k)?, pretty_at(v, 2)?)?;
            }
            write!(w, "\n}}")?;
            w.into_inner().map_err(|e| e.into_error())?;
            Ok(())
        })();
        written.map_err(|e| self.fail(format!("cannot write {}: {e}", tmp.display())))?;
        std::fs::rename(&tmp, &self.path).map_err(|e| self.fail(format!("cannot replace: {e}")))
    }
}

impl Drop for StreamWriter {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.part);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(n: usize) -> ResultFile {
        let mut f = ResultFile::default();
        f.experiment.insert("subset".into(), json!("Sleep Assessment"));
        f.summary.insert("total_score".into(), json!(12.5));
        f.extra.insert("note".into(), json!({"a": [1, 2]}));
        for i in 0..n {
            let mut inst = Instance { instance_id: format!("x-{i}"), total_score: i as f64, ..Default::default() };
            inst.errors.push("agent_error: multi\nline".into());
            f.instances.push(inst);
        }
        f
    }

    #[test]
    fn streamed_file_is_byte_for_byte_what_save_writes() {
        let d = tempfile::tempdir().unwrap();
        for n in [0, 1, 3] {
            let f = file(n);
            let (saved, streamed) = (d.path().join("saved.json"), d.path().join("streamed.json"));
            f.save(&saved).unwrap();
            let mut w = StreamWriter::create(&streamed).unwrap();
            f.instances.iter().for_each(|i| w.push(i).unwrap());
            w.finish(&ResultFile { instances: Vec::new(), ..f.clone() }).unwrap();
            assert_eq!(std::fs::read_to_string(&saved).unwrap(), std::fs::read_to_string(&streamed).unwrap());
            assert!(!d.path().join("streamed.json.instances.tmp").exists());
            assert_eq!(ResultFile::load(&streamed).unwrap(), f);
        }
    }
}
