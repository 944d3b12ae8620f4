//! Typed forms: the elicitation schema of a form type (a flat object of primitive, enum and
//! string-format fields), or why it cannot be one, and its validator; made once per type.
//! `Elicitation::form_for` (`request`) sends the schema; `Inputs::form` (`inputs`) checks an
//! answer against it.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use schemars::JsonSchema;
use serde_json::{Map, Value, json};

/// A form type's elicitation schema (or why it has none) and its validator; made once per type.
pub(super) struct Form {
    pub(super) schema: Result<Value, String>,
    pub(super) validator: Option<jsonschema::Validator>,
}

pub(super) fn form_of<T: JsonSchema + 'static>() -> Arc<Form> {
    static FORMS: OnceLock<Mutex<HashMap<TypeId, Arc<Form>>>> = OnceLock::new();
    let forms = FORMS.get_or_init(Mutex::default);
    if let Some(form) = forms.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&TypeId::of::<T>()) {
        return Arc::clone(form);
    }
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    let root = settings.into_generator().into_root_schema_for::<T>();
    let schema = elicitation_schema(root.as_value())
        .map_err(|why| format!("`{}` cannot be an elicitation form: {why}", std::any::type_name::<T>()));
    let validator = schema.as_ref().ok().and_then(|s| crate::schema::generate::compile(s).ok());
    let form = Arc::new(Form { schema, validator });
    forms.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(TypeId::of::<T>(), Arc::clone(&form));
    form
}

/// A derived schema restricted to what elicitation allows: a flat object whose properties
/// are strings (with `format` email, uri, date or date-time), numbers, integers, booleans,
/// single-select enums (`enum`, or `oneOf` of `const`/`title`) and multi-select enums
/// (arrays of those). `Option<T>` fields are optional `T`.
pub(crate) fn elicitation_schema(root: &Value) -> Result<Value, String> {
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the form must be a struct with named fields".into());
    }
    let Some(properties) = root.get("properties").and_then(Value::as_object) else {
        return Err("the form must be a struct with named fields".into());
    };
    let mut out = Map::new();
    for (name, schema) in properties {
        out.insert(name.clone(), property(schema).map_err(|why| format!("field `{name}` {why}"))?);
    }
    let mut form = json!({"type": "object", "properties": out});
    if let Some(required) = root.get("required").filter(|r| r.as_array().is_some_and(|a| !a.is_empty())) {
        form["required"] = required.clone();
    }
    Ok(form)
}

/// One property of a form, or why elicitation cannot show it.
fn property(schema: &Value) -> Result<Value, String> {
    // `Option<T>`: `anyOf: [T, {type: null}]` or `type: [t, "null"]`.
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let non_null: Vec<&Value> =
            any.iter().filter(|s| s.get("type").and_then(Value::as_str) != Some("null")).collect();
        if let [only] = non_null[..] {
            let mut inner = property(only)?;
            for key in ["title", "description", "default"] {
                if let Some(v) = schema.get(key) {
                    inner[key] = v.clone();
                }
            }
            return Ok(inner);
        }
        return Err("is a union; use a unit-variant enum".into());
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => {
            let non_null: Vec<&str> = types.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
            match non_null[..] {
                [only] => only,
                _ => return Err("has more than one type".into()),
            }
        }
        _ if schema.get("oneOf").is_some() => "string",
        _ => return Err("has no primitive type (nested structs, maps and unions are not allowed)".into()),
    };
    let mut out = Map::new();
    out.insert("type".into(), kind.into());
    let copy = |out: &mut Map<String, Value>, keys: &[&str]| {
        for key in keys {
            if let Some(v) = schema.get(*key) {
                out.insert((*key).to_owned(), v.clone());
            }
        }
    };
    copy(&mut out, &["title", "description", "default"]);
    match kind {
        "string" => {
            copy(&mut out, &["minLength", "maxLength", "enum", "enumNames"]);
            if let Some(format) = schema.get("format").and_then(Value::as_str) {
                if !["email", "uri", "date", "date-time"].contains(&format) {
                    return Err(format!(
                        "has string format `{format}`; elicitation allows email, uri, date, date-time"
                    ));
                }
                out.insert("format".into(), format.into());
            }
            if let Some(one_of) = schema.get("oneOf") {
                out.insert("oneOf".into(), titled(one_of)?);
            }
        }
        "number" | "integer" => copy(&mut out, &["minimum", "maximum"]),
        "boolean" => {}
        "array" => {
            copy(&mut out, &["minItems", "maxItems"]);
            let items = schema.get("items").ok_or("is a list without an item type")?;
            if let Some(values) = items.get("enum") {
                out.insert("items".into(), json!({"type": "string", "enum": values}));
            } else if let Some(choices) = items.get("anyOf").or_else(|| items.get("oneOf")) {
                out.insert("items".into(), json!({"anyOf": titled(choices)?}));
            } else {
                return Err("is a list of something other than a unit-variant enum".into());
            }
        }
        other => {
            return Err(format!(
                "has type `{other}`; elicitation allows string, number, integer, boolean and enum lists"
            ));
        }
    }
    Ok(Value::Object(out))
}

/// `oneOf`/`anyOf` choices as `{const, title}`.
fn titled(choices: &Value) -> Result<Value, String> {
    let choices = choices.as_array().ok_or("has malformed choices")?;
    choices
        .iter()
        .map(|c| {
            let value = c
                .get("const")
                .or_else(|| c.get("enum").and_then(|e| e.get(0)))
                .ok_or("has a choice that is not a unit variant")?;
            let title = c.get("title").or_else(|| c.get("description")).cloned().unwrap_or_else(|| value.clone());
            Ok(json!({"const": value, "title": title}))
        })
        .collect::<Result<Vec<_>, String>>()
        .map(Value::Array)
}
