//! The JSON Schema subset BrainLens asks models for — object (properties, required), array (items), enum,
//! const, string (with `maxLength`), number, integer, boolean, `{}` (any JSON), arrays with `minItems`/`maxItems`,
//! and `anyOf`/`oneOf` of objects told apart by a
//! `const` property (a tool call: `{"tool": {"const": …}, "args": {…that tool's own…}}`) — compiled once, then used two ways:
//! `validate` checks a reply, and `grammar::Recognizer` accepts exactly the JSON texts valid against it, byte
//! by byte (the heart of constrained decoding). Descriptive keywords (title, description, …) are ignored;
//! anything that changes what is valid and is outside the subset is refused when compiling.

pub mod error;
pub mod grammar;

pub use error::SchemaError;
mod outline;

use serde_json::Value;

/// One compiled schema node. Node 0 is always `Any`.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Any,
    /// Declared properties in schema order; `free` when none are declared (any keys, any values).
    Object {
        props: Vec<Prop>,
        free: bool,
        closed: bool,
    },
    /// Items of node `items`, at least `min` and at most `max` of them; the first item of node `first` when
    /// given (JSON Schema's `prefixItems` with one schema: a plan whose first step must run now).
    Array {
        items: usize,
        first: Option<usize>,
        min: usize,
        max: Option<usize>,
    },
    /// At most `max` characters (Unicode scalar values, as JSON Schema's `maxLength` counts them).
    String {
        max: Option<usize>,
    },
    Number,
    Integer,
    Boolean,
    /// Allowed values; each is matched as its compact JSON text.
    Enum(Vec<Value>),
    /// `null` or a value of the inner node (`"type": ["number", "null"]`).
    Nullable(usize),
    /// One of several objects told apart by the property `props[0]` (the tag), whose value is a `const` in
    /// each branch: `tag` is the enum of those constants, `branches[i]` the object whose tag is option i.
    /// Every branch lists the tag first.
    Union {
        props: Vec<Prop>,
        branches: Vec<usize>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Prop {
    pub name: String,
    pub node: usize,
    pub required: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub nodes: Vec<Node>,
    pub root: usize,
}

/// Upper bound on properties of one object (a 64-bit candidate mask); enums have no bound.
pub const MAX_CHOICES: usize = 64;

const IGNORED: &[&str] = &[
    "title",
    "description",
    "$schema",
    "$id",
    "examples",
    "default",
    "format",
    "minimum",
    "maximum",
    "minLength",
    "additionalProperties",
    "strict",
];

impl Schema {
    /// A schema that accepts any JSON object (OpenAI's JSON mode).
    pub fn any_object() -> Schema {
        Schema { nodes: vec![Node::Any, Node::Object { props: vec![], free: true, closed: false }], root: 1 }
    }

    pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
        let mut nodes = vec![Node::Any];
        let root = compile_node(schema, &mut nodes, "$").map_err(|e| SchemaError::Compile(e.to_string()))?;
        Ok(Schema { nodes, root })
    }

    /// Checks `value`; the error names the first offending JSON path.
    pub fn validate(&self, value: &Value) -> Result<(), SchemaError> {
        self.check(self.root, value, "$")
    }

    fn check(&self, node: usize, value: &Value, path: &str) -> Result<(), SchemaError> {
        let bad = |want: &str| Err(format!("{path}: expected {want}, got {}", short(value)).into());
        match &self.nodes[node] {
            Node::Any => Ok(()),
            Node::Nullable(_) if value.is_null() => Ok(()),
            Node::Nullable(inner) => self.check(*inner, value, path),
            Node::String { max } => match value.as_str() {
                Some(text) if max.is_some_and(|m| text.chars().count() > m) => Err(format!(
                    "{path}: expected at most {} characters, got {}",
                    max.unwrap_or(0),
                    text.chars().count()
                )
                .into()),
                Some(_) => Ok(()),
                None => bad("a string"),
            },
            Node::Number => {
                if value.is_number() {
                    Ok(())
                } else {
                    bad("a number")
                }
            }
            Node::Integer => match value {
                Value::Number(n) if n.is_i64() || n.is_u64() => Ok(()),
                Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => Ok(()),
                _ => bad("an integer"),
            },
            Node::Boolean => {
                if value.is_boolean() {
                    Ok(())
                } else {
                    bad("true or false")
                }
            }
            Node::Enum(options) => {
                if options.iter().any(|o| same_value(o, value)) {
                    Ok(())
                } else {
                    let list: Vec<String> = options.iter().map(|o| o.to_string()).collect();
                    bad(&format!("one of {}", list.join(", ")))
                }
            }
            Node::Union { props, branches } => {
                let Some(object) = value.as_object() else { return bad("an object") };
                let tag = &props[0].name;
                let Node::Enum(options) = &self.nodes[props[0].node] else { return bad("a tagged object") };
                let Some(v) = object.get(tag) else {
                    return Err(format!("{path}: missing required property \"{tag}\"").into());
                };
                match options.iter().position(|o| same_value(o, v)) {
                    Some(i) => self.check(branches[i], value, path),
                    None => {
                        let list: Vec<String> = options.iter().map(|o| o.to_string()).collect();
                        Err(format!("{path}.{tag}: expected one of {}, got {}", list.join(", "), short(v)).into())
                    }
                }
            }
            Node::Array { items, first, min, max } => {
                let Some(array) = value.as_array() else { return bad("an array") };
                if array.len() < *min || max.is_some_and(|m| array.len() > m) {
                    let most = max.map_or(String::new(), |m| format!(" and at most {m}"));
                    return Err(format!("{path}: expected at least {min}{most} items, got {}", array.len()).into());
                }
                for (i, item) in array.iter().enumerate() {
                    let node = if i == 0 { first.unwrap_or(*items) } else { *items };
                    self.check(node, item, &format!("{path}[{i}]"))?;
                }
                Ok(())
            }
            Node::Object { props, closed, .. } => {
                let Some(object) = value.as_object() else { return bad("an object") };
                for prop in props {
                    match object.get(&prop.name) {
                        Some(v) => self.check(prop.node, v, &format!("{path}.{}", prop.name))?,
                        None if prop.required => {
                            return Err(format!("{path}: missing required property \"{}\"", prop.name).into());
                        }
                        None => {}
                    }
                }
                if *closed {
                    if let Some(extra) = object.keys().find(|k| !props.iter().any(|p| &p.name == *k)) {
                        return Err(format!("{path}: unexpected property \"{extra}\"").into());
                    }
                }
                Ok(())
            }
        }
    }
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 { format!("{}…", text.chars().take(60).collect::<String>()) } else { text }
}

