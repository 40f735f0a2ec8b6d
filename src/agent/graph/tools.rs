//! The agent's tools: HARK (`retrieve_knowledge`), CARD (`retrieve_case`), the network analysis functions and
//! `finish`. Each tool has an argument schema; arguments a model sends are validated against it, a drifted
//! name (`regions_t`, `query_t`) is repaired when exactly one parameter fits, anything else is rejected with a
//! message the model reads.

use super::context::{Evidence, GraphContext};
use super::method::{CardQuery, Settings};
use crate::agent::error::{AgentError, Result};
use crate::agent::tools::ToolError;
use crate::retrieval::cases::{CaseMemory, GraphEncoder, Hit};
use crate::retrieval::knowledge::{Hark, HarkResult};
use crate::retrieval::text::MiniLm;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Free text, at most `TEXT_CHARS` characters when decoded under the schema.
    Text,
    /// One region: an enum of the graph's labels (a name or 0-based index is accepted from other models).
    Region,
    Integer,
    /// Region indices (0-based); region names are accepted and mapped.
    Regions,
    Choice(&'static [&'static str]),
}

pub type Param = crate::agent::tools::Param<Kind>;

/// A tool's handler.
pub type Handler = fn(&Call) -> Result<Output, ToolError>;

/// A tool of the graph agent (`agent::tools::Tool` with this agent's kinds and handler).
pub type ToolSpec = crate::agent::tools::Tool<Kind, (), Handler>;

pub const HARK: &str = "retrieve_knowledge";
pub const CARD: &str = "retrieve_case";
pub const FINISH: &str = "finish";

const CENTRALITIES: &[&str] = &["degree", "strength", "betweenness", "participation"];

pub const TOOLS: &[ToolSpec] = &[
    ToolSpec {
        name: HARK,
        group: (),
        run: retrieve_knowledge,
        about: "Neuroscience knowledge about regions: task facts whose regions overlap regions_q, plus general facts.",
        params: &[
            Param { name: "query", kind: Kind::Text, required: true, about: "what to look up" },
            Param {
                name: "regions_q",
                kind: Kind::Regions,
                required: true,
                about: "region indices (0-based) or names",
            },
        ],
    },
    ToolSpec {
        name: CARD,
        group: (),
        run: retrieve_case,
        about: "Labelled cases most similar to this graph (graph embedding and report text).",
        params: &[Param { name: "query", kind: Kind::Text, required: true, about: "a short report of this graph" }],
    },
    ToolSpec {
        name: "global_metrics",
        group: (),
        run: global_metrics,
        about: "Density, average degree, average clustering, transitivity, path length, global efficiency.",
        params: &[],
    },
    ToolSpec {
        name: "hubs",
        group: (),
        run: hubs,
        about: "The top regions by one centrality.",
        params: &[
            Param {
                name: "by",
                kind: Kind::Choice(CENTRALITIES),
                required: true,
                about: "degree, strength, betweenness or participation",
            },
            Param { name: "k", kind: Kind::Integer, required: false, about: "how many (default 5)" },
        ],
    },
    ToolSpec {
        name: "community_structure",
        group: (),
        run: community_structure,
        about: "Louvain modules and modularity Q.",
        params: &[],
    },
    ToolSpec {
        name: "small_worldness",
        group: (),
        run: small_worldness,
        about: "Small-world sigma and omega against random and lattice references.",
        params: &[],
    },
    ToolSpec {
        name: "network_strength",
        group: (),
        run: network_strength,
        about: "Mean link weight within and between functional networks.",
        params: &[],
    },
    ToolSpec {
        name: "region_profile",
        group: (),
        run: region_profile,
        about: "Degree, strength, betweenness, clustering, module and network of one region.",
        params: &[Param { name: "region", kind: Kind::Region, required: true, about: "region name or index" }],
    },
    ToolSpec {
        name: FINISH,
        group: (),
        run: finish,
        about: "Stop gathering evidence and go to the analysis.",
        params: &[],
    },
];

