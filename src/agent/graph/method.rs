//! Methods and their settings: `direct`, `cot`, `reflection`, `brainagent` (with ablations),
//! `brainagent-hybrid` (the cohort model's calibrated evidence decides, the model explains it and may override
//! it only by rule) and `evidence-knn` (no language model: a similarity-weighted vote over CARD's nearest cases).

use crate::agent::error::{AgentError, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    Direct,
    Cot,
    Reflection,
    Brainagent,
    /// Not the paper's method: the cohort model's calibrated evidence decides, the model explains the decision
    /// citing the evidence and may override it only by citing evidence the cohort model did not weigh.
    BrainagentHybrid,
    EvidenceKnn,
    /// A supervised baseline, not an agent: the training split's most common label for every sample.
    Majority,
    /// A supervised baseline, not an agent: an L2 logistic regression on the Fisher-z upper triangle.
    Logistic,
}

pub const METHODS: &[&str] =
    &["direct", "cot", "reflection", "brainagent", "brainagent-hybrid", "evidence-knn", "majority", "logistic"];

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Direct => "direct",
            Method::Cot => "cot",
            Method::Reflection => "reflection",
            Method::Brainagent => "brainagent",
            Method::BrainagentHybrid => "brainagent-hybrid",
            Method::EvidenceKnn => "evidence-knn",
            Method::Majority => "majority",
            Method::Logistic => "logistic",
        }
    }

    pub fn parse(s: &str) -> Result<Method, AgentError> {
        match s {
            "direct" => Ok(Method::Direct),
            "cot" => Ok(Method::Cot),
            "reflection" => Ok(Method::Reflection),
            "brainagent" => Ok(Method::Brainagent),
            "brainagent-hybrid" => Ok(Method::BrainagentHybrid),
            "evidence-knn" => Ok(Method::EvidenceKnn),
            "majority" => Ok(Method::Majority),
            "logistic" => Ok(Method::Logistic),
            other => Err(format!("unknown method \"{other}\" (one of {})", METHODS.join(", ")).into()),
        }
    }

    pub fn uses_model(self) -> bool {
        !matches!(self, Method::EvidenceKnn | Method::Majority | Method::Logistic)
    }

    /// A supervised baseline that learns from the training split's labels (and graphs), not from cases.
    pub fn is_baseline(self) -> bool {
        matches!(self, Method::Majority | Method::Logistic)
    }
}

/// The graph encoder of a case memory an evaluation builds from its training split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CardEncoder {
    /// Edge and strength profiles, spectrum and network coupling (`retrieval::graph`), unsupervised.
    Baseline,
    /// The training split's standardised Fisher-z edges weighted by how they separate its labels
    /// (`retrieval::edges`).
    Supervised,
    /// The paper's learned graph encoder (`retrieval::gfm`, the small default model), trained self-supervised
    /// on the training split's graphs alone (labels unused); kept in the cache under its training data's hash.
    Gfm,
}

impl CardEncoder {
    pub const NAMES: [&str; 3] = ["baseline", "supervised", "gfm"];

    pub fn as_str(self) -> &'static str {
        match self {
            CardEncoder::Baseline => "baseline",
            CardEncoder::Supervised => "supervised",
            CardEncoder::Gfm => "gfm",
        }
    }

    pub fn parse(s: &str) -> Result<CardEncoder, AgentError> {
        match s {
            "baseline" => Ok(CardEncoder::Baseline),
            "supervised" => Ok(CardEncoder::Supervised),
            "gfm" => Ok(CardEncoder::Gfm),
            other => Err(format!("unknown CARD encoder \"{other}\" (baseline, supervised or gfm)").into()),
        }
    }

    /// What run files written before the setting existed used.
    fn before_the_setting() -> CardEncoder {
        CardEncoder::Baseline
    }
}

/// CARD's text query: the model's own (the paper's `retrieve_case(query)`) or the graph's template report, the
/// query evidence-knn votes with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CardQuery {
    #[default]
    Model,
    Template,
}

impl CardQuery {
    pub const NAMES: [&str; 2] = ["model", "template"];

