use super::*;
use serde_json::{Value, json};

fn grammar(schema: Value) -> Grammar {
    Grammar::new(Schema::compile(&schema).unwrap())
}

fn accepts(g: &Grammar, text: &str) -> bool {
    let mut s = g.start();
    g.feed_all(&mut s, text.as_bytes()) && g.accepts_end(&s)
}

fn tool_schema() -> Value {
    json!({"type": "object", "properties": {
        "tool": {"enum": ["retrieve_knowledge", "retrieve_case", "degree"]},
        "arguments": {"type": "object", "properties": {
            "query": {"type": "string"},
            "regions_q": {"type": "array", "items": {"type": "string"}},
            "k": {"type": "integer"},
            "weighted": {"type": "boolean"}
        }, "required": ["query"]},
        "score": {"type": "number"},
        "extra": {}
    }, "required": ["tool", "arguments"]})
}

#[test]
fn forced_bytes_are_the_only_continuation() {
    let g = grammar(json!({"type": "object", "properties": {
        "label": {"enum": ["sub-100206", "sub-100307"]},
        "note": {"type": "string"},
        "k": {"type": "integer"}
    }, "required": ["label", "note", "k"]}));
    let mut s = g.start();
    // After a `:` the model chooses: the value or one space first.
    assert_eq!(g.forced(&s, 64), br#"{"label":"#.to_vec());
    assert!(g.feed_all(&mut s, br#"{"label":"#));
    assert!(g.forced(&s, 64).is_empty(), "a space or the value");
    assert!(g.feed_all(&mut s, b" "));
    assert_eq!(g.forced(&s, 64), br#""sub-100"#.to_vec(), "one space only");
    assert!(g.feed_all(&mut s, br#""sub-100"#));
    assert!(g.forced(&s, 64).is_empty(), "two labels remain");
    assert!(g.feed_all(&mut s, b"3"));
    assert_eq!(g.forced(&s, 64), br#"07","#.to_vec());
    assert_eq!(g.forced(&s, 3), b"07\"".to_vec());
    assert!(g.feed_all(&mut s, br#"07","note":"x"#));
    assert!(g.forced(&s, 64).is_empty(), "inside a free string");
    assert!(g.feed_all(&mut s, br#"","k":1"#));
    assert!(g.forced(&s, 64).is_empty(), "more digits or the end");
}

#[test]
fn accepts_exactly_the_valid_texts() {
    let g = grammar(tool_schema());
    for ok in [
        r#"{"tool":"degree","arguments":{"query":"hubs"}}"#,
        r#"{"tool":"retrieve_case","arguments":{"query":"a \"q\" \u00e9 é","regions_q":["Precuneus_L",""],"k":-12,"weighted":false},"score":-0.5e+3}"#,
        r#"{"tool":"degree","arguments":{"query":""},"extra":{"a":[1,true,null,{"b":"c"}]}}"#,
        // One space after a `:` or a `,`, as models write JSON.
        r#"{"tool": "degree", "arguments": {"query": "x", "regions_q": ["a", "b"]}, "extra": {"a": [1, null]}}"#,
    ] {
        assert!(accepts(&g, ok), "{ok}");
        let v: Value = serde_json::from_str(ok).unwrap();
        g.schema().validate(&v).unwrap();
    }
    for bad in [
        r#"{"tool":"degre","arguments":{"query":"x"}}"#,
        r#"{"tool":"degree","arguments":{"regions_t":["x"]}}"#,
        r#"{"tool":"degree"}"#,
        r#"{"arguments":{"query":"x"},"tool":"degree"}"#,
        r#"{"tool":"degree","arguments":{"query":"x","k":1.5}}"#,
        r#"{"tool":"degree","arguments":{"query":"x"}} "#,
        r#"{"tool":"degree","arguments":{"query":"x"},"score":01}"#,
        "{\"tool\":\"degree\",\"arguments\":{\"query\":\"a\nb\"}}",
        r#"{"tool":  "degree","arguments":{"query":"x"}}"#,
        r#"{"tool" :"degree","arguments":{"query":"x"}}"#,
        r#"{"tool":"degree" ,"arguments":{"query":"x"}}"#,
        r#"{ "tool":"degree","arguments":{"query":"x"}}"#,
        r#" {"tool":"degree","arguments":{"query":"x"}}"#,
        r#"{"tool":"degree","arguments":{"query":"x","regions_q":[ "a"]}}"#,
        r#"{"tool":"degree","arguments":{"query":"x"} }"#,
        "{\"tool\":\n\"degree\",\"arguments\":{\"query\":\"x\"}}",
    ] {
        assert!(!accepts(&g, bad), "{bad}");
    }
}

#[test]
fn every_prefix_completes_to_a_valid_value() {
    let g = grammar(tool_schema());
    let text = r#"{"tool":"retrieve_case","arguments":{"query":"a \"q\" \u00e9 é","regions_q":["P",""],"k":-12,"weighted":false},"score":-0.5e+3,"extra":{"a":[1,true,null,{"b":"c"}]}}"#;
    let mut s = g.start();
    for (i, &b) in text.as_bytes().iter().enumerate() {
        assert!(g.feed(&mut s, b), "byte {i}");
        let mut done = text.as_bytes()[..=i].to_vec();
        done.extend(g.completion(&s));
        let v: Value =
            serde_json::from_slice(&done).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(&done)));
        g.schema().validate(&v).unwrap();
        assert!(accepts(&g, std::str::from_utf8(&done).unwrap()));
    }
    assert!(s.finished());
}

#[test]
fn enum_numbers_with_shared_prefixes() {
    let g = grammar(json!({"type": "array", "items": {"enum": [1, 10, "a"]}}));
    assert!(accepts(&g, r#"[1,10,"a",1]"#));
    assert!(!accepts(&g, "[100]"));
    assert!(!accepts(&g, "[1"));
    assert_eq!(g.completion(&g.start()), b"[]");
    let g = grammar(json!({"type": "integer"}));
    assert!(accepts(&g, "-7") && !accepts(&g, "-") && !accepts(&g, "7.0"));
}

fn union_schema() -> Value {
    json!({"type": "object", "properties": {"steps": {"type": "array", "items": {"anyOf": [
        {"type": "object", "properties": {
            "args": {"type": "object", "properties": {"view": {"enum": ["v1", "v2", "$1"]}, "lo": {"type": "number"}},
                     "required": ["view", "lo"], "additionalProperties": false},
            "tool": {"const": "band_power"}}, "required": ["tool", "args"]},
        {"type": "object", "properties": {"tool": {"const": "load_hypnogram"},
            "args": {"type": "object", "properties": {"path": {"enum": (0..100).map(|i| format!("data/s{i}.csv")).collect::<Vec<_>>()}},
                     "required": ["path"], "additionalProperties": false}}, "required": ["tool", "args"]},
        {"type": "object", "properties": {"tool": {"const": "rereference"}, "args": {"type": "object", "properties": {}, "additionalProperties": false}},
         "required": ["tool"]}
    ]}}}, "required": ["steps"]})
}

#[test]
fn unions_take_each_branch_with_its_own_arguments() {
    let g = grammar(union_schema());
    for ok in [
        r#"{"steps":[]}"#,
        r#"{"steps":[{"tool":"band_power","args":{"view":"v2","lo":8}},{"tool":"load_hypnogram","args":{"path":"data/s57.csv"}}]}"#,
        r#"{"steps":[{"tool":"rereference","args":{}},{"tool":"rereference"}]}"#,
    ] {
        assert!(accepts(&g, ok), "{ok}");
        g.schema().validate(&serde_json::from_str(ok).unwrap()).unwrap();
    }
    for bad in [
        r#"{"steps":[{"tool":"band_power","args":{"path":"data/s1.csv"}}]}"#,
        r#"{"steps":[{"tool":"load_hypnogram","args":{"view":"v1","lo":1}}]}"#,
        r#"{"steps":[{"tool":"band_power","args":{"view":"v3","lo":8}}]}"#,
        r#"{"steps":[{"tool":"load_hypnogram","args":{"path":"data/s100.csv"}}]}"#,
        r#"{"steps":[{"args":{"view":"v1","lo":1},"tool":"band_power"}]}"#,
        r#"{"steps":[{"tool":"filter","args":{}}]}"#,
    ] {
        assert!(!accepts(&g, bad), "{bad}");
        if let Ok(v) = serde_json::from_str::<Value>(bad) {
            assert!(g.schema().validate(&v).is_err() || bad.contains(r#""args":{"view":"v1","lo":1},"tool""#), "{bad}");
        }
    }
    let e = Schema::compile(&json!({"anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}))
        .unwrap_err()
        .to_string();
    assert!(e.contains("const"), "{e}");
}

fn bounded_schema() -> Value {
    json!({"type": "object", "properties": {
        "claims": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "object", "properties": {
            "claim": {"type": "string", "maxLength": 5},
            "evidence": {"type": "array", "maxItems": 1, "items": {"enum": ["G:a", "R:b"]}}
        }, "required": ["claim", "evidence"]}},
        "none": {"type": "array", "maxItems": 0, "items": {"type": "string"}}
    }, "required": ["claims"]})
}

#[test]
fn lengths_and_item_counts_are_bounded() {
    let g = grammar(bounded_schema());
    for ok in [
        r#"{"claims":[{"claim":"abcde","evidence":[]}]}"#,
        r#"{"claims":[{"claim":"é\"x\u00e9","evidence":["G:a"]},{"claim":"","evidence":[]}],"none":[]}"#,
    ] {
        assert!(accepts(&g, ok), "{ok}");
        g.schema().validate(&serde_json::from_str(ok).unwrap()).unwrap();
    }
    for bad in [
        r#"{"claims":[]}"#,
        r#"{"claims":[{"claim":"abcdef","evidence":[]}]}"#,
        r#"{"claims":[{"claim":"a","evidence":["G:a","R:b"]}]}"#,
        r#"{"claims":[{"claim":"a","evidence":[]},{"claim":"b","evidence":[]},{"claim":"c","evidence":[]}]}"#,
        r#"{"claims":[{"claim":"a","evidence":[]}],"none":["x"]}"#,
    ] {
        assert!(!accepts(&g, bad), "{bad}");
        assert!(g.schema().validate(&serde_json::from_str(bad).unwrap()).is_err(), "{bad}");
    }
    // The completion of an empty start fills the one required claim.
    let done = g.completion(&g.start());
    g.schema().validate(&serde_json::from_slice(&done).unwrap()).unwrap();
    // Far from its bound a string is keyed like an unbounded one; near it, by what is left.
    let mut s = g.start();
    assert!(g.feed_all(&mut s, br#"{"claims":[{"claim":""#));
    let far = g.mask_key(&s, 3);
    assert!(g.feed_all(&mut s, b"abc"));
    assert_ne!(g.mask_key(&s, 3), far);
    assert!(g.feed_all(&mut s, b"de") && !g.feed(&mut s.clone(), b'f') && g.feed(&mut s, b'"'));
}

/// Property: random walks through the grammar (a random allowed byte at each step, then the completion)
/// always end in a text that parses and validates.
#[test]
fn every_random_walk_validates() {
    let mut seed = 7u64;
    for schema in [union_schema(), tool_schema(), bounded_schema()] {
        let g = grammar(schema);
        for _ in 0..300 {
            let mut s = g.start();
            let mut text = Vec::new();
            let steps = (crate::util::rng::splitmix64(&mut seed) % 120) as usize;
            for _ in 0..steps {
                let allowed: Vec<u8> = (0x20u8..0x7f).filter(|&b| g.feed(&mut s.clone(), b)).collect();
                if allowed.is_empty() {
                    break;
                }
                let b = allowed[(crate::util::rng::splitmix64(&mut seed) % allowed.len() as u64) as usize];
                assert!(g.feed(&mut s, b));
                text.push(b);
            }
            text.extend(g.completion(&s));
            // JSON allows exponents that overflow an f64; serde_json refuses those, which is not a grammar fault.
            let v: Value = match serde_json::from_slice(&text) {
                Ok(v) => v,
                Err(e) if e.to_string().contains("number out of range") => continue,
                Err(e) => panic!("{}: {e}", String::from_utf8_lossy(&text)),
            };
            g.schema().validate(&v).unwrap_or_else(|e| panic!("{}: {e}", String::from_utf8_lossy(&text)));
        }
    }
}

#[test]
fn nullable_values() {
    let g = grammar(json!({"type": "object", "properties": {
        "x": {"type": ["number", "null"]}, "tags": {"type": ["array", "null"], "items": {"type": "string"}}},
        "required": ["x", "tags"]}));
    for ok in [r#"{"x":null,"tags":null}"#, r#"{"x":1.5,"tags":["a"]}"#, r#"{"x":-2,"tags":[]}"#] {
        assert!(accepts(&g, ok), "{ok}");
        g.schema().validate(&serde_json::from_str(ok).unwrap()).unwrap();
    }
    for bad in [r#"{"x":nul,"tags":null}"#, r#"{"x":"1","tags":null}"#, r#"{"x":true,"tags":null}"#] {
        assert!(!accepts(&g, bad), "{bad}");
    }
    // Out of budget, a nullable value closes as null: nothing is invented.
    assert_eq!(g.completion(&g.start()), br#"{"x":null,"tags":null}"#);
}

/// `prefixItems` with one schema types the first item apart from the rest (a plan's first step must run
/// now; later ones may name earlier steps' outputs), in the grammar and in validation alike.
#[test]
fn the_first_item_can_have_its_own_schema() {
    let schema = json!({"type": "array", "prefixItems": [{"enum": ["now"]}], "items": {"enum": ["now", "later"]},
        "minItems": 1, "maxItems": 3});
    let g = grammar(schema.clone());
    for ok in [r#"["now"]"#, r#"["now","later"]"#, r#"["now","now","later"]"#] {
        assert!(accepts(&g, ok), "{ok}");
        assert!(g.schema().validate(&serde_json::from_str(ok).unwrap()).is_ok(), "{ok}");
    }
    for bad in [r#"["later"]"#, r#"["later","now"]"#, "[]"] {
        assert!(!accepts(&g, bad), "{bad}");
        assert!(g.schema().validate(&serde_json::from_str(bad).unwrap()).is_err(), "{bad}");
    }
    // The only way to start is the first item's schema: its text is forced.
    let s = g.start();
    assert_eq!(g.forced(&s, 64), br#"["now""#.to_vec());
    let two = json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]});
    assert!(Schema::compile(&two).is_err(), "one leading schema only");
}