pub fn spec(name: &str) -> Option<&'static ToolSpec> {
    crate::agent::tools::find(TOOLS, name)
}

/// Longest free-text argument (a query) the local model may write.
pub const TEXT_CHARS: usize = 160;

/// JSON schema of a tool's own arguments, closed: regions are an enum of the graph's region labels, so a
/// constrained model can name only regions that exist.
pub fn args_schema(t: &ToolSpec, ctx: &GraphContext) -> Value {
    let mut props = Map::new();
    for p in t.params {
        let s = match p.kind {
            Kind::Text => json!({"type": "string", "maxLength": TEXT_CHARS}),
            Kind::Region if ctx.connectome.labels.is_empty() => json!({"type": "string"}),
            Kind::Region => json!({"enum": ctx.connectome.labels}),
            Kind::Integer => json!({"type": "integer"}),
            Kind::Regions if ctx.connectome.labels.is_empty() => json!({"type": "array", "items": {"type": "integer"}}),
            Kind::Regions => json!({"type": "array", "items": {"enum": ctx.connectome.labels}}),
            Kind::Choice(c) => json!({"enum": c}),
        };
        props.insert(p.name.to_string(), s);
    }
    t.args_object(props)
}

/// The action of a round: one tool of the menu with that tool's own arguments (`anyOf` told apart by the
/// tool's name), so every constrained action is a call the tool accepts.
pub fn action_schema(menu: &[String], ctx: &GraphContext) -> Value {
    let branches: Vec<Value> =
        menu.iter().filter_map(|n| spec(n)).map(|t| t.branch("arguments", args_schema(t, ctx))).collect();
    json!({"anyOf": branches})
}

/// The menu as text: one line per tool with its arguments.
pub fn menu_text(names: &[String]) -> String {
    crate::agent::tools::menu(names.iter().filter_map(|n| spec(n)))
}

/// Arguments after validation, with the repairs made.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub args: Map<String, Value>,
    pub repairs: Vec<String>,
}

fn stem(name: &str) -> String {
    name.to_ascii_lowercase().split(['_', '-']).next().unwrap_or("").to_string()
}

/// Validates (and repairs) `raw` against `tool`'s parameters; `Err` is the message for the model.
pub fn check_args(tool: &ToolSpec, raw: &Value, ctx: &GraphContext) -> Result<Checked, AgentError> {
    let expected = || {
        let v: Vec<String> = tool.params.iter().map(|p| p.name.to_string()).collect();
        if v.is_empty() { "no arguments".to_string() } else { v.join(", ") }
    };
    let obj = match raw {
        Value::Object(o) => o.clone(),
        Value::Null => Map::new(),
        other => {
            return Err(format!(
                "{}: arguments must be a JSON object, got {other}; expected {}",
                tool.name,
                expected()
            )
            .into());
        }
    };
    let mut args = Map::new();
    let mut repairs = Vec::new();
    // Exact names first, then drifted ones.
    let mut unknown = Vec::new();
    for (k, v) in &obj {
        if tool.params.iter().any(|p| p.name == k) {
            args.insert(k.clone(), v.clone());
        } else {
            unknown.push((k.clone(), v.clone()));
        }
    }
    for (k, v) in unknown {
        let fits: Vec<&Param> = tool
            .params
            .iter()
            .filter(|p| !args.contains_key(p.name))
            .filter(|p| p.name.eq_ignore_ascii_case(&k) || stem(p.name) == stem(&k))
            .collect();
        match fits.as_slice() {
            [p] => {
                repairs.push(format!("{k}, renamed to {}", p.name));
                args.insert(p.name.to_string(), v);
            }
            [] if tool.params.is_empty() => {
                return Err(format!("{} takes no arguments; got \"{k}\"", tool.name).into());
            }
            [] => return Err(format!("{}: unknown argument \"{k}\"; expected {}", tool.name, expected()).into()),
            _ => return Err(format!("{}: argument \"{k}\" is ambiguous; expected {}", tool.name, expected()).into()),
        }
    }
    for p in tool.params {
        let Some(v) = args.get(p.name).cloned() else {
            if p.required {
                return Err(format!("{}: missing argument \"{}\" ({})", tool.name, p.name, p.about).into());
            }
            continue;
        };
        let fixed = match p.kind {
            Kind::Text | Kind::Region => match v {
                Value::String(s) if !s.trim().is_empty() => Value::String(s),
                Value::Number(n) => {
                    repairs.push(format!("{}: number read as text", p.name));
                    Value::String(n.to_string())
                }
                other => {
                    return Err(format!("{}: \"{}\" must be non-empty text, got {other}", tool.name, p.name).into());
                }
            },
            Kind::Integer => match v.as_u64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())) {
                Some(k) if (1..=100).contains(&k) => json!(k),
                _ => {
                    return Err(
                        format!("{}: \"{}\" must be an integer from 1 to 100, got {v}", tool.name, p.name).into()
                    );
                }
            },
            Kind::Choice(c) => match v.as_str().map(|s| s.trim().to_ascii_lowercase()) {
                Some(s) if c.contains(&s.as_str()) => Value::String(s),
                _ => {
                    return Err(
                        format!("{}: \"{}\" must be one of {}, got {v}", tool.name, p.name, c.join(", ")).into()
                    );
                }
            },
            Kind::Regions => region_list(tool, p, v, ctx, &mut repairs)?,
        };
        args.insert(p.name.to_string(), fixed);
    }
    Ok(Checked { args, repairs })
}

