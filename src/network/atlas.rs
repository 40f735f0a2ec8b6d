//! Atlases: region labels, optional MNI coordinates and network (or lobe) assignment. Built in: AAL-116,
//! its cerebral AAL-90 subset, Schaefer-100 with Yeo-7 networks, Schaefer-200/400, and the coordinate
//! atlases Power-264, Dosenbach-160 and Seitzman-300 (see assets/atlas/README.md).

use super::error::{Result, fail, format, invalid, io};
use std::path::Path;

/// The Yeo-7 networks in their index order (Yeo et al. 2011).
pub const YEO7: [&str; 7] = ["Vis", "SomMot", "DorsAttn", "SalVentAttn", "Limbic", "Cont", "Default"];

/// Labels and optional coordinates and networks of the regions of a parcellation.
#[derive(Debug, Clone, PartialEq)]
pub struct Atlas {
    pub name: String,
    pub labels: Vec<String>,
    /// MNI coordinates in mm, when known.
    pub coords: Option<Vec<[f64; 3]>>,
    /// Network (or lobe) of each region, when known.
    pub networks: Option<Vec<String>>,
    /// Where the coordinates come from (the views say so), when there are any.
    pub coords_from: Option<String>,
}

const AAL_CENTROIDS: &str = include_str!("../../assets/atlas/AAL116_centroids_mni.csv");
const SCHAEFER_YEO7: &str = include_str!("../../assets/atlas/schaefer100_yeo7.txt");
const SCHAEFER_CENTROIDS: [(usize, &str); 3] = [
    (100, include_str!("../../assets/atlas/schaefer100_conte69_centroids.csv")),
    (200, include_str!("../../assets/atlas/schaefer200_conte69_centroids.csv")),
    (400, include_str!("../../assets/atlas/schaefer400_conte69_centroids.csv")),
];
/// The coordinate atlases: (name, regions, display name, shipped CSV, where the coordinates come from).
const COORDINATE_ATLASES: [(&str, usize, &str, &str, &str); 3] = [
    (
        "power264",
        264,
        "Power-264",
        include_str!("../../assets/atlas/power264.csv"),
        "MNI coordinates of the Power et al. 2011 ROIs (nilearn's copy; it has no network labels)",
    ),
    (
        "dosenbach160",
        160,
        "Dosenbach-160",
        include_str!("../../assets/atlas/dosenbach160.csv"),
        "MNI coordinates of the Dosenbach et al. 2010 ROIs (nilearn's copy)",
    ),
    (
        "seitzman300",
        300,
        "Seitzman-300",
        include_str!("../../assets/atlas/seitzman300.csv"),
        "MNI coordinates of the Seitzman et al. 2018 ROIs (nilearn's copy)",
    ),
];
/// What the Schaefer coordinates are, wherever a user sees them.
pub const SCHAEFER_COORDS_FROM: &str =
    "surface centroids of the Schaefer parcels on the conte69 midthickness surface (brainspace), not volume centroids";

impl Atlas {
    /// A built-in atlas by name: `aal116`, `aal90`, `schaefer100`, `schaefer200`, `schaefer400`, `power264`,
    /// `dosenbach160`, `seitzman300`.
    pub fn builtin(name: &str) -> Result<Atlas> {
        match name.to_ascii_lowercase().as_str() {
            "aal116" => Ok(aal(116)),
            "aal90" => Ok(aal(90)),
            "schaefer100" => Ok(schaefer100()),
            "schaefer200" => Ok(schaefer(200)),
            "schaefer400" => Ok(schaefer(400)),
            other => match COORDINATE_ATLASES.iter().find(|a| a.0 == other) {
                Some(&(key, _, display, text, from)) => {
                    let a = parse_csv(&format!("assets/atlas/{key}.csv"), text)?;
                    Ok(Atlas { name: display.into(), coords_from: Some(from.into()), ..a })
                }
                None => invalid!(
                    "unknown atlas '{other}': use aal90, aal116, schaefer100, schaefer200, schaefer400, power264, dosenbach160, seitzman300, a .node file or a CSV file (label[,x,y,z][,network])"
                ),
            },
        }
    }

