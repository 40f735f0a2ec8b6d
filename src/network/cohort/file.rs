//! The cohort file: an uncompressed `.npz` that `numpy.load` opens without `allow_pickle`:
//!
//! | member | dtype, shape | |
//! |---|---|---|
//! | `connectomes` | float64, N × R × R | as nilearn's `ConnectivityMeasure.fit_transform` returns them |
//! | `subject_ids`, `labels`, `sex`, `site`, `flags` | str, N | `""` where unknown or not flagged |
//! | `age` | float64, N | NaN where unknown |
//! | `n_volumes` | int64, N | time points of each subject's series |
//! | `region_labels`, `region_codes` | str, R | |
//! | `flagged_ids`, `flagged_reasons`, `flagged_kept` | str, str, int64 (F) | every flagged subject, kept or not |
//! | `provenance` | str, 0-d | JSON: source, layout, phenotype table, task, kind, method, regions, made by |

use super::{Cohort, Flag, Provenance};
use crate::network::error::{Result, fail, format};
use crate::util::arrays::{NpyArray, npz_f64, npz_strings_of, write_npz};
use std::path::Path;

/// True when `path` is an `.npz` holding a cohort (a `connectomes` and a `subject_ids` member).
pub fn is_cohort(path: &Path) -> bool {
    let Ok(f) = std::fs::File::open(path) else { return false };
    let Ok(zip) = zip::ZipArchive::new(f) else { return false };
    let names: Vec<&str> = zip.file_names().collect();
    names.contains(&"connectomes.npy") && names.contains(&"subject_ids.npy")
}

/// Writes `c` to `path` (whole or not at all).
pub fn write(path: &Path, c: &Cohort) -> Result<()> {
    let n = c.len();
    let provenance = vec![serde_json::to_string(&c.provenance).expect("provenance serialises")];
    let flagged_ids: Vec<String> = c.flagged.iter().map(|f| f.subject.clone()).collect();
    let flagged_files: Vec<String> = c.flagged.iter().map(|f| f.file.clone()).collect();
    let flagged_reasons: Vec<String> = c.flagged.iter().map(|f| f.reason.clone()).collect();
    let flagged_kept: Vec<i64> = c.flagged.iter().map(|f| i64::from(f.kept)).collect();
    let f = c.flagged.len();
    write_npz(
        path,
        &[
            ("connectomes", NpyArray::F64(vec![n, c.r, c.r], &c.connectomes)),
            ("subject_ids", NpyArray::Str(vec![n], &c.ids)),
            ("labels", NpyArray::Str(vec![n], &c.labels)),
            ("sex", NpyArray::Str(vec![n], &c.sex)),
            ("age", NpyArray::F64(vec![n], &c.age)),
            ("site", NpyArray::Str(vec![n], &c.site)),
            ("n_volumes", NpyArray::I64(vec![n], &c.volumes)),
            ("flags", NpyArray::Str(vec![n], &c.flags)),
            ("region_labels", NpyArray::Str(vec![c.r], &c.region_labels)),
            ("region_codes", NpyArray::Str(vec![c.r], &c.region_codes)),
            ("flagged_ids", NpyArray::Str(vec![f], &flagged_ids)),
            ("flagged_files", NpyArray::Str(vec![f], &flagged_files)),
            ("flagged_reasons", NpyArray::Str(vec![f], &flagged_reasons)),
            ("flagged_kept", NpyArray::I64(vec![f], &flagged_kept)),
            ("provenance", NpyArray::Str(vec![], &provenance)),
        ],
    )
    .map_err(crate::network::error::io(&path.display(), "write"))
}

/// Reads a cohort file; every member is checked against the subject and region counts.
pub fn read(path: &Path) -> Result<Cohort> {
    let bytes = std::fs::read(path).map_err(crate::network::error::io(&path.display(), "read"))?;
    parse(&path.display().to_string(), &bytes)
}

/// A cohort file's content (`name` names it in errors): the archive is read from memory, so a caller that
/// also needs the file's digest reads the file once.
pub fn parse(name: &str, bytes: &[u8]) -> Result<Cohort> {
    use std::io::Cursor;
    crate::util::arrays::check_npz_headers_of(Cursor::new(bytes)).map_err(|e| format(&name, e))?;
    let mut zip =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| format(&name, format!("not an .npz file: {e}")))?;
    let mut strings = |key: &str| -> Result<Vec<String>> {
        npz_strings_of(&mut zip, key).map(|(_, v)| v).map_err(|e| format(&name, format!("not a cohort file: {e}")))
    };
    let mut z =
        ndarray_npy::NpzReader::new(Cursor::new(bytes)).map_err(|e| format(&name, format!("not an .npz file: {e}")))?;
    let mut numbers = |key: &str| -> Result<(Vec<usize>, Vec<f64>)> {
        let a = npz_f64(&mut z, &format!("{key}.npy")).map_err(|e| format(&name, format!("not a cohort file: {e}")))?;
        Ok((a.shape().to_vec(), a.iter().copied().collect()))
    };
    let (shape, connectomes) = numbers("connectomes")?;
    let [n, r, r2] = shape[..] else { fail!(name, "connectomes has shape {shape:?}, not N × R × R") };
    if r != r2 {
        fail!(name, "connectomes has shape {shape:?}: its matrices are not square");
    }
    let (_, age) = numbers("age")?;
    let (_, volumes) = numbers("n_volumes")?;
    let (_, kept) = numbers("flagged_kept")?;
    let provenance: Provenance = serde_json::from_str(strings("provenance")?.first().map_or("", String::as_str))
        .map_err(|e| format(&name, format!("provenance: {e}")))?;
    let (flagged_ids, flagged_files, flagged_reasons) =
        (strings("flagged_ids")?, strings("flagged_files")?, strings("flagged_reasons")?);
    let c = Cohort {
        ids: strings("subject_ids")?,
        labels: strings("labels")?,
        sex: strings("sex")?,
        age,
        site: strings("site")?,
        volumes: volumes.iter().map(|&v| v as i64).collect(),
        flags: strings("flags")?,
        region_labels: strings("region_labels")?,
        region_codes: strings("region_codes")?,
        r,
        connectomes,
        flagged: flagged_ids
            .into_iter()
            .zip(flagged_files)
            .zip(flagged_reasons)
            .zip(kept)
            .map(|(((subject, file), reason), k)| Flag { subject, file, reason, kept: k != 0.0 })
            .collect(),
        provenance,
    };
    for (what, len, want, of) in [
        ("subject_ids", c.ids.len(), n, "subjects"),
        ("labels", c.labels.len(), n, "subjects"),
        ("sex", c.sex.len(), n, "subjects"),
        ("age", c.age.len(), n, "subjects"),
        ("site", c.site.len(), n, "subjects"),
        ("n_volumes", c.volumes.len(), n, "subjects"),
        ("flags", c.flags.len(), n, "subjects"),
        ("region_labels", c.region_labels.len(), r, "regions"),
        ("region_codes", c.region_codes.len(), r, "regions"),
    ] {
        if len != want {
            fail!(name, "{what} has {len} entries for {want} {of}");
        }
    }
    Ok(c)
}