/// A `Regions` argument as a sorted list of indices: numbers, region names, or a single value (repaired).
fn region_list(
    tool: &ToolSpec,
    p: &Param,
    v: Value,
    ctx: &GraphContext,
    repairs: &mut Vec<String>,
) -> Result<Value, AgentError> {
    let items = match v {
        Value::Array(a) => a,
        single @ (Value::Number(_) | Value::String(_)) => {
            repairs.push(format!("{}: single value read as a list", p.name));
            vec![single]
        }
        other => {
            return Err(format!("{}: \"{}\" must be a list of region indices, got {other}", tool.name, p.name).into());
        }
    };
    let mut out = BTreeSet::new();
    for it in &items {
        let idx = match it {
            Value::Number(n) => n.as_u64().map(|x| x as usize).filter(|&i| i < ctx.n()),
            Value::String(s) => {
                let r = ctx.region(s);
                if r.is_some() && s.trim().parse::<usize>().is_err() {
                    repairs.push(format!("{}: region name {s} read as its index", p.name));
                }
                r
            }
            _ => None,
        };
        match idx {
            Some(i) => {
                out.insert(i);
            }
            None => {
                return Err(format!(
                    "{}: \"{}\" has {it}, which is not a region index 0–{} or a region name",
                    tool.name,
                    p.name,
                    ctx.n().saturating_sub(1)
                )
                .into());
            }
        }
    }
    Ok(json!(out.into_iter().collect::<Vec<_>>()))
}

/// What the agent retrieves from: HARK over the knowledge base, CARD over a case memory.
#[derive(Clone, Default)]
pub struct Resources {
    pub hark: Option<Arc<Hark>>,
    pub memory: Option<Arc<Memory>>,
    /// What a supervised baseline (majority, logistic) learned from the training split.
    pub training: Option<Arc<super::baseline::Training>>,
    /// brainagent-hybrid's cohort model and the file it came from (or the cohort it was trained on).
    pub cohort_model: Option<Arc<(std::path::PathBuf, super::cohort_model::CohortModel)>>,
}

/// A case memory ready for queries.
pub struct Memory {
    pub memory: CaseMemory,
    pub encoder: GraphEncoder,
    pub text_model: Option<Arc<MiniLm>>,
    pub beta: f32,
    pub k: usize,
    /// Whose text `retrieve_case` queries with.
    pub query_source: CardQuery,
}

