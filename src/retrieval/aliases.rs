//! Region names as people write them → atlas labels: AAL-90 labels written with spaces or without the
//! hemisphere ("precuneus" → Precuneus_L, Precuneus_R), common anatomical names and abbreviations, and the
//! Yeo-7 network names. Used to map the regions a model extracts from a document.

use crate::network::atlas::{Atlas, YEO7};

/// (alias, AAL-90 stems) — a stem gets both hemispheres unless the alias says left/right.
const ALIASES: &[(&str, &[&str])] = &[
    ("posterior cingulate", &["Cingulum_Post"]),
    ("pcc", &["Cingulum_Post"]),
    ("anterior cingulate", &["Cingulum_Ant"]),
    ("acc", &["Cingulum_Ant"]),
    ("subgenual cingulate", &["Cingulum_Ant"]),
    ("middle cingulate", &["Cingulum_Mid"]),
    ("medial prefrontal", &["Frontal_Sup_Medial", "Frontal_Med_Orb"]),
    ("mpfc", &["Frontal_Sup_Medial", "Frontal_Med_Orb"]),
    ("dorsolateral prefrontal", &["Frontal_Mid", "Frontal_Sup"]),
    ("dlpfc", &["Frontal_Mid", "Frontal_Sup"]),
    ("orbitofrontal", &["Frontal_Sup_Orb", "Frontal_Mid_Orb", "Frontal_Inf_Orb", "Frontal_Med_Orb"]),
    ("inferior frontal", &["Frontal_Inf_Oper", "Frontal_Inf_Tri", "Frontal_Inf_Orb"]),
    ("broca", &["Frontal_Inf_Oper", "Frontal_Inf_Tri"]),
    ("supplementary motor", &["Supp_Motor_Area"]),
    ("sma", &["Supp_Motor_Area"]),
    ("motor cortex", &["Precentral"]),
    ("somatosensory", &["Postcentral"]),
    ("auditory cortex", &["Heschl", "Temporal_Sup"]),
    ("visual cortex", &["Calcarine", "Cuneus", "Lingual"]),
    ("parahippocampal", &["ParaHippocampal"]),
    ("angular gyrus", &["Angular"]),
    ("supramarginal", &["SupraMarginal"]),
    ("inferior parietal", &["Parietal_Inf"]),
    ("superior parietal", &["Parietal_Sup"]),
    ("basal ganglia", &["Caudate", "Putamen", "Pallidum"]),
    ("striatum", &["Caudate", "Putamen"]),
    ("temporal pole", &["Temporal_Pole_Sup", "Temporal_Pole_Mid"]),
    ("superior temporal", &["Temporal_Sup"]),
    ("middle temporal", &["Temporal_Mid"]),
    ("inferior temporal", &["Temporal_Inf"]),
    ("insula", &["Insula"]),
    ("amygdala", &["Amygdala"]),
    ("hippocampus", &["Hippocampus"]),
    ("thalamus", &["Thalamus"]),
    ("caudate", &["Caudate"]),
    ("putamen", &["Putamen"]),
    ("precuneus", &["Precuneus"]),
    ("fusiform", &["Fusiform"]),
    ("cuneus", &["Cuneus"]),
];

const NETWORK_ALIASES: &[(&str, &str)] = &[
    ("default mode network", "Default"),
    ("default network", "Default"),
    ("dmn", "Default"),
    ("frontoparietal", "Cont"),
    ("executive control", "Cont"),
    ("salience", "SalVentAttn"),
    ("ventral attention", "SalVentAttn"),
    ("dorsal attention", "DorsAttn"),
    ("somatomotor", "SomMot"),
    ("sensorimotor", "SomMot"),
    ("visual network", "Vis"),
    ("limbic", "Limbic"),
];

/// What a name maps to.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    Aal(Vec<String>),
    Yeo7(String),
    Unknown,
}

fn norm(s: &str) -> String {
    s.to_lowercase().replace(['_', '-'], " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Maps one written region name.
pub fn resolve_name(name: &str, aal: &Atlas) -> Resolved {
    let n = norm(name);
    if let Some(l) = aal.labels.iter().find(|l| norm(l) == n) {
        return Resolved::Aal(vec![l.clone()]);
    }
    if let Some(net) = YEO7.iter().find(|y| norm(y) == n) {
        return Resolved::Yeo7(net.to_string());
    }
    let padded = format!(" {n} ");
    let has = |alias: &str| padded.contains(&format!(" {alias} "));
    if let Some((_, net)) = NETWORK_ALIASES.iter().find(|(a, _)| has(a)) {
        return Resolved::Yeo7(net.to_string());
    }
    let side = if n.starts_with("left ") || n.ends_with(" l") {
        Some("L")
    } else if n.starts_with("right ") || n.ends_with(" r") {
        Some("R")
    } else {
        None
    };
    let stems: Vec<&str> = match ALIASES.iter().find(|(a, _)| has(a)) {
        Some((_, stems)) => stems.to_vec(),
        None => {
            let bare = n
                .trim_start_matches("left ")
                .trim_start_matches("right ")
                .trim_end_matches(" l")
                .trim_end_matches(" r");
            aal.labels.iter().filter_map(|l| l.strip_suffix("_L")).filter(|s| norm(s) == bare).collect()
        }
    };
    if stems.is_empty() {
        return Resolved::Unknown;
    }
    let labels: Vec<String> = stems
        .iter()
        .flat_map(|s| match side {
            Some(h) => vec![format!("{s}_{h}")],
            None => vec![format!("{s}_L"), format!("{s}_R")],
        })
        .filter(|l| aal.labels.contains(l))
        .collect();
    if labels.is_empty() { Resolved::Unknown } else { Resolved::Aal(labels) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_names_map_to_atlas_labels() {
        let aal = Atlas::builtin("aal90").unwrap();
        let aal_of = |s: &str| match resolve_name(s, &aal) {
            Resolved::Aal(v) => v,
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(aal_of("Precuneus_L"), ["Precuneus_L"]);
        assert_eq!(aal_of("precuneus"), ["Precuneus_L", "Precuneus_R"]);
        assert_eq!(aal_of("left posterior cingulate cortex"), ["Cingulum_Post_L"]);
        assert_eq!(aal_of("Frontal Sup Medial"), ["Frontal_Sup_Medial_L", "Frontal_Sup_Medial_R"]);
        assert_eq!(aal_of("right amygdala"), ["Amygdala_R"]);
        assert_eq!(resolve_name("the default mode network", &aal), Resolved::Yeo7("Default".into()));
        assert_eq!(resolve_name("SalVentAttn", &aal), Resolved::Yeo7("SalVentAttn".into()));
        assert_eq!(resolve_name("cerebellar vermis", &aal), Resolved::Unknown);
        assert_eq!(resolve_name("nucleus accumbens", &aal), Resolved::Unknown, "'acc' is matched as a word only");
    }
}