    /// A built-in name, a BrainNet Viewer `.node` file, or a CSV file with a header and columns `label`
    /// and optionally `x,y,z` and `network`.
    pub fn load(spec: &str) -> Result<Atlas> {
        let p = Path::new(spec);
        match (p.exists(), p.extension().map(|e| e.to_string_lossy().to_lowercase()).as_deref()) {
            (true, Some("node")) => from_node(p),
            (true, _) => from_csv(p),
            (false, _) => Atlas::builtin(spec),
        }
    }

    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }
}

fn aal(n: usize) -> Atlas {
    let mut labels = Vec::new();
    let mut coords = Vec::new();
    let mut lobes = Vec::new();
    let rows = crate::util::csv_text::records(AAL_CENTROIDS).expect("the shipped AAL table parses (tested)");
    for r in rows.iter().skip(1).take(n) {
        labels.push(r.get(1).to_string());
        coords.push([
            r.get(2).parse().unwrap_or(0.0),
            r.get(3).parse().unwrap_or(0.0),
            r.get(4).parse().unwrap_or(0.0),
        ]);
        lobes.push(aal_lobe(r.get(1)).to_string());
    }
    Atlas {
        name: format!("AAL-{n}"),
        labels,
        coords: Some(coords),
        networks: Some(lobes),
        coords_from: Some("MNI centroids of the AAL regions (AAL.nii)".into()),
    }
}

/// Lobe of an AAL region by its name (Tzourio-Mazoyer et al. 2002 groupings).
pub fn aal_lobe(label: &str) -> &'static str {
    let l = label.trim_end_matches("_L").trim_end_matches("_R");
    if l.starts_with("Cerebelum") || l.starts_with("Vermis") {
        "Cerebellum"
    } else if ["Hippocampus", "ParaHippocampal", "Amygdala", "Cingulum", "Insula"].iter().any(|p| l.starts_with(p)) {
        "Limbic"
    } else if ["Caudate", "Putamen", "Pallidum", "Thalamus"].iter().any(|p| l.starts_with(p)) {
        "Subcortical"
    } else if l.starts_with("Frontal")
        || l.starts_with("Precentral")
        || l.starts_with("Rolandic")
        || l.starts_with("Supp_Motor")
        || l.starts_with("Olfactory")
        || l.starts_with("Rectus")
        || l.starts_with("Paracentral")
    {
        "Frontal"
    } else if l.starts_with("Temporal") || l.starts_with("Heschl") || l.starts_with("Fusiform") {
        "Temporal"
    } else if l.starts_with("Parietal")
        || l.starts_with("Postcentral")
        || l.starts_with("SupraMarginal")
        || l.starts_with("Angular")
        || l.starts_with("Precuneus")
    {
        "Parietal"
    } else {
        "Occipital"
    }
}

fn schaefer100() -> Atlas {
    let nets: Vec<usize> = SCHAEFER_YEO7.lines().filter_map(|l| l.trim().parse().ok()).collect();
    let mut counts = [[0usize; 7]; 2];
    let labels = nets
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            let h = usize::from(i >= 50);
            counts[h][k] += 1;
            format!("{}_{}_{}", ["LH", "RH"][h], YEO7[k], counts[h][k])
        })
        .collect();
    Atlas {
        name: "Schaefer-100 (Yeo-7)".into(),
        labels,
        coords: Some(schaefer_coords(100)),
        networks: Some(nets.iter().map(|&k| YEO7[k].to_string()).collect()),
        coords_from: Some(SCHAEFER_COORDS_FROM.into()),
    }
}

/// Schaefer-200/400 (7 networks): regions 1..n/2 left, the rest right, with their surface centroids. The
/// packages BrainLens draws from ship no network assignment for them, so the labels are `LH_k` / `RH_k`.
fn schaefer(n: usize) -> Atlas {
    let labels = (0..n).map(|i| if i < n / 2 { format!("LH_{}", i + 1) } else { format!("RH_{}", i + 1 - n / 2) });
    Atlas {
        name: format!("Schaefer-{n} (7 networks)"),
        labels: labels.collect(),
        coords: Some(schaefer_coords(n)),
        networks: None,
        coords_from: Some(SCHAEFER_COORDS_FROM.into()),
    }
}