impl Memory {
    /// A memory queried with `settings`' β, k and text query.
    pub fn new(
        memory: CaseMemory,
        encoder: GraphEncoder,
        text_model: Option<Arc<MiniLm>>,
        settings: &Settings,
    ) -> Memory {
        Memory { memory, encoder, text_model, beta: settings.beta, k: settings.k, query_source: settings.card_query }
    }

    /// The graph's template report: the text query of evidence-knn and of CARD with `CardQuery::Template`.
    pub fn template_query(ctx: &GraphContext) -> String {
        crate::retrieval::cases::template_report(&ctx.connectome, ctx.atlas.as_ref(), None).1
    }

    /// CARD for one graph: cases of `exclude_group` (the graph's own run when it is in the memory) left out.
    pub fn query(&self, ctx: &GraphContext, text: &str, exclude_group: Option<&str>) -> Result<Vec<Hit>> {
        let e = self.encoder.embed(&ctx.connectome, ctx.atlas.as_ref())?;
        let scores = self.memory.text_scores(text, self.text_model.as_deref())?;
        Ok(self.memory.rank(&e, &scores, self.beta, self.k, exclude_group)?)
    }

    /// The group of the memory case this graph is (same file name), if any: left out of its own retrieval.
    pub fn own_group(&self, ctx: &GraphContext) -> Option<String> {
        self.memory
            .cases
            .iter()
            .find(|c| c.id == ctx.name)
            .map(|c| if c.group.is_empty() { c.id.clone() } else { c.group.clone() })
    }
}

/// A tool's result: text for the model, structured data for the trace and the panels, new evidence.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub text: String,
    pub data: Value,
    pub evidence: Vec<Evidence>,
}

/// What a handler gets: the checked arguments, the graph, the retrieval resources and the knowledge set.
pub struct Call<'a> {
    pub args: &'a Map<String, Value>,
    pub ctx: &'a GraphContext,
    pub res: &'a Resources,
    pub knowledge_set: &'a str,
}

impl Call<'_> {
    /// A text argument ("" when absent).
    fn text(&self, k: &str) -> String {
        self.args.get(k).and_then(Value::as_str).unwrap_or("").to_string()
    }
}

/// Runs a tool with checked arguments through the handler its table entry registers.
pub fn run(
    tool: &str,
    args: &Map<String, Value>,
    ctx: &GraphContext,
    res: &Resources,
    knowledge_set: &str,
) -> Result<Output, ToolError> {
    let t = spec(tool).ok_or_else(|| ToolError(format!("unknown tool \"{tool}\"")))?;
    (t.run)(&Call { args, ctx, res, knowledge_set })
}

fn retrieve_knowledge(c: &Call) -> Result<Output, ToolError> {
    let args = c.args;
    let ctx = c.ctx;
    let res = c.res;
    let knowledge_set = c.knowledge_set;
    let hark = res.hark.as_ref().ok_or("the knowledge base is not available")?;
    let atlas = ctx.atlas.as_ref().ok_or("this graph has no atlas: knowledge cannot be matched to its regions")?;
    let regions: BTreeSet<usize> = args
        .get("regions_q")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_u64().map(|x| x as usize))
        .collect();
    let mut r: HarkResult =
        hark.query(&c.text("query"), &regions, atlas, knowledge_set, 0.5, 5).map_err(|e| format!("{e:#}"))?;
    // The trace keeps the chosen items and the best-ranked others (not the whole knowledge base).
    let mut kept = 0;
    r.candidates.retain(|c| {
        kept += 1;
        c.chosen || kept <= 25
    });
    let chosen: Vec<_> = r.candidates.iter().filter(|c| c.chosen).collect();
    let mut text = String::new();
    let mut evidence = Vec::new();
    for c in &chosen {
        let iou = c.iou.map(|v| format!(", region overlap {v:.2}")).unwrap_or_default();
        text.push_str(&format!("[K:{}] ({}{iou}) {}\n", c.id, c.task, c.text));
        evidence.push(Evidence { id: format!("K:{}", c.id), text: format!("{} ({})", c.text, c.source) });
    }
    if chosen.is_empty() {
        text = "No knowledge item matched.".into();
    }
    Ok(Output { text, data: serde_json::to_value(&r).unwrap_or_default(), evidence })
}