    pub fn as_str(self) -> &'static str {
        match self {
            CardQuery::Model => "model",
            CardQuery::Template => "template",
        }
    }

    pub fn parse(s: &str) -> Result<CardQuery, AgentError> {
        match s {
            "model" => Ok(CardQuery::Model),
            "template" => Ok(CardQuery::Template),
            other => Err(format!("unknown CARD query \"{other}\" (model or template)").into()),
        }
    }
}

/// What the reflection step writes: the critique, a `revise` flag and the final label, which counts only when
/// the flag is set (`Revise`, the form every earlier run used); or the critique and the final label alone, the
/// reflection's label being the answer and a revision a label that differs (`Label`). Qwen2.5-Coder-1.5B's
/// reflections flipped 18 labels on ADHD-200, all from HC to ADHD, every one with `revise` true: with two
/// labels "revise" can only mean the other one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReflectionForm {
    #[default]
    Revise,
    Label,
}

impl ReflectionForm {
    pub const NAMES: [&str; 2] = ["revise", "label"];

    pub fn as_str(self) -> &'static str {
        match self {
            ReflectionForm::Revise => "revise",
            ReflectionForm::Label => "label",
        }
    }

    pub fn parse(s: &str) -> Result<ReflectionForm, AgentError> {
        match s {
            "revise" => Ok(ReflectionForm::Revise),
            "label" => Ok(ReflectionForm::Label),
            other => Err(format!("unknown reflection form \"{other}\" (revise or label)").into()),
        }
    }
}

/// The name suffixes of BrainAgent's harness variants (CARD first, the template query, the label-only
/// reflection, the rationale before the label): choices of this harness, not the paper's protocol and not
/// ablations.
const VARIANTS: [&str; 4] = ["-card-first", "-template-query", "-label-reflection", "-rationale-first"];

/// Whether a method name (as `Settings::name` writes it) is one of BrainAgent's harness variants.
pub fn is_harness_variant(name: &str) -> bool {
    name.starts_with("brainagent") && VARIANTS.iter().any(|v| name.contains(v))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub method: Method,
    /// BrainAgent parts (ablations switch them off).
    pub understanding: bool,
    pub hark: bool,
    pub card: bool,
    pub reflection: bool,
    /// CARD first: round 1 offers `retrieve_case` alone, so the analysis always sees the similar cases. A
    /// harness choice, not the paper's (its model picks any tool): the local model otherwise rarely calls CARD.
    pub card_first: bool,
    /// CARD's text query (a harness choice with `Template`: the model's query is recorded, not used).
    pub card_query: CardQuery,
    /// What the reflection step writes (a harness choice with `Label`).
    pub reflection_form: ReflectionForm,
    /// The analysis writes its claims before the label (a harness choice): the paper's answer is a label
    /// with a rationale, which a model decoding left to right otherwise chooses before any claim.
    pub rationale_first: bool,
    /// Loop rounds at most.
    pub rounds: usize,
    /// The paper's rule: a tool leaves the menu once it has been called.
    pub remove_called_tools: bool,
    /// The report is cut to this many characters each round.
    pub report_chars: usize,
    /// Links (triplets) shown to the model.
    pub max_links: usize,
    pub temperature: f32,
    pub max_tokens: u32,
    /// CARD: cases retrieved (and voting, for evidence-knn) and β.
    pub k: usize,
    pub beta: f32,
    /// The graph encoder of a memory built from the training split (a given `--memory` keeps its own).
    #[serde(default = "CardEncoder::before_the_setting")]
    pub card_encoder: CardEncoder,
    /// Training epochs of the GFM the `gfm` CARD encoder trains.
    pub gfm_epochs: usize,
    /// brainagent-hybrid: whether the analysis may override the evidence's decision (by the citation rule).
    pub overrides: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            method: Method::Brainagent,
            understanding: true,
            hark: true,
            card: true,
            reflection: true,
            card_first: false,
            card_query: CardQuery::Model,
            reflection_form: ReflectionForm::Revise,
            rationale_first: false,
            rounds: 4,
            remove_called_tools: true,
            report_chars: 400,
            max_links: 30,
            temperature: 0.0,
            max_tokens: 384,
            k: 3,
            beta: 0.5,
            card_encoder: CardEncoder::Supervised,
            gfm_epochs: 150,
            overrides: false,
        }
    }
}

