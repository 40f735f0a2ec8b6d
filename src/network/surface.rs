//! Cortical surfaces from GIFTI files (`.gii`, or gzip-compressed `.gii.gz` as nilearn ships fsaverage):
//! the POINTSET (vertices, mm) and TRIANGLE data arrays, ASCII, Base64Binary or GZipBase64Binary, either
//! byte order and indexing order. Anything else (an external data file, a file that is not GIFTI XML, a
//! triangle naming a missing vertex) is an error naming the file.

use super::error::{NetworkError, Result, format, io};
use base64::Engine as _;
use std::io::Read as _;
use std::path::Path;

/// A triangle mesh: vertices in mm and triangles as vertex indices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Surface {
    pub vertices: Vec<[f32; 3]>,
    pub triangles: Vec<[u32; 3]>,
}

impl Surface {
    /// Both hemispheres in one mesh (the right's indices shifted past the left's vertices).
    pub fn join(mut self, other: Surface) -> Surface {
        let k = self.vertices.len() as u32;
        self.vertices.extend(other.vertices);
        self.triangles.extend(other.triangles.into_iter().map(|t| t.map(|v| v + k)));
        self
    }
}

/// Reads a GIFTI surface file (`.gii` or `.gii.gz`).
pub fn read_gifti(path: &Path) -> Result<Surface> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(io(&name, "read"))?;
    let text = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut s)
            .map_err(|e| format(&name, format!("not a gzip-compressed GIFTI file: {e}")))?;
        s
    } else {
        String::from_utf8(bytes).map_err(|_| format(&name, "not a GIFTI file (not XML text)"))?
    };
    parse_gifti(&name, &text)
}

/// A GIFTI document's surface; `name` is used in errors.
pub fn parse_gifti(name: &str, text: &str) -> Result<Surface> {
    // GIFTI files written by gifticlib carry a DOCTYPE line.
    let options = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    let doc = roxmltree::Document::parse_with_options(text, options)
        .map_err(|e| format(&name, format!("not a GIFTI file (XML: {e})")))?;
    let root = doc.root_element();
    if root.tag_name().name() != "GIFTI" {
        return Err(format(&name, format!("not a GIFTI file: the root element is <{}>", root.tag_name().name())));
    }
    let mut surface = Surface::default();
    for da in root.children().filter(|n| n.has_tag_name("DataArray")) {
        match da.attribute("Intent").unwrap_or("") {
            "NIFTI_INTENT_POINTSET" => {
                let v = numbers(name, &da)?;
                surface.vertices = v.chunks_exact(3).map(|c| [c[0] as f32, c[1] as f32, c[2] as f32]).collect();
            }
            "NIFTI_INTENT_TRIANGLE" => {
                let v = numbers(name, &da)?;
                surface.triangles = v.chunks_exact(3).map(|c| [c[0] as u32, c[1] as u32, c[2] as u32]).collect();
            }
            _ => {}
        }
    }
    if surface.vertices.is_empty() || surface.triangles.is_empty() {
        return Err(format(&name, "a GIFTI surface needs a POINTSET and a TRIANGLE data array"));
    }
    let n = surface.vertices.len() as u32;
    if let Some(t) = surface.triangles.iter().find(|t| t.iter().any(|&v| v >= n)) {
        return Err(format(&name, format!("triangle {t:?} names a vertex beyond the {n} vertices")));
    }
    Ok(surface)
}