fn retrieve_case(c: &Call) -> Result<Output, ToolError> {
    let ctx = c.ctx;
    let res = c.res;
    let mem = res.memory.as_ref().ok_or("no case memory is loaded")?;
    let model_query = c.text("query");
    let q = match mem.query_source {
        CardQuery::Model => model_query.clone(),
        CardQuery::Template => Memory::template_query(ctx),
    };
    let own = mem.own_group(ctx);
    let hits = mem.query(ctx, &q, own.as_deref()).map_err(|e| format!("{e:#}"))?;
    let mut text = match mem.query_source {
        CardQuery::Model => String::new(),
        CardQuery::Template => "Retrieved with the graph's template report as the text query.\n".to_string(),
    };
    let mut evidence = Vec::new();
    for h in hits.iter().filter(|h| h.chosen) {
        let report =
            mem.memory.cases.iter().find(|c| c.id == h.case).map(|c| c.report_text.clone()).unwrap_or_default();
        let short: String = report.chars().take(240).collect();
        text.push_str(&format!(
            "[C:{}] label {} · similarity {:.3} (graph {:.3}, text {:.3}) · {short}\n",
            h.case, h.label, h.score, h.graph_sim, h.text_sim
        ));
        evidence.push(Evidence {
            id: format!("C:{}", h.case),
            text: format!("case {} labelled {} (similarity {:.3})", h.case, h.label, h.score),
        });
    }
    let data = json!({
        "query": q, "query_source": mem.query_source.as_str(), "model_query": model_query,
        "excluded_group": own, "hits": hits,
    });
    Ok(Output { text, data, evidence })
}

fn global_metrics(c: &Call) -> Result<Output, ToolError> {
    let ctx = c.ctx;
    let lines: Vec<String> =
        ctx.global_values().iter().map(|(k, names, v)| format!("[G:{k}] {} {v:.4}", names[0])).collect();
    Ok(Output {
        text: format!(
            "Thresholded at {:.0}% density.\n{}",
            ctx.options.proportional.unwrap_or(1.0) * 100.0,
            lines.join("\n")
        ),
        data: json!(
            ctx.global_values()
                .iter()
                .map(|(k, _, v)| (k.to_string(), *v))
                .collect::<std::collections::BTreeMap<_, _>>()
        ),
        evidence: vec![],
    })
}

fn hubs(c: &Call) -> Result<Output, ToolError> {
    let args = c.args;
    let ctx = c.ctx;
    let m = &c.ctx.metrics;
    let labels = c.ctx.labels();
    let by = c.text("by");
    let k = args.get("k").and_then(Value::as_u64).unwrap_or(5) as usize;
    let get = |i: usize| match by.as_str() {
        "strength" => m.nodes[i].strength,
        "betweenness" => m.nodes[i].betweenness,
        "participation" => m.nodes[i].participation,
        _ => m.nodes[i].degree,
    };
    let mut idx: Vec<usize> = (0..ctx.n()).collect();
    idx.sort_by(|&a, &b| get(b).total_cmp(&get(a)).then(a.cmp(&b)));
    idx.truncate(k.min(ctx.n()));
    let mut evidence = Vec::new();
    let lines: Vec<String> = idx
        .iter()
        .map(|&i| {
            let net = ctx.network_of(i).map(|n| format!(", {n}")).unwrap_or_default();
            evidence.push(Evidence {
                id: format!("R:{}", labels[i]),
                text: format!("{} {by} {:.3}{net}", labels[i], get(i)),
            });
            format!("[R:{}] index {i}{net}: {by} {:.3}", labels[i], get(i))
        })
        .collect();
    Ok(Output { text: lines.join("\n"), data: json!({"by": by, "regions": idx}), evidence })
}