impl Settings {
    pub fn for_method(method: Method) -> Settings {
        Settings { method, reflection: matches!(method, Method::Brainagent | Method::Reflection), ..Default::default() }
    }

    /// Whether this method retrieves similar cases (CARD) or knowledge (HARK).
    pub fn needs_card(&self) -> bool {
        self.method == Method::EvidenceKnn
            || (matches!(self.method, Method::Brainagent | Method::BrainagentHybrid) && self.card)
    }
    /// Whether this method weighs a cohort model's evidence.
    pub fn needs_cohort_model(&self) -> bool {
        self.method == Method::BrainagentHybrid
    }
    pub fn needs_hark(&self) -> bool {
        self.method == Method::Brainagent && self.hark
    }

    /// The method's name with its ablations, e.g. `brainagent-no-hark-no-card`.
    pub fn name(&self) -> String {
        let mut s = self.method.as_str().to_string();
        if self.method == Method::Brainagent {
            for (on, tag) in [
                (self.understanding, "understanding"),
                (self.hark, "hark"),
                (self.card, "card"),
                (self.reflection, "reflection"),
            ] {
                if !on {
                    s.push_str("-no-");
                    s.push_str(tag);
                }
            }
            if self.card && self.card_first {
                s.push_str(VARIANTS[0]);
            }
            if self.card && self.card_query == CardQuery::Template {
                s.push_str(VARIANTS[1]);
            }
            if self.rationale_first {
                s.push_str(VARIANTS[3]);
            }
        }
        if self.method == Method::BrainagentHybrid {
            if !self.card {
                s.push_str("-no-card");
            }
            if self.overrides {
                s.push_str("-overrides");
            }
        }
        if self.reflection && self.reflection_form == ReflectionForm::Label {
            s.push_str(VARIANTS[2]);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_ablations() {
        assert_eq!(Settings::for_method(Method::Brainagent).name(), "brainagent");
        let s = Settings { hark: false, reflection: false, ..Settings::for_method(Method::Brainagent) };
        assert_eq!(s.name(), "brainagent-no-hark-no-reflection");
        let s =
            Settings { card_first: true, card_query: CardQuery::Template, ..Settings::for_method(Method::Brainagent) };
        assert_eq!(s.name(), "brainagent-card-first-template-query");
        assert!(is_harness_variant(&s.name()) && !is_harness_variant("brainagent-no-card"));
        assert_eq!(Settings { card: false, ..s.clone() }.name(), "brainagent-no-card");
        let l = Settings { reflection_form: ReflectionForm::Label, ..s };
        assert_eq!(l.name(), "brainagent-card-first-template-query-label-reflection");
        assert!(is_harness_variant(&l.name()));
        assert_eq!(
            Settings { reflection: false, ..l.clone() }.name(),
            "brainagent-no-reflection-card-first-template-query"
        );
        let r = Settings { rationale_first: true, ..l };
        assert_eq!(r.name(), "brainagent-card-first-template-query-rationale-first-label-reflection");
        assert!(is_harness_variant(&Settings { rationale_first: true, ..Settings::default() }.name()));
        let r = Settings { reflection_form: ReflectionForm::Label, ..Settings::for_method(Method::Reflection) };
        assert_eq!(r.name(), "reflection-label-reflection");
        assert!(Settings::for_method(Method::Reflection).reflection);
        assert!(!Settings::for_method(Method::Direct).reflection);
        for m in METHODS {
            assert_eq!(Method::parse(m).unwrap().as_str(), *m);
        }
        assert!(Method::parse("uncertain").unwrap_err().to_string().contains("evidence-knn"));
    }

    #[test]
    fn new_settings_use_the_supervised_card_encoder_and_old_run_files_read_as_baseline() {
        assert_eq!(Settings::default().card_encoder, CardEncoder::Supervised);
        let mut old = serde_json::to_value(Settings::default()).unwrap();
        old.as_object_mut().unwrap().remove("card_encoder");
        let read: Settings = serde_json::from_value(old).unwrap();
        assert_eq!(read.card_encoder, CardEncoder::Baseline);
        for name in CardEncoder::NAMES {
            assert_eq!(CardEncoder::parse(name).unwrap().as_str(), name);
        }
    }
}