/// The values of a DataArray (Dim0 × Dim1, 3 columns), in row-major order.
fn numbers(name: &str, da: &roxmltree::Node) -> Result<Vec<f64>> {
    let attr = |k: &str| da.attribute(k).unwrap_or("");
    let bad = |what: String| format(&name, format!("DataArray {}: {what}", attr("Intent")));
    let dim = |k: &str| attr(k).parse::<usize>().map_err(|_| bad(format!("{k} '{}' is not a count", attr(k))));
    let (rows, cols) = (dim("Dim0")?, if attr("Dimensionality") == "1" { 1 } else { dim("Dim1")? });
    if cols != 3 {
        return Err(bad(format!("{rows} × {cols}, expected 3 columns")));
    }
    if !attr("ExternalFileName").is_empty() {
        return Err(bad(format!("data in an external file ({}) is not read", attr("ExternalFileName"))));
    }
    let data = da.children().find(|n| n.has_tag_name("Data")).and_then(|n| n.text()).unwrap_or("").trim();
    let (width, float) = match attr("DataType") {
        "NIFTI_TYPE_FLOAT32" => (4, true),
        "NIFTI_TYPE_FLOAT64" => (8, true),
        "NIFTI_TYPE_INT32" => (4, false),
        "NIFTI_TYPE_UINT8" => (1, false),
        other => return Err(bad(format!("data type '{other}' is not read"))),
    };
    let values: Vec<f64> = match attr("Encoding") {
        "ASCII" => data
            .split_whitespace()
            .map(|t| t.parse::<f64>().map_err(|_| bad(format!("'{t}' is not a number"))))
            .collect::<Result<_>>()?,
        enc @ ("Base64Binary" | "GZipBase64Binary") => {
            let clean: String = data.chars().filter(|c| !c.is_whitespace()).collect();
            let raw =
                base64::engine::general_purpose::STANDARD.decode(clean).map_err(|e| bad(format!("base64: {e}")))?;
            let raw = if enc == "GZipBase64Binary" {
                let mut out = Vec::new();
                flate2::read::ZlibDecoder::new(&raw[..])
                    .read_to_end(&mut out)
                    .map_err(|e| bad(format!("zlib: {e}")))?;
                out
            } else {
                raw
            };
            let big = attr("Endian") == "BigEndian";
            raw.chunks_exact(width).map(|b| decode(b, float, big)).collect()
        }
        other => return Err(bad(format!("encoding '{other}' is not read"))),
    };
    if values.len() != rows * cols {
        return Err(bad(format!("{} values for {rows} × {cols}", values.len())));
    }
    if attr("ArrayIndexingOrder") == "ColumnMajorOrder" {
        return Ok((0..rows * cols).map(|k| values[(k % cols) * rows + k / cols]).collect());
    }
    Ok(values)
}

fn decode(b: &[u8], float: bool, big: bool) -> f64 {
    let mut a = [0u8; 8];
    a[..b.len()].copy_from_slice(b);
    if big {
        a[..b.len()].reverse();
    }
    match (b.len(), float) {
        (4, true) => f32::from_le_bytes([a[0], a[1], a[2], a[3]]) as f64,
        (8, true) => f64::from_le_bytes(a),
        (4, false) => i32::from_le_bytes([a[0], a[1], a[2], a[3]]) as f64,
        _ => a[0] as f64,
    }
}

/// The bundled fsaverage5 surface (`pial` or `infl`), both hemispheres (nilearn's copy; see
/// assets/surfaces/README.md).
pub fn fsaverage5(kind: &str) -> Result<Surface> {
    if kind != "pial" && kind != "infl" {
        return Err(NetworkError::Invalid(format!("unknown fsaverage5 surface '{kind}': use pial or infl")));
    }
    let half = |h: &str| read_gifti(&crate::util::paths::bundled(&format!("assets/surfaces/{kind}_{h}.gii.gz")));
    Ok(half("left")?.join(half("right")?))
}

/// The name the bundled conte69 surface goes by (the 3-D view paints Schaefer parcels on it).
pub const CONTE69: &str = "conte69 midthickness (brainspace)";