/// The shipped centroids of Schaefer-`n` (made by scripts/atlas/schaefer_centroids.py; rows `region,x,y,z`).
fn schaefer_coords(n: usize) -> Vec<[f64; 3]> {
    let text = SCHAEFER_CENTROIDS.iter().find(|(k, _)| *k == n).map_or("", |(_, t)| t);
    let rows = crate::util::csv_text::records(text).expect("the shipped Schaefer centroids parse (tested)");
    rows.iter()
        .skip(1)
        .map(|r| [r.get(1).parse().unwrap_or(0.0), r.get(2).parse().unwrap_or(0.0), r.get(3).parse().unwrap_or(0.0)])
        .collect()
}

/// The Schaefer-`n` parcel (1..=n; 0 = medial wall) of every conte69 vertex, left then right hemisphere
/// (brainspace's parcellation, shipped gzip-compressed), read once.
pub fn schaefer_parcels(n: usize) -> Result<&'static [u32]> {
    use std::io::Read as _;
    type Parcellations = std::sync::Mutex<Vec<(usize, &'static [u32])>>;
    static CACHE: std::sync::OnceLock<Parcellations> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some((_, p)) = cache.lock().ok().and_then(|c| c.iter().find(|(k, _)| *k == n).copied()) {
        return Ok(p);
    }
    if ![100, 200, 400].contains(&n) {
        invalid!("no conte69 parcellation for Schaefer-{n} (100, 200 and 400 are shipped)");
    }
    let path = crate::util::paths::bundled(&format!("assets/atlas/schaefer_{n}_conte69.csv.gz"));
    let name = path.display().to_string();
    let bytes = std::fs::read(&path).map_err(io(&name, "read"))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text).map_err(|e| format(&name, e.to_string()))?;
    let parcels = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            l.trim().parse::<u32>().map_err(|_| format(&name, format!("line {}: '{l}' is not a parcel", i + 1)))
        })
        .collect::<Result<Vec<u32>>>()?;
    if let Some(p) = parcels.iter().find(|&&p| p as usize > n) {
        fail!(name, "parcel {p} beyond the {n} regions");
    }
    let leaked: &'static [u32] = Box::leak(parcels.into_boxed_slice());
    if let Ok(mut c) = cache.lock() {
        c.push((n, leaked));
    }
    Ok(leaked)
}

/// BrainNet Viewer `.node`: one region per line, `x y z colour size label` (whitespace separated; `#`
/// comments). The colour column becomes the region's network (as text).
fn from_node(path: &Path) -> Result<Atlas> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(io(&name, "read"))?;
    let (mut labels, mut coords, mut nets) = (Vec::new(), Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 {
            fail!(name, "line {}: expected 'x y z colour size label', got {} fields", i + 1, f.len());
        }
        let num = |k: usize| -> Result<f64> {
            f[k].parse().map_err(|e| format(&name, format!("line {}: '{}' is not a number: {e}", i + 1, f[k])))
        };
        coords.push([num(0)?, num(1)?, num(2)?]);
        nets.push(f.get(3).map_or_else(String::new, |s| s.to_string()));
        labels.push(f.get(5).map_or_else(|| format!("R{}", labels.len() + 1), |s| s.to_string()));
    }
    let coords_from = Some(format!("the coordinates in {name}"));
    Ok(Atlas { name, labels, coords: Some(coords), networks: Some(nets), coords_from })
}

/// Writes a BrainNet Viewer `.node` file: coordinates, colour = `colour[i]`, size = `size[i]`, label.
pub fn write_node(path: &Path, atlas: &Atlas, labels: &[String], colour: &[usize], size: &[f64]) -> Result<()> {
    let coords = atlas
        .coords
        .as_ref()
        .ok_or_else(|| format(&path.display(), format!("atlas {} has no coordinates for a .node file", atlas.name)))?;
    let mut s = String::new();
    for i in 0..labels.len() {
        let [x, y, z] = coords[i];
        s.push_str(&format!(
            "{x}\t{y}\t{z}\t{}\t{}\t{}\n",
            colour[i],
            size[i],
            labels[i].replace(char::is_whitespace, "_")
        ));
    }
    std::fs::write(path, s).map_err(io(&path.display(), "write"))
}