fn compile_node(schema: &Value, nodes: &mut Vec<Node>, path: &str) -> Result<usize, SchemaError> {
    let Some(object) = schema.as_object() else {
        return match schema {
            Value::Bool(true) => Ok(0),
            _ => Err(format!("{path}: a schema must be an object").into()),
        };
    };
    for key in object.keys() {
        let known = [
            "type",
            "properties",
            "required",
            "items",
            "prefixItems",
            "enum",
            "const",
            "anyOf",
            "oneOf",
            "maxLength",
            "minItems",
            "maxItems",
        ]
        .contains(&key.as_str());
        if !known && !IGNORED.contains(&key.as_str()) {
            return Err(format!("{path}: keyword \"{key}\" is outside the supported schema subset").into());
        }
    }
    let options = match (object.get("enum"), object.get("const")) {
        (Some(Value::Array(list)), _) => Some(list.clone()),
        (Some(_), _) => return Err(format!("{path}: enum must be an array").into()),
        (None, Some(c)) => Some(vec![c.clone()]),
        (None, None) => None,
    };
    if let Some(options) = options {
        let mut unique: Vec<Value> = Vec::new();
        for o in options {
            if !unique.contains(&o) {
                unique.push(o);
            }
        }
        if unique.is_empty() {
            return Err(format!("{path}: enum needs at least one value").into());
        }
        nodes.push(Node::Enum(unique));
        return Ok(nodes.len() - 1);
    }
    for kw in ["anyOf", "oneOf"] {
        if let Some(union) = object.get(kw) {
            return compile_union(union, kw, nodes, path);
        }
    }
    if let Some(Value::Array(types)) = object.get("type") {
        let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
        if let [a, b] = names[..]
            && types.len() == 2
            && (a == "null") != (b == "null")
        {
            let mut inner = object.clone();
            inner.insert("type".into(), Value::from(if a == "null" { b } else { a }));
            let i = compile_node(&Value::Object(inner), nodes, path)?;
            nodes.push(Node::Nullable(i));
            return Ok(nodes.len() - 1);
        }
    }
    let kind = match object.get("type") {
        None => return Ok(0),
        Some(Value::String(t)) => t.as_str(),
        Some(other) => {
            return Err(format!("{path}: type {other} is outside the supported subset (one type name)").into());
        }
    };
    let node = match kind {
        "string" => Node::String { max: count(object, "maxLength", path)? },
        "number" => Node::Number,
        "integer" => Node::Integer,
        "boolean" => Node::Boolean,
        "array" => {
            let items = match object.get("items") {
                Some(items) => compile_node(items, nodes, &format!("{path}[]"))?,
                None => 0,
            };
            let first = match object.get("prefixItems") {
                None => None,
                Some(Value::Array(list)) if list.len() == 1 => {
                    Some(compile_node(&list[0], nodes, &format!("{path}[0]"))?)
                }
                Some(_) => {
                    return Err(format!("{path}: prefixItems is supported with one schema (the first item's)").into());
                }
            };
            let (min, max) = (count(object, "minItems", path)?.unwrap_or(0), count(object, "maxItems", path)?);
            if max.is_some_and(|m| m < min) {
                return Err(format!("{path}: maxItems is below minItems").into());
            }
            Node::Array { items, first, min, max }
        }
        "object" => {
            let required: Vec<&str> = match object.get("required") {
                None => vec![],
                Some(Value::Array(list)) => list
                    .iter()
                    .map(|r| {
                        r.as_str()
                            .ok_or_else(|| SchemaError::from(format!("{path}: required must list property names")))
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(format!("{path}: required must be an array").into()),
            };
            let mut props = Vec::new();
            if let Some(declared) = object.get("properties") {
                let declared = declared.as_object().ok_or_else(|| format!("{path}: properties must be an object"))?;
                for (name, sub) in declared {
                    let node = compile_node(sub, nodes, &format!("{path}.{name}"))?;
                    props.push(Prop { name: name.clone(), node, required: required.contains(&name.as_str()) });
                }
            }
            if let Some(missing) = required.iter().find(|r| !props.iter().any(|p| p.name == **r)) {
                return Err(format!("{path}: required property \"{missing}\" is not declared in properties").into());
            }
            if props.len() > MAX_CHOICES {
                return Err(format!("{path}: at most {MAX_CHOICES} properties").into());
            }
            let closed = object.get("additionalProperties") == Some(&Value::Bool(false));
            Node::Object { free: props.is_empty() && !closed, props, closed }
        }
        other => return Err(format!("{path}: type \"{other}\" is outside the supported subset").into()),
    };
    nodes.push(node);
    Ok(nodes.len() - 1)
}

/// `schema` without its size bounds (`maxLength`, `minItems`, `maxItems`): what a step accepts from a model
/// that was asked for the bounded shape but does not decode under it (a remote endpoint may ignore bounds;
/// a longer text is still an answer).
pub fn without_bounds(schema: &Value) -> Value {
    match schema {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "maxLength" | "minItems" | "maxItems"))
                .map(|(k, v)| (k.clone(), if k == "enum" || k == "const" { v.clone() } else { without_bounds(v) }))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_bounds).collect()),
        other => other.clone(),
    }
}

