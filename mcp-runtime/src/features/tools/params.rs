//! Plain parameters (`fn add(a: i64, b: Option<i64>)`): `#[tool]` writes one [`Param`] per
//! parameter into a static table (`ToolDef::PARAMS`), and the code here, generic over each
//! parameter's type, makes the input schema of that table and reads the arguments by it.
//!
//! It does what a `#[derive(Deserialize, JsonSchema)]` arguments struct did, to the byte, at a
//! fraction of the code per tool: the schema is the object schemars' derive wrote (a property
//! per parameter with its doc as `description`, `required` for those that are neither
//! `Option` nor `#[serde(default)]`, `additionalProperties: false` unless
//! `allow_unknown_args`), and the arguments are read as serde's derive read them (keys in the
//! order they came, the first failure reported, a missing `Option` read as `None`).

use std::sync::Arc;

use mcp_core::ToolError;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, DeserializeOwned, Visitor};
use serde_json::{Map, Value};

use crate::schema::validate::{self, Seg};

/// One plain parameter of a tool, as constant data.
pub struct Param {
    /// The property's name: the parameter's, or its `#[serde(rename = "..")]`.
    pub name: &'static str,
    /// The parameter's doc comment, as schemars reads it (lines joined by `\n`).
    pub doc: Option<&'static str>,
    /// The parameter's type, as the schema sees it.
    pub ty: ParamType,
    /// `#[serde(default)]` (or `default = ".."`): the property is not required, and its
    /// schema shows the default when `T` is `Serialize` (this function's value).
    pub default: Option<fn() -> Option<Value>>,
}

/// What the schema needs of a parameter's type `T`: one value, so that a type without
/// `JsonSchema` is one error at the type.
#[derive(Clone, Copy)]
pub struct ParamType {
    schema: fn(&mut SchemaGenerator) -> Schema,
    is_option: fn() -> bool,
}

impl ParamType {
    /// Parameter type `T`.
    #[must_use]
    pub const fn of<T: JsonSchema>() -> Self {
        ParamType { schema: SchemaGenerator::subschema_for::<T>, is_option: T::_schemars_private_is_option }
    }
}

/// The input schema of plain parameters `params`, as schemars' derive writes the schema of
/// an arguments struct with a field per parameter (`deny_unknown_fields` unless
/// `allow_unknown_args`).
pub(crate) fn object_schema(params: &[Param], deny_unknown: bool, generator: &mut SchemaGenerator) -> Schema {
    let mut root = Map::new();
    root.insert("type".into(), "object".into());
    if deny_unknown {
        root.insert("additionalProperties".into(), false.into());
    }
    let deserialize = generator.contract().is_deserialize();
    let mut properties = Map::new();
    let mut required = None::<Vec<Value>>;
    for param in params {
        let mut property = (param.ty.schema)(generator);
        if let Some(doc) = param.doc {
            let (title, description) = title_and_description(doc);
            for (key, value) in [("title", title), ("description", description)] {
                if !value.is_empty() {
                    property.insert(key.into(), value.into());
                }
            }
        }
        if let Some(default) = param.default.and_then(|f| f()) {
            property.insert("default".into(), default);
        }
        properties.insert(param.name.into(), property.into());
        let optional = deserialize && (param.default.is_some() || (param.ty.is_option)());
        if !optional {
            required.get_or_insert_default().push(param.name.into());
        }
    }
    if !params.is_empty() {
        root.insert("properties".into(), Value::Object(properties));
    }
    if let Some(required) = required {
        root.insert("required".into(), Value::Array(required));
    }
    Schema::from(root)
}

/// A doc comment as schemars splits it: a first line starting with `#` is the title, the rest
/// the description (schemars' `get_title_and_description`).
fn title_and_description(doc: &str) -> (&str, &str) {
    let doc = doc.trim_ascii();
    match doc.strip_prefix('#') {
        Some(_) => {
            let end = doc.find('\n').unwrap_or(doc.len());
            (doc[..end].trim_start_matches('#').trim_ascii(), doc[end..].trim_ascii())
        }
        None => ("", doc),
    }
}

/// Reads a call's plain parameters, one at a time, in the order of the table; remembers the
/// failure serde's derive would have reported first.
pub struct Reader {
    tool: &'static str,
    value: Arc<Value>,
    params: &'static [Param],
    /// The first failure in the order serde's derive met them: a key's position among the
    /// arguments, or (for a missing one) after them all; and where serde stopped.
    failed: Option<(usize, Vec<Seg>)>,
}

impl Reader {
    pub(crate) fn new(tool: &'static str, value: Arc<Value>, params: &'static [Param], deny_unknown: bool) -> Self {
        let mut reader = Reader { tool, value, params, failed: None };
        match &*reader.value {
            Value::Object(map) if deny_unknown => {
                // `deny_unknown_fields`: the first key of no parameter is refused there.
                if let Some((at, key)) = map.keys().enumerate().find(|(_, k)| !params.iter().any(|p| p.name == *k)) {
                    reader.failed = Some((at, vec![Seg::Key(key.clone())]));
                }
            }
            Value::Object(_) => {}
            // Not an object (the schema refuses it before): serde fails at the root.
            _ => reader.failed = Some((0, Vec::new())),
        }
        reader
    }

    /// Parameter `i` of the table; `None` if it cannot be read (see [`Reader::failure`]).
    pub fn read<T: DeserializeOwned>(&mut self, i: usize) -> Option<T> {
        self.read_with(i, None)
    }

    /// Parameter `i`, `#[serde(default)]`: `default()` when absent.
    pub fn read_or<T: DeserializeOwned>(&mut self, i: usize, default: fn() -> T) -> Option<T> {
        self.read_with(i, Some(default))
    }

    fn read_with<T: DeserializeOwned>(&mut self, i: usize, default: Option<fn() -> T>) -> Option<T> {
        let Value::Object(map) = &*self.value else { return None };
        let name = self.params[i].name;
        let failed = if map.contains_key(name) {
            match validate::deserialize_property(&self.value, Some(name)) {
                Ok(value) => return Some(value),
                Err(path) => (map.keys().position(|k| k == name).unwrap_or(0), path),
            }
        } else if let Some(default) = default {
            return Some(default());
        } else {
            // As serde's derive: an absent `Option` is `None`, anything else is missing.
            match T::deserialize(Missing(name)) {
                Ok(value) => return Some(value),
                Err(_) => (map.len() + i, Vec::new()),
            }
        };
        if self.failed.as_ref().is_none_or(|(at, _)| failed.0 < *at) {
            self.failed = Some(failed);
        }
        None
    }

    /// Why the arguments cannot be read: the `invalid_arguments` failure of the first
    /// parameter that could not, or of an unknown key.
    #[must_use]
    pub fn failure(self) -> ToolError {
        let path = self.failed.map(|(_, path)| path).unwrap_or_default();
        validate::deserialize_failure(self.tool, path)
    }
}

/// An absent property, as serde's derive reads it: `None` for an `Option`, else
/// "missing field".
struct Missing(&'static str);

impl<'de> de::Deserializer<'de> for Missing {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, serde_json::Error> {
        Err(de::Error::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::title_and_description;

    #[test]
    fn doc_comments_split_as_schemars_splits_them() {
        for doc in ["", "The first addend.", "# Title\nAnd more.", "  #  Title  ", "## T\n\n x \n", "a # b\nc"] {
            assert_eq!(title_and_description(doc), schemars::_private::get_title_and_description(doc), "{doc:?}");
        }
    }
}