fn community_structure(c: &Call) -> Result<Output, ToolError> {
    let ctx = c.ctx;
    let m = &c.ctx.metrics;
    let mut text = format!("[G:modularity] Q = {:.4}, {} modules\n", m.modularity, m.n_modules);
    for md in &ctx.description.modules {
        let shown: Vec<&str> = md.members.iter().take(10).map(String::as_str).collect();
        text.push_str(&format!(
            "[M:{}] {} regions: {}{}\n",
            md.id,
            md.members.len(),
            shown.join(", "),
            if md.members.len() > 10 { ", …" } else { "" }
        ));
    }
    Ok(Output { text, data: json!({"modularity": m.modularity, "modules": ctx.description.modules}), evidence: vec![] })
}

fn small_worldness(c: &Call) -> Result<Output, ToolError> {
    let ctx = c.ctx;
    match ctx.small_world() {
        Ok(r) => {
            let ev = vec![
                Evidence { id: "G:sigma".into(), text: format!("small-world sigma = {:.3}", r.values.sigma) },
                Evidence { id: "G:omega".into(), text: format!("small-world omega = {:.3}", r.values.omega) },
            ];
            Ok(Output {
                text: format!(
                    "[G:sigma] sigma {:.3} (>1: small-world) [G:omega] omega {:.3} (near 0: small-world) — binary graph, {} regions, {} references",
                    r.values.sigma, r.values.omega, r.nodes_used, r.nrand
                ),
                data: json!({"sigma": r.values.sigma, "omega": r.values.omega, "nrand": r.nrand}),
                evidence: ev,
            })
        }
        Err(e) => Err(format!("small-worldness could not be computed: {e}").into()),
    }
}

fn network_strength(c: &Call) -> Result<Output, ToolError> {
    let ctx = c.ctx;
    let v = ctx.networks_by_cohesion();
    if v.is_empty() {
        return Err("this graph's atlas has no functional networks".into());
    }
    let d = &ctx.description;
    let mut between: Vec<(f64, String)> = Vec::new();
    for i in 0..d.networks.len() {
        for j in i + 1..d.networks.len() {
            between.push((d.network_strength[i][j], format!("{}–{}", d.networks[i], d.networks[j])));
        }
    }
    between.sort_by(|a, b| b.0.total_cmp(&a.0));
    let within: Vec<String> = v.iter().map(|(n, s)| format!("[N:{n}] {s:.3}")).collect();
    let top: Vec<String> = between.iter().take(3).map(|(s, n)| format!("{n} {s:.3}")).collect();
    Ok(Output {
        text: format!(
            "Within-network mean weight (strongest first): {}\nStrongest between-network coupling: {}",
            within.join(", "),
            top.join(", ")
        ),
        data: json!({"networks": d.networks, "strength": d.network_strength}),
        evidence: vec![],
    })
}

fn region_profile(c: &Call) -> Result<Output, ToolError> {
    let ctx = c.ctx;
    let m = &c.ctx.metrics;
    let labels = c.ctx.labels();
    let name = c.text("region");
    let i = ctx.region(&name).ok_or_else(|| format!("region_profile: no region \"{name}\" in this graph"))?;
    let x = &m.nodes[i];
    let net = ctx.network_of(i).unwrap_or("none");
    let text = format!(
        "[R:{}] index {i}, network {net}: degree {:.0}, strength {:.3}, betweenness {:.1}, clustering {:.3}, module {}, participation {:.3}",
        labels[i], x.degree, x.strength, x.betweenness, x.clustering, x.module, x.participation
    );
    Ok(Output {
        evidence: vec![Evidence { id: format!("R:{}", labels[i]), text: text.clone() }],
        text,
        data: json!({"region": i}),
    })
}

fn finish(_: &Call) -> Result<Output, ToolError> {
    Ok(Output { text: "Evidence gathering finished.".into(), ..Default::default() })
}