/// A surface by name — `pial` or `infl` (bundled fsaverage5), `conte69` (bundled, brainspace) — or GIFTI files separated by commas (e.g.
/// `lh.gii,rh.gii`, joined); with what to call it on screen.
pub fn load(spec: &str) -> Result<(Surface, String)> {
    match spec {
        "pial" | "infl" => Ok((fsaverage5(spec)?, format!("fsaverage5 {spec} (nilearn)"))),
        "conte69" => {
            let half =
                |h: &str| read_gifti(&crate::util::paths::bundled(&format!("assets/surfaces/conte69_32k_{h}.gii")));
            Ok((half("lh")?.join(half("rh")?), CONTE69.to_string()))
        }
        files => {
            let mut parts = files.split(',').map(str::trim).filter(|p| !p.is_empty());
            let first = parts.next().ok_or_else(|| NetworkError::Invalid("no surface file given".into()))?;
            let mut s = read_gifti(Path::new(first))?;
            for p in parts {
                s = s.join(read_gifti(Path::new(p))?);
            }
            Ok((s, files.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny ASCII GIFTI in both indexing orders, and the refusals: not XML, another root, a triangle past
    /// the vertices.
    #[test]
    fn ascii_gifti_and_bad_files() {
        let doc = |order: &str, pts: &str, tri: &str| {
            format!(
                r#"<GIFTI Version="1.0"><DataArray Intent="NIFTI_INTENT_POINTSET" DataType="NIFTI_TYPE_FLOAT32" ArrayIndexingOrder="{order}" Dimensionality="2" Dim0="3" Dim1="3" Encoding="ASCII"><Data>{pts}</Data></DataArray><DataArray Intent="NIFTI_INTENT_TRIANGLE" DataType="NIFTI_TYPE_INT32" ArrayIndexingOrder="RowMajorOrder" Dimensionality="2" Dim0="1" Dim1="3" Encoding="ASCII"><Data>{tri}</Data></DataArray></GIFTI>"#
            )
        };
        let s = parse_gifti("t.gii", &doc("RowMajorOrder", "0 0 0 1 0 0 0 1 0", "0 1 2")).unwrap();
        assert_eq!(s.vertices[1], [1.0, 0.0, 0.0]);
        assert_eq!(s.triangles, vec![[0, 1, 2]]);
        let c = parse_gifti("t.gii", &doc("ColumnMajorOrder", "0 1 0 0 0 1 0 0 0", "0 1 2")).unwrap();
        assert_eq!(c.vertices, s.vertices, "column-major read back as rows");
        let e = parse_gifti("t.gii", &doc("RowMajorOrder", "0 0 0 1 0 0 0 1 0", "0 1 5")).unwrap_err().to_string();
        assert!(e.contains("t.gii") && e.contains("beyond the 3 vertices"), "{e}");
        let e = parse_gifti("x.gii", "label,x\nA,1\n").unwrap_err().to_string();
        assert!(e.contains("x.gii: not a GIFTI file"), "{e}");
        let e = parse_gifti("x.gii", "<svg/>").unwrap_err().to_string();
        assert!(e.contains("root element is <svg>"), "{e}");
    }

    /// nilearn's fsaverage5 (GZipBase64Binary inside gzip): 10,242 vertices and 20,480 triangles a
    /// hemisphere, the left hemisphere at x < 0 on average; first and last vertex and triangle as nibabel
    /// 5.4.2's `agg_data()` reads them (exact: float32 either way). brainspace's conte69 (plain .gii) too.
    #[test]
    #[allow(clippy::excessive_precision)] // nibabel's printed values, as written there
    fn bundled_fsaverage5() {
        let left = read_gifti(&crate::util::paths::bundled("assets/surfaces/pial_left.gii.gz")).unwrap();
        assert_eq!(left.vertices[0], [-38.735958, -19.343365, 67.22014]);
        assert_eq!(left.vertices[10_241], [-34.491192, -25.403906, -24.645117]);
        assert_eq!((left.triangles[0], left.triangles[20_479]), ([0, 2564, 2562], [10161, 11, 9918]));
        let conte = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/brain/conte69/conte69_32k_rh.gii");
        if conte.exists() {
            let c = read_gifti(&conte).unwrap();
            assert_eq!((c.vertices.len(), c.triangles.len()), (32_492, 64_980));
            assert_eq!((c.vertices[0], c.triangles[64_979]), ([5.504_078_4, -43.473934, 32.83918], [21432, 8440, 9]));
        }
        let s = fsaverage5("pial").unwrap();
        assert_eq!((s.vertices.len(), s.triangles.len()), (20_484, 40_960));
        let mean_x = |r: std::ops::Range<usize>| r.clone().map(|i| s.vertices[i][0]).sum::<f32>() / r.len() as f32;
        assert!(mean_x(0..10_242) < -20.0 && mean_x(10_242..20_484) > 20.0);
    }
}