/// `M.csv` → `M.atlas.csv`: the atlas written beside a matrix (e.g. electrode positions of an EEG
/// connectivity matrix), which the Networks room uses when it exists.
pub fn sibling_path(matrix: &Path) -> std::path::PathBuf {
    let stem = matrix.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    matrix.with_file_name(format!("{stem}.atlas.csv"))
}

/// The atlas of a matrix of `n` regions read from `matrix` when none was named, and why: the atlas file
/// beside it (see [`sibling_path`]) when its region count matches, else AAL-90, AAL-116, Schaefer-100/200/400,
/// Power-264, Dosenbach-160 or Seitzman-300 assumed from the region count, else none. The Networks room and `--atlas auto` both use it.
pub fn infer(matrix: &Path, n: usize) -> (Option<Atlas>, &'static str) {
    let sibling = sibling_path(matrix);
    let own = sibling.exists().then(|| Atlas::load(&sibling.display().to_string()).ok()).flatten();
    match (own.filter(|a| a.labels.len() == n), n) {
        (Some(a), _) => (Some(a), "atlas from the file beside the matrix (e.g. electrode positions)"),
        (None, 90) => (Atlas::builtin("aal90").ok(), "AAL-90 assumed from the 90 regions"),
        (None, 116) => (Atlas::builtin("aal116").ok(), "AAL-116 assumed from the 116 regions"),
        (None, 100) => (Atlas::builtin("schaefer100").ok(), "Schaefer-100 (Yeo-7) assumed from the 100 regions"),
        (None, 200) => (Atlas::builtin("schaefer200").ok(), "Schaefer-200 assumed from the 200 regions"),
        (None, 400) => (Atlas::builtin("schaefer400").ok(), "Schaefer-400 assumed from the 400 regions"),
        (None, 264) => (Atlas::builtin("power264").ok(), "Power-264 assumed from the 264 regions"),
        (None, 160) => (Atlas::builtin("dosenbach160").ok(), "Dosenbach-160 assumed from the 160 regions"),
        (None, 300) => (Atlas::builtin("seitzman300").ok(), "Seitzman-300 assumed from the 300 regions"),
        _ => (None, "no atlas: regions are numbered"),
    }
}

/// Writes the atlas beside `matrix` (see [`sibling_path`]): one `label,x,y,z` row per node, positions given
/// in metres (electrodes, as MNE stores them) and written in millimetres. Returns the atlas path.
pub fn write_electrode_atlas(matrix: &Path, labels: &[String], positions_m: &[[f64; 3]]) -> Result<std::path::PathBuf> {
    let path = sibling_path(matrix);
    let mut s = String::from("label,x,y,z\n");
    for (l, p) in labels.iter().zip(positions_m) {
        s += &format!("{l},{:.3},{:.3},{:.3}\n", p[0] * 1000.0, p[1] * 1000.0, p[2] * 1000.0);
    }
    std::fs::write(&path, s).map_err(io(&path.display(), "write"))?;
    Ok(path)
}

fn from_csv(path: &Path) -> Result<Atlas> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(io(&name, "read"))?;
    parse_csv(&name, &text)
}

