//! Fast, lenient reading of instances: known fields straight into their types (numbers that arrive as
//! strings or null are accepted), unknown fields kept as JSON — without serde's buffering of flattened maps,
//! which made loading large collections several times slower.

use super::{Instance, MetricDetail};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;

/// A number that may arrive as a number, a numeric string, null, or anything else (read as 0).
struct Lenient(f64);

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lenient;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Lenient, E> {
                Ok(Lenient(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Lenient, E> {
                Ok(Lenient(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Lenient, E> {
                Ok(Lenient(v as f64))
            }
            fn visit_str<E>(self, v: &str) -> Result<Lenient, E> {
                Ok(Lenient(crate::bench::canonical::number(&Value::String(v.to_string())).unwrap_or(0.0)))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Lenient, E> {
                Ok(Lenient(0.0))
            }
            fn visit_unit<E>(self) -> Result<Lenient, E> {
                Ok(Lenient(0.0))
            }
            fn visit_none<E>(self) -> Result<Lenient, E> {
                Ok(Lenient(0.0))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Lenient, D::Error> {
                Lenient::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Lenient, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Lenient(0.0))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Lenient, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Lenient(0.0))
            }
        }
        d.deserialize_any(V)
    }
}

/// Text from a string, or the JSON text of anything else; null is `None`.
fn text(v: Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

fn strings(v: Value) -> Vec<String> {
    match v {
        Value::Array(items) => items.into_iter().filter_map(text).collect(),
        other => text(other).into_iter().collect(),
    }
}

fn object(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Default::default(),
    }
}

impl<'de> Deserialize<'de> for MetricDetail {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MetricDetail;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a metric detail object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MetricDetail, A::Error> {
                let mut m = MetricDetail::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match key.as_ref() {
                        "raw_score" => m.raw_score = map.next_value::<Lenient>()?.0,
                        "weighted_score" => m.weighted_score = map.next_value::<Lenient>()?.0,
                        "error" => m.error = text(map.next_value()?),
                        "evidence" => m.evidence = Some(map.next_value()?).filter(|v: &Value| !v.is_null()),
                        "metric_type" => m.metric_type = text(map.next_value()?),
                        "target_key" => m.target_key = text(map.next_value()?),
                        "weight" => m.weight = map.next_value()?,
                        _ => {
                            m.extra.insert(key.into_owned(), map.next_value()?);
                        }
                    }
                }
                Ok(m)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for Instance {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Instance;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an instance object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Instance, A::Error> {
                let mut i = Instance::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match key.as_ref() {
                        "instance_id" => i.instance_id = text(map.next_value()?).unwrap_or_default(),
                        "recording_id" => i.recording_id = map.next_value()?,
                        "case_id" => i.case_id = map.next_value()?,
                        "bench_subset" => i.bench_subset = text(map.next_value()?),
                        "difficulty" => i.difficulty = map.next_value()?,
                        "source_json" => i.source_json = text(map.next_value()?),
                        "total_score" => i.total_score = map.next_value::<Lenient>()?.0,
                        "max_score" => i.max_score = map.next_value::<Lenient>()?.0,
                        "vrr" => i.vrr = map.next_value::<Lenient>()?.0,
                        "metric_details" => {
                            i.metric_details = map
                                .next_value::<Option<indexmap::IndexMap<String, MetricDetail>>>()
                                .map_err(|e| de::Error::custom(format!("metric_details: {e}")))?
                                .unwrap_or_default()
                        }
                        "agent_output" => i.agent_output = map.next_value()?,
                        "parser_output" => i.parser_output = map.next_value()?,
                        "artifact_manifest" => i.artifact_manifest = map.next_value()?,
                        "sandbox" => i.sandbox = map.next_value()?,
                        "token_usage" => i.token_usage = object(map.next_value()?),
                        "timing_sec" => i.timing_sec = object(map.next_value()?),
                        "started_at" => i.started_at = map.next_value()?,
                        "finished_at" => i.finished_at = map.next_value()?,
                        "errors" => i.errors = strings(map.next_value()?),
                        _ => {
                            i.extra.insert(key.into_owned(), map.next_value()?);
                        }
                    }
                }
                Ok(i)
            }
        }
        d.deserialize_map(V)
    }
}

/// Where a streamed read hands each instance as it is read; an `Err` stops the read with that message.
type Sink<'s> = &'s mut dyn FnMut(Instance) -> Result<(), String>;

/// What a result object's `instances` list is given to, element by element.
pub trait InstanceList<'de> {
    fn read<A: SeqAccess<'de>>(&mut self, seq: A) -> Result<(), A::Error>;
}

/// Each instance parsed and handed to the sink as soon as it is read.
impl<'de> InstanceList<'de> for Sink<'_> {
    fn read<A: SeqAccess<'de>>(&mut self, mut seq: A) -> Result<(), A::Error> {
        while let Some(inst) = seq.next_element::<Instance>()? {
            (self)(inst).map_err(de::Error::custom)?;
        }
        Ok(())
    }
}

/// Each instance located (its byte range in the text, which starts at `base`) but not parsed, so that the
/// instances can be parsed later on several threads.
pub struct Located {
    pub base: usize,
    pub spans: Vec<std::ops::Range<usize>>,
}

impl<'de> InstanceList<'de> for Located {
    fn read<A: SeqAccess<'de>>(&mut self, mut seq: A) -> Result<(), A::Error> {
        while let Some(raw) = seq.next_element::<&'de serde_json::value::RawValue>()? {
            let start = raw.get().as_ptr() as usize - self.base;
            self.spans.push(start..start + raw.get().len());
        }
        Ok(())
    }
}

/// Reads a result object, giving the instances to `L` instead of keeping them: the returned file's
/// `instances` is empty.
pub struct Streamed<L>(pub L);

impl<'de, L: InstanceList<'de>> de::DeserializeSeed<'de> for Streamed<L> {
    type Value = (super::ResultFile, L);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        struct V<L>(L);
        impl<'de, L: InstanceList<'de>> Visitor<'de> for V<L> {
            type Value = (super::ResultFile, L);
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a result object (experiment, instances, summary)")
            }
            fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut r = super::ResultFile::default();
                let mut has_instances = false;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match key.as_ref() {
                        "experiment" => r.experiment = object(map.next_value()?),
                        "summary" => r.summary = object(map.next_value()?),
                        "instances" => {
                            has_instances = true;
                            map.next_value_seed(Instances(&mut self.0))?;
                        }
                        _ => {
                            r.extra.insert(key.into_owned(), map.next_value()?);
                        }
                    }
                }
                if !has_instances {
                    return Err(de::Error::custom("no 'instances' list"));
                }
                Ok((r, self.0))
            }
        }
        d.deserialize_map(V(self.0))
    }
}

/// The `instances` list, given to the `InstanceList`.
struct Instances<'l, L>(&'l mut L);

impl<'de, L: InstanceList<'de>> de::DeserializeSeed<'de> for Instances<'_, L> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        struct V<'l, L>(&'l mut L);
        impl<'de, L: InstanceList<'de>> Visitor<'de> for V<'_, L> {
            type Value = ();
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of instances")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
                self.0.read(seq)
            }
        }
        d.deserialize_seq(V(self.0))
    }
}

impl<'de> Deserialize<'de> for super::ResultFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut instances = Vec::new();
        let sink: Sink = &mut |i| {
            instances.push(i);
            Ok(())
        };
        let (mut file, _) = de::DeserializeSeed::deserialize(Streamed(sink), d)?;
        file.instances = instances;
        Ok(file)
    }
}
