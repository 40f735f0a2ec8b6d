//! A short, readable outline of a compiled schema for a prompt: what the reply looks like, not every value
//! it may take (the grammar enforces those). Enums of many values are summarised, so a schema with an enum
//! of 100 region labels costs a line, not a thousand tokens.

use super::{Node, Schema};

/// Enums with at most this many values are listed in full.
const LISTED: usize = 8;

impl Schema {
    /// E.g. `{"label": "ASD"|"HC", "confidence": number, "claims": [{"claim": text (≤ 160 chars), …}, …]}`.
    pub fn outline(&self) -> String {
        self.outline_node(self.root, 0)
    }

    fn outline_node(&self, node: usize, depth: usize) -> String {
        if depth > 12 {
            return "…".into();
        }
        match &self.nodes[node] {
            Node::Any => "any JSON".into(),
            Node::String { max: None } => "text".into(),
            Node::String { max: Some(m) } => format!("text (≤ {m} chars)"),
            Node::Number => "number".into(),
            Node::Integer => "integer".into(),
            Node::Boolean => "true|false".into(),
            Node::Nullable(inner) => format!("{} or null", self.outline_node(*inner, depth + 1)),
            Node::Enum(values) if values.len() <= LISTED => {
                values.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("|")
            }
            Node::Enum(values) => format!("one of {} values ({}, {}, …)", values.len(), values[0], values[1]),
            Node::Array { items, max, .. } => {
                let most = max.map_or(String::new(), |m| format!(" (≤ {m})"));
                format!("[{}, …]{most}", self.outline_node(*items, depth + 1))
            }
            Node::Object { free: true, .. } => "{…}".into(),
            Node::Object { props, .. } => {
                let fields: Vec<String> = props
                    .iter()
                    .map(|p| {
                        let name = serde_json::Value::from(p.name.as_str()).to_string();
                        let opt = if p.required { "" } else { " (optional)" };
                        format!("{name}{opt}: {}", self.outline_node(p.node, depth + 1))
                    })
                    .collect();
                format!("{{{}}}", fields.join(", "))
            }
            // A tagged union: the tag's values, then "that one's own fields".
            Node::Union { props, branches } => {
                let tag = serde_json::Value::from(props[0].name.as_str()).to_string();
                format!(
                    "{{{tag}: {}, …the fields of that {}}} ({} kinds)",
                    self.outline_node(props[0].node, depth + 1),
                    props[0].name,
                    branches.len()
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outlines_are_short_and_name_every_field() {
        let regions: Vec<String> = (0..100).map(|i| format!("R{i}")).collect();
        let s = Schema::compile(&json!({"type": "object", "properties": {
            "label": {"enum": ["ASD", "HC"]},
            "hubs": {"type": "array", "maxItems": 6, "items": {"enum": regions}},
            "claims": {"type": "array", "items": {"type": "object", "properties": {
                "claim": {"type": "string", "maxLength": 160}, "n": {"type": ["integer", "null"]}}, "required": ["claim"]}},
            "step": {"anyOf": [
                {"type": "object", "properties": {"tool": {"const": "a"}, "args": {"type": "object"}}},
                {"type": "object", "properties": {"tool": {"const": "b"}}}]}
        }, "required": ["label", "hubs", "claims", "step"]}))
        .unwrap();
        assert_eq!(
            s.outline(),
            "{\"label\": \"ASD\"|\"HC\", \"hubs\": [one of 100 values (\"R0\", \"R1\", …), …] (≤ 6), \"claims\": [{\"claim\": text (≤ 160 chars), \"n\" (optional): integer or null}, …], \"step\": {\"tool\": \"a\"|\"b\", …the fields of that tool} (2 kinds)}"
        );
    }
}