/// An atlas CSV's text (`name` for errors and the atlas's name).
fn parse_csv(name: &str, text: &str) -> Result<Atlas> {
    let name = name.to_string();
    let records = crate::util::csv_text::records(text).map_err(|e| format(&name, e))?;
    let mut rows = records.iter();
    let header: Vec<String> =
        rows.next().ok_or_else(|| format(&name, "empty"))?.fields.iter().map(|s| s.to_ascii_lowercase()).collect();
    let col = |k: &str| header.iter().position(|h| h == k);
    let label = col("label").ok_or_else(|| format(&name, "no 'label' column in the header"))?;
    let xyz = match (col("x"), col("y"), col("z")) {
        (Some(x), Some(y), Some(z)) => Some([x, y, z]),
        _ => None,
    };
    let net = col("network").or_else(|| col("lobe"));
    let (mut labels, mut coords, mut nets) = (Vec::new(), Vec::new(), Vec::new());
    for r in rows {
        let get = |c: usize| {
            r.fields
                .get(c)
                .map(String::as_str)
                .ok_or_else(|| format(&name, format!("line {}: missing column {}", r.line, header[c])))
        };
        labels.push(get(label)?.to_string());
        if let Some([x, y, z]) = xyz {
            let p = |c| -> Result<f64> {
                let v = get(c)?;
                v.parse().map_err(|e| format(&name, format!("line {}: '{v}' is not a coordinate: {e}", r.line)))
            };
            coords.push([p(x)?, p(y)?, p(z)?]);
        }
        if let Some(c) = net {
            nets.push(get(c)?.to_string());
        }
    }
    let coords_from = xyz.map(|_| format!("the coordinates in {name}"));
    Ok(Atlas { name, labels, coords: xyz.map(|_| coords), networks: net.map(|_| nets), coords_from })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atlas_csv_with_a_quoted_label_holding_a_comma_reads_it_whole() {
        let a = parse_csv(
            "mine.csv",
            "\u{feff}label,x,y,z,network\n\"Frontal, left\",-30,40,10,\"DMN, core\"\nB,1,2,3,Vis\n",
        )
        .unwrap();
        assert_eq!(a.labels, ["Frontal, left", "B"]);
        assert_eq!(a.coords.unwrap()[0], [-30.0, 40.0, 10.0]);
        assert_eq!(a.networks.unwrap()[0], "DMN, core");
        let e = parse_csv("mine.csv", "label,x,y,z\nA,1,two,3\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("'two'"), "{e}");
        let aal = Atlas::builtin("aal90").unwrap();
        assert_eq!((aal.labels.len(), aal.labels[0].as_str()), (90, "Precentral_L"));
    }

    /// The shipped Schaefer centroids (scripts/atlas/schaefer_centroids.py over brainspace's conte69 files)
    /// are where the parcels are: regions 1..n/2 in the left hemisphere (x < 0), the rest right, and the
    /// Yeo-7 visual regions of Schaefer-100 behind the default-mode ones (mean y).
    #[test]
    fn schaefer_centroids_lie_in_their_hemisphere_and_network() {
        for n in [100, 200, 400] {
            let a = Atlas::builtin(&format!("schaefer{n}")).unwrap();
            let c = a.coords.as_ref().unwrap();
            assert_eq!((a.labels.len(), c.len()), (n, n));
            assert!(c[..n / 2].iter().all(|p| p[0] < 0.0) && c[n / 2..].iter().all(|p| p[0] > 0.0), "{n}");
            assert!(c.iter().all(|p| p.iter().all(|v| v.abs() < 110.0)), "inside an MNI head");
        }
        let a = Atlas::builtin("schaefer100").unwrap();
        let (c, nets) = (a.coords.unwrap(), a.networks.unwrap());
        let mean_y = |net: &str| {
            let ys: Vec<f64> = (0..100).filter(|&i| nets[i] == net).map(|i| c[i][1]).collect();
            ys.iter().sum::<f64>() / ys.len() as f64
        };
        assert!(
            mean_y("Vis") < -60.0 && mean_y("Vis") < mean_y("Default") - 30.0,
            "{} {}",
            mean_y("Vis"),
            mean_y("Default")
        );
        assert!(a.coords_from.unwrap().contains("surface centroids"));
    }

    /// The coordinate atlases are nilearn's files as shipped: region counts, the first ROI of each paper,
    /// their networks (Power's copy has none) and the region-count guess.
    #[test]
    fn coordinate_atlases() {
        let p = Atlas::builtin("power264").unwrap();
        assert_eq!((p.len(), p.coords.as_ref().unwrap()[0]), (264, [-25.0, -98.0, -12.0]));
        assert!(p.networks.is_none() && p.coords_from.unwrap().contains("Power et al. 2011"));
        let d = Atlas::builtin("dosenbach160").unwrap();
        assert_eq!((d.len(), d.labels[0].as_str(), d.coords.as_ref().unwrap()[0]), (160, "vmPFC_1", [6.0, 64.0, 3.0]));
        let nets = d.networks.unwrap();
        assert_eq!(nets.iter().filter(|n| *n == "cerebellum").count(), 18);
        let s = Atlas::builtin("seitzman300").unwrap();
        assert_eq!((s.len(), s.networks.as_ref().unwrap()[0].as_str()), (300, "unassigned"));
        assert_eq!(s.networks.unwrap().iter().filter(|n| *n == "DefaultMode").count(), 67);
        for (n, name) in [(264, "Power-264"), (160, "Dosenbach-160"), (300, "Seitzman-300")] {
            assert_eq!(infer(Path::new("/nonexistent/m.csv"), n).0.unwrap().name, name);
        }
    }

    /// brainspace's parcellations as shipped (gzip): one parcel per conte69 vertex, 0 = medial wall, the
    /// first vertex in parcel 50 (the file's first line), every region present.
    #[test]
    fn schaefer_parcels_per_conte69_vertex() {
        for n in [100, 200, 400] {
            let p = schaefer_parcels(n).unwrap();
            assert_eq!(p.len(), 64_984);
            assert_eq!(*p.iter().max().unwrap() as usize, n);
            assert!((1..=n as u32).all(|k| p.contains(&k)), "{n}");
        }
        assert_eq!(schaefer_parcels(100).unwrap()[0], 50);
        assert!(schaefer_parcels(300).unwrap_err().to_string().contains("no conte69 parcellation"));
    }

    #[test]
    fn builtins() {
        let a = Atlas::builtin("aal90").unwrap();
        assert_eq!(a.len(), 90);
        assert_eq!(a.labels[0], "Precentral_L");
        assert_eq!(a.networks.as_ref().unwrap()[0], "Frontal");
        assert_eq!(a.coords.as_ref().unwrap()[0], [-39.65, -5.68, 50.94]);
        assert_eq!(Atlas::builtin("aal116").unwrap().labels[115], "Vermis_10");
        let s = Atlas::builtin("schaefer100").unwrap();
        assert_eq!(s.labels[0], "LH_Vis_1");
        assert_eq!(s.labels[50], "RH_Vis_1");
        assert_eq!(s.labels[99], "RH_Default_11");
        assert_eq!(s.networks.as_ref().unwrap()[37], "Default");
    }

    #[test]
    fn csv_and_node_files() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("atlas.csv");
        std::fs::write(&csv, "label,x,y,z,network\nA,1,2,3,DMN\nB,-1,0.5,4,Vis\n").unwrap();
        let a = Atlas::load(csv.to_str().unwrap()).unwrap();
        assert_eq!(a.labels, vec!["A", "B"]);
        assert_eq!(a.coords.as_ref().unwrap()[1], [-1.0, 0.5, 4.0]);
        assert_eq!(a.networks.as_ref().unwrap()[0], "DMN");
        std::fs::write(&csv, "label,x,y,z\nA,1,two,3\n").unwrap();
        let e = Atlas::load(csv.to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("line 2: 'two' is not a coordinate"), "{e}");
        // A .node written from an atlas reads back with the same coordinates, labels and colours.
        let node = dir.path().join("out.node");
        let aal = Atlas::builtin("aal90").unwrap();
        write_node(&node, &aal, &aal.labels, &vec![3; 90], &vec![1.5; 90]).unwrap();
        let back = Atlas::load(node.to_str().unwrap()).unwrap();
        assert_eq!(back.labels, aal.labels);
        assert_eq!(back.coords, aal.coords);
        assert!(back.networks.unwrap().iter().all(|c| c == "3"));
        // An atlas without coordinates (Schaefer-100 has them now) cannot be written as a .node.
        let s100 = Atlas { coords: None, coords_from: None, ..Atlas::builtin("schaefer100").unwrap() };
        let e = write_node(&node, &s100, &s100.labels, &vec![1; 100], &vec![1.0; 100]).unwrap_err().to_string();
        assert!(e.contains("has no coordinates"), "{e}");
    }
}