/// A non-negative integer keyword (`maxLength`, `minItems`, `maxItems`).
fn count(object: &serde_json::Map<String, Value>, key: &str, path: &str) -> Result<Option<usize>, SchemaError> {
    match object.get(key) {
        None => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) => Ok(Some(n as usize)),
            None => Err(format!("{path}: {key} must be a non-negative integer, got {v}").into()),
        },
    }
}

/// `anyOf`/`oneOf`: objects with one property that is a `const` in every branch (the same name), each
/// constant different. The tag is moved to the front of each branch so the choice is made first.
fn compile_union(union: &Value, kw: &str, nodes: &mut Vec<Node>, path: &str) -> Result<usize, SchemaError> {
    let list =
        union.as_array().filter(|l| !l.is_empty()).ok_or_else(|| format!("{path}: {kw} must be a non-empty array"))?;
    let mut branches = Vec::new();
    for (i, b) in list.iter().enumerate() {
        let at = format!("{path}.{kw}[{i}]");
        let node = compile_node(b, nodes, &at)?;
        if !matches!(nodes[node], Node::Object { free: false, .. }) {
            return Err(format!("{at}: each branch of {kw} must be an object with declared properties").into());
        }
        branches.push(node);
    }
    let consts = |node: usize| -> Vec<(String, Value)> {
        match &nodes[node] {
            Node::Object { props, .. } => props
                .iter()
                .filter_map(|p| match &nodes[p.node] {
                    Node::Enum(v) if v.len() == 1 => Some((p.name.clone(), v[0].clone())),
                    _ => None,
                })
                .collect(),
            _ => vec![],
        }
    };
    let first = consts(branches[0]);
    let tag = first
        .iter()
        .map(|(name, _)| name.clone())
        .find(|name| {
            let values: Vec<Value> =
                branches.iter().filter_map(|&b| consts(b).into_iter().find(|(n, _)| n == name).map(|(_, v)| v)).collect();
            values.len() == branches.len() && values.iter().enumerate().all(|(i, v)| !values[..i].contains(v))
        })
        .ok_or_else(|| {
            format!("{path}: {kw} is supported only for objects told apart by a property that is a different const in each branch")
        })?;
    let mut options = Vec::new();
    for &b in &branches {
        let Node::Object { props, .. } = &mut nodes[b] else { continue };
        let i = props.iter().position(|p| p.name == tag).unwrap_or(0);
        let mut p = props.remove(i);
        p.required = true;
        props.insert(0, p.clone());
        if let Node::Enum(v) = &nodes[p.node] {
            options.push(v[0].clone());
        }
    }
    nodes.push(Node::Enum(options));
    let tag_node = nodes.len() - 1;
    nodes.push(Node::Union { props: vec![Prop { name: tag, node: tag_node, required: true }], branches });
    Ok(nodes.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn label_schema() -> Value {
        json!({"type": "object", "properties": {
            "label": {"enum": ["ASD", "HC"]},
            "confidence": {"type": "number"},
            "regions": {"type": "array", "items": {"type": "string"}}
        }, "required": ["label", "confidence"]})
    }

    #[test]
    fn validates_the_subset() {
        let s = Schema::compile(&label_schema()).unwrap();
        assert!(s.validate(&json!({"label": "HC", "confidence": 0.5})).is_ok());
        assert!(s.validate(&json!({"label": "HC", "confidence": 1, "regions": ["a"]})).is_ok());
        let e = s.validate(&json!({"label": "ADHD", "confidence": 0.5})).unwrap_err().to_string();
        assert!(e.contains("$.label") && e.contains("\"ASD\""), "{e}");
        let e = s.validate(&json!({"label": "HC"})).unwrap_err().to_string();
        assert!(e.contains("missing required property \"confidence\""), "{e}");
        let e = s.validate(&json!({"label": "HC", "confidence": 1, "regions": [3]})).unwrap_err().to_string();
        assert!(e.contains("$.regions[0]"), "{e}");
    }

    #[test]
    fn refuses_keywords_outside_the_subset() {
        let e = Schema::compile(&json!({"allOf": [{"type": "string"}]})).unwrap_err().to_string();
        assert!(e.contains("allOf"), "{e}");
        let e = Schema::compile(&json!({"oneOf": [{"type": "string"}]})).unwrap_err().to_string();
        assert!(e.contains("must be an object"), "{e}");
        let e = Schema::compile(&json!({"type": ["string", "number"]})).unwrap_err().to_string();
        assert!(e.contains("outside"), "{e}");
        let e = Schema::compile(&json!({"type": "object", "required": ["x"]})).unwrap_err().to_string();
        assert!(e.contains("\"x\""), "{e}");
    }
}
