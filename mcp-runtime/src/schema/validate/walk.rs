//! The schema as listed and the failing value, read together ([`Walk`]): each validator
//! error becomes the issues it stands for (`$ref`s resolved, an enum in disguise named by
//! its values, a tagged union resolved by its tag, an untagged one read as its closest
//! shape), then the issues are put in the schema's property order and repeats dropped.
//! Called by the entry points of `validate`; the texts come from `words` and `unknown`.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::Location;
use serde_json::{Map, Value};

use super::issue::{Hint, Issue, Seg};
use super::unknown::{TagScope, unknown_keys};
use super::words::{alternatives, bounds, choice, expected_types, has_type, keyword_hint, keyword_text, type_issue};

/// The values an enum-like schema takes: an `enum`, a `const`, or a union whose every
/// branch is one of those (schemars' form of an enum with documented variants).
struct Choices<'s> {
    values: Vec<&'s Value>,
    /// The JSON types the branches name (empty: not known).
    types: Vec<&'s str>,
}

/// How one tagged union is told apart: the property every branch pins to a value.
pub(super) struct Tagged<'s> {
    pub(super) property: &'s str,
    pub(super) tags: Vec<&'s Value>,
}

/// For each argument object (by address), its keys' positions as sent.
type SentOrder<'s> = HashMap<*const Map<String, Value>, HashMap<&'s str, usize>>;

/// The schema as listed and the arguments, read together.
pub(super) struct Walk<'s> {
    root: &'s Value,
    args: &'s Value,
    /// Each object's keys by their position as sent, built when first needed (an
    /// argument object may have very many keys).
    sent_order: RefCell<SentOrder<'s>>,
    /// Objects (and the schema that refused them) whose keys were all reported unknown.
    expanded: RefCell<HashSet<(Vec<Seg>, String)>>,
}

impl<'s> Walk<'s> {
    pub(super) fn new(root: &'s Value, args: &'s Value) -> Self {
        Walk { root, args, sent_order: RefCell::default(), expanded: RefCell::default() }
    }

    /// Where `key` was sent in `object` (after every key when it was not).
    fn sent_position(&self, object: &'s Map<String, Value>, key: &str) -> usize {
        let mut cache = self.sent_order.borrow_mut();
        let positions = cache
            .entry(std::ptr::from_ref(object))
            .or_insert_with(|| object.keys().enumerate().map(|(i, k)| (k.as_str(), i)).collect());
        positions.get(key).copied().unwrap_or(usize::MAX)
    }

    /// Follows local `$ref`s (bounded, so a cycle cannot hang).
    pub(super) fn resolve(&self, mut node: &'s Value) -> &'s Value {
        for _ in 0..32 {
            let target = node
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|pointer| self.root.pointer(pointer));
            match target {
                Some(t) => node = t,
                None => break,
            }
        }
        node
    }

    /// The schema a keyword belongs to, from the keyword's canonical location.
    fn node_of(&self, keyword_location: &Location) -> Option<&'s Value> {
        let pointer = keyword_location.as_str();
        let parent = &pointer[..pointer.rfind('/').unwrap_or(0)];
        self.root.pointer(parent)
    }

    /// The instance path of an error, with array indices told apart from keys by the
    /// arguments themselves.
    fn path_of(&self, location: &Location) -> Vec<Seg> {
        let mut at = Some(self.args);
        let mut path = Vec::new();
        for raw in location.as_str().split('/').skip(1) {
            let raw = raw.replace("~1", "/").replace("~0", "~");
            let seg = match (at, raw.parse::<usize>()) {
                (Some(Value::Array(_)), Ok(i)) => Seg::Index(i),
                _ => Seg::Key(raw),
            };
            at = at.and_then(|v| match &seg {
                Seg::Index(i) => v.get(*i),
                Seg::Key(k) => v.get(k),
            });
            path.push(seg);
        }
        path
    }

    pub(super) fn instance_at(&self, path: &[Seg]) -> Option<&'s Value> {
        path.iter().try_fold(self.args, |v, seg| match seg {
            Seg::Index(i) => v.get(*i),
            Seg::Key(k) => v.get(k),
        })
    }

    pub(super) fn union_of(&self, node: &'s Value) -> Option<&'s [Value]> {
        let node = self.resolve(node);
        node.get("oneOf").or_else(|| node.get("anyOf")).and_then(Value::as_array).map(Vec::as_slice)
    }

    /// `Some` when every branch pins the same property to a value of its own.
    pub(super) fn tagged(&self, branches: &'s [Value]) -> Option<Tagged<'s>> {
        let first = self.resolve(branches.first()?);
        first.get("properties")?.as_object()?.keys().find_map(|property| {
            let tags: Vec<&Value> = branches.iter().map(|b| self.pinned(b, property)).collect::<Option<_>>()?;
            let distinct = tags.iter().enumerate().all(|(i, t)| !tags[..i].contains(t));
            distinct.then_some(Tagged { property, tags })
        })
    }

    fn pinned(&self, branch: &'s Value, property: &str) -> Option<&'s Value> {
        let schema = self.resolve(self.resolve(branch).get("properties")?.get(property)?);
        schema.get("const").or_else(|| match schema.get("enum")?.as_array()?.as_slice() {
            [only] => Some(only),
            _ => None,
        })
    }

    /// The values an enum-like schema takes, if it is one.
    fn choices(&self, node: &'s Value) -> Option<Choices<'s>> {
        let node = self.resolve(node);
        let mut out = Choices { values: Vec::new(), types: Vec::new() };
        let own = |schema: &'s Value, out: &mut Choices<'s>| -> bool {
            if let Some(c) = schema.get("const") {
                out.values.push(c);
            } else if let Some(values) = schema.get("enum").and_then(Value::as_array) {
                out.values.extend(values);
            } else {
                return false;
            }
            match schema.get("type") {
                Some(Value::String(t)) => out.types.push(t),
                Some(Value::Array(ts)) => out.types.extend(ts.iter().filter_map(Value::as_str)),
                _ => {}
            }
            true
        };
        if own(node, &mut out) {
            return Some(out);
        }
        let branches = self.union_of(node)?;
        branches.iter().all(|b| own(self.resolve(b), &mut out)).then_some(out)
    }

    /// `. Expected one of "a"|"b"` / `. Expected "x"` for a missing enum or const field.
    fn expectation(&self, field: Option<&'s Value>) -> String {
        match field.and_then(|f| self.choices(f)) {
            Some(c) if c.values.len() == 1 => format!(". Expected {}", c.values[0]),
            Some(c) => format!(". Expected one of {}", alternatives(c.values)),
            None => String::new(),
        }
    }

    /// The property `key` of the object schema `node` (searching `allOf` members and the
    /// branch a tagged union's tag picks): its position and its schema.
    fn property(&self, node: &'s Value, instance: Option<&Value>, key: &str) -> Option<(usize, &'s Value)> {
        let node = self.resolve(node);
        if let Some(props) = node.get("properties").and_then(Value::as_object)
            && let Some(found) = props.iter().position(|(k, _)| k == key).zip(props.get(key))
        {
            return Some(found);
        }
        if let Some(all) = node.get("allOf").and_then(Value::as_array)
            && let Some(found) = all.iter().find_map(|member| self.property(member, instance, key))
        {
            return Some(found);
        }
        let branches = self.union_of(node)?;
        let tagged = self.tagged(branches)?;
        let tag = instance?.get(tagged.property)?;
        let i = tagged.tags.iter().position(|t| *t == tag)?;
        self.property(&branches[i], instance, key)
    }

    /// The sort key of a path below `node`/`instance`: at each level a property's position
    /// in the schema, or after every property an unknown key's position in the arguments.
    fn order_key(&self, mut node: Option<&'s Value>, mut instance: Option<&'s Value>, rel: &[Seg]) -> Vec<(u8, usize)> {
        let mut key = Vec::with_capacity(rel.len());
        for seg in rel {
            match seg {
                Seg::Key(k) => {
                    if let Some((i, schema)) = node.and_then(|n| self.property(n, instance, k)) {
                        key.push((0, i));
                        node = Some(schema);
                    } else {
                        let sent = instance.and_then(Value::as_object).map(|m| self.sent_position(m, k));
                        key.push((1, sent.unwrap_or(usize::MAX)));
                        node = node.and_then(|n| self.resolve(n).get("additionalProperties"));
                    }
                    instance = instance.and_then(|v| v.get(k));
                }
                Seg::Index(i) => {
                    key.push((0, *i));
                    node = node
                        .map(|n| self.resolve(n))
                        .and_then(|n| n.get("prefixItems").and_then(|p| p.get(*i)).or_else(|| n.get("items")));
                    instance = instance.and_then(|v| v.get(*i));
                }
            }
        }
        key
    }

    /// Orders issues found below `path[..base]` (schema `node`, value `instance`), lets a
    /// type failure hide its path's other failures, and drops repeats.
    pub(super) fn tidy(
        &self,
        issues: &mut Vec<Issue>,
        node: Option<&'s Value>,
        instance: Option<&'s Value>,
        base: usize,
    ) {
        let mut keyed: Vec<(Vec<(u8, usize)>, Issue)> = issues
            .drain(..)
            .map(|i| (self.order_key(node, instance, i.path.get(base..).unwrap_or_default()), i))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        // Issues at one path are neighbours now: settle each run of equal keys on its own,
        // deciding by reference, then moving the kept issues (no clones).
        let mut keep = Vec::with_capacity(keyed.len());
        let mut run_start = 0;
        for (j, (key, issue)) in keyed.iter().enumerate() {
            if keyed[run_start].0 != *key {
                run_start = j;
            }
            let run_end = run_start + keyed[run_start..].iter().take_while(|(k, _)| k == key).count();
            let run = &keyed[run_start..run_end];
            let typed = run.iter().any(|(_, i)| i.keyword == "type" && i.path == issue.path);
            let hidden = typed && issue.keyword != "type";
            let repeat =
                run[..j - run_start].iter().zip(&keep[run_start..]).any(|((_, other), kept)| *kept && other == issue);
            keep.push(!hidden && !repeat);
        }
        issues.extend(keyed.into_iter().zip(keep).filter_map(|((_, issue), kept)| kept.then_some(issue)));
    }

    /// The issues one validator error stands for, appended to `out` (not yet ordered).
    pub(super) fn collect(&self, error: &ValidationError<'_>, tag: Option<&TagScope>, out: &mut Vec<Issue>) {
        let path = self.path_of(error.instance_path());
        let node = self.node_of(error.schema_path());
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                let field = node.and_then(|n| n.get("properties")).and_then(|p| p.get(name));
                let message = format!("missing required field{}", self.expectation(field));
                let mut path = path;
                path.push(Seg::Key(name.to_owned()));
                out.push(Issue::new(path, "required", message, Hint::Missing));
            }
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let sent = self.instance_at(&path).and_then(Value::as_object);
                unknown_keys(path, unexpected.iter().map(String::as_str), node, sent, &|s| self.resolve(s), tag, out);
            }
            // `additionalProperties: false` beside no `properties` fails as a false schema
            // at the object, for one of its keys: every key of that object is unknown.
            ValidationErrorKind::FalseSchema if error.schema_path().as_str().ends_with("/additionalProperties") => {
                let refusal = (path.clone(), error.schema_path().as_str().to_owned());
                if !self.expanded.borrow_mut().insert(refusal) {
                    return;
                }
                let declared = node.and_then(|n| n.get("properties")).and_then(Value::as_object);
                match (self.instance_at(&path).and_then(Value::as_object), path.split_last()) {
                    (Some(sent), _) => {
                        let keys = sent.keys().filter(|k| !declared.is_some_and(|d| d.contains_key(*k)));
                        unknown_keys(path, keys.map(String::as_str), node, Some(sent), &|s| self.resolve(s), tag, out);
                    }
                    // Should the validator point at the key instead of its object.
                    (None, Some((Seg::Key(key), parent))) => {
                        let sent = self.instance_at(parent).and_then(Value::as_object);
                        let key = std::iter::once(key.as_str());
                        unknown_keys(parent.to_vec(), key, node, sent, &|s| self.resolve(s), tag, out);
                    }
                    (None, _) => out.push(Issue::new(
                        path,
                        "falseSchema",
                        "does not match the schema (falseSchema)".into(),
                        Hint::Restate,
                    )),
                }
            }
            ValidationErrorKind::Type { kind } => {
                let expected = expected_types(node, kind);
                out.push(type_issue(path, &expected, error.instance()));
            }
            ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
                let keyword = error.kind().keyword().to_owned();
                self.union(path, &keyword, node, error.instance(), context, out);
            }
            kind => {
                let message = keyword_text(kind, node);
                let hint = bounds(kind, node).map_or_else(|| keyword_hint(kind, node, error.instance()), Hint::Bound);
                out.push(Issue::new(path, kind.keyword().to_owned(), message, hint));
            }
        }
    }

    /// A failed `anyOf`/`oneOf` at `path`: an enum in disguise, a tagged union resolved by
    /// its tag, or the failing branches restated.
    fn union(
        &self,
        path: Vec<Seg>,
        keyword: &str,
        node: Option<&'s Value>,
        instance: &Value,
        context: &[Vec<ValidationError<'static>>],
        out: &mut Vec<Issue>,
    ) {
        let branches = node.and_then(|n| n.get(keyword)).and_then(Value::as_array).map(Vec::as_slice);
        if let Some(choices) = node.and_then(|n| self.choices(n)) {
            let issue = if choices.types.is_empty() || choices.types.iter().any(|t| has_type(instance, t)) {
                let hint = choice(choices.values.iter().copied(), instance);
                Issue::new(path, "enum", format!("expected one of {}", alternatives(choices.values)), hint)
            } else {
                let mut types: Vec<String> = Vec::new();
                for t in choices.types {
                    if !types.iter().any(|x| x == t) {
                        types.push(t.to_owned());
                    }
                }
                type_issue(path, &types, instance)
            };
            out.push(issue);
            return;
        }
        if let Some(branches) = branches
            && let Some(tagged) = self.tagged(branches)
        {
            self.by_tag(path, &tagged, instance, context, out);
            return;
        }
        out.push(self.restated_union(path, keyword, branches, context));
    }

    /// A tagged union: the tag's branch with the ordinary rules, or what the tag must be.
    fn by_tag(
        &self,
        path: Vec<Seg>,
        tagged: &Tagged<'s>,
        instance: &Value,
        context: &[Vec<ValidationError<'static>>],
        out: &mut Vec<Issue>,
    ) {
        let Some(object) = instance.as_object() else {
            out.push(type_issue(path, &["object".to_owned()], instance));
            return;
        };
        let mut tag_path = path.clone();
        tag_path.push(Seg::Key(tagged.property.to_owned()));
        let choices = alternatives(tagged.tags.iter().copied());
        let Some(sent) = object.get(tagged.property) else {
            let message = format!("missing required field. Expected one of {choices}");
            out.push(Issue::new(tag_path, "required", message, Hint::Missing));
            return;
        };
        let Some(i) = tagged.tags.iter().position(|t| *t == sent) else {
            let hint = choice(tagged.tags.iter().copied(), sent);
            out.push(Issue::new(tag_path, "enum", format!("expected one of {choices}"), hint));
            return;
        };
        let scope = TagScope { prefix: format!("With {} {} ", tagged.property, tagged.tags[i]), path };
        for error in context.get(i).map(Vec::as_slice).unwrap_or_default() {
            self.collect(error, Some(&scope), out);
        }
    }

    /// An untagged union: the closest shape (the branch with the fewest issues, the first on
    /// a tie) and its issues (paths relative to the union), and a hint that says what that
    /// shape needs and which other shapes there are. When every shape refuses the value's
    /// type, that type failure alone.
    fn restated_union(
        &self,
        path: Vec<Seg>,
        keyword: &str,
        branches: Option<&'s [Value]>,
        context: &[Vec<ValidationError<'static>>],
    ) -> Issue {
        let base = path.len();
        let instance = self.instance_at(&path);
        // Each branch's issues, tidied, and how many there were before noise was dropped.
        let mut shapes: Vec<(usize, Vec<Issue>)> = Vec::with_capacity(context.len());
        for (i, errors) in context.iter().enumerate() {
            let mut issues = Vec::new();
            for error in errors {
                self.collect(error, None, &mut issues);
            }
            self.tidy(&mut issues, branches.and_then(|b| b.get(i)), instance, base);
            let count = issues.len();
            // A branch that fails for other reasons is not the one the caller meant: its
            // unknown keys are the other branches' keys, noise. Shown when they are all it has.
            if issues.iter().any(|x| x.keyword != "additionalProperties") {
                issues.retain(|x| x.keyword != "additionalProperties");
            }
            shapes.push((count, issues));
        }
        let root_type_only =
            |issues: &[Issue]| !issues.is_empty() && issues.iter().all(|x| x.keyword == "type" && x.path.len() == base);
        // Every shape wants another type: say which types.
        if let Some(instance) = instance
            && !shapes.is_empty()
            && shapes.iter().all(|(_, issues)| root_type_only(issues))
        {
            let mut types: Vec<String> = Vec::new();
            for (i, _) in shapes.iter().enumerate() {
                let node = branches.and_then(|b| b.get(i)).map(|b| self.resolve(b));
                let named = node.and_then(|n| n.get("type"));
                let listed: Vec<String> = match named {
                    Some(Value::String(t)) => vec![t.clone()],
                    Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
                    _ => Vec::new(),
                };
                for t in listed {
                    if !types.contains(&t) {
                        types.push(t);
                    }
                }
            }
            if !types.is_empty() {
                let mut issue = type_issue(path, &types, instance);
                issue.keyword = keyword.to_owned().into();
                return issue;
            }
        }
        // The closest shape among those that take the value's type.
        let candidates =
            shapes.iter().enumerate().filter(|(_, (_, issues))| !issues.is_empty() && !root_type_only(issues));
        let Some((closest, (_, issues))) = candidates.min_by_key(|(_, (count, _))| *count) else {
            let message = format!("does not match the schema ({keyword})");
            return Issue::new(path, keyword.to_owned(), message, Hint::Restate);
        };
        let shape = |i: usize| self.shape(branches.and_then(|b| b.get(i)));
        // `null` is no shape of its own: an `Option<T>`'s union has one shape, `T`.
        let is_null = |i: &usize| {
            branches
                .and_then(|b| b.get(*i))
                .is_some_and(|b| self.resolve(b).get("type").and_then(Value::as_str) == Some("null"))
        };
        let lines = issues.iter().map(|x| x.line_from(base)).collect::<Vec<_>>().join("; ");
        let others: Vec<String> = (0..context.len()).filter(|i| *i != closest && !is_null(i)).map(shape).collect();
        let message = if others.is_empty() {
            lines
        } else {
            format!("matches none of its {} shapes; closest {}: {lines}", others.len() + 1, shape(closest))
        };
        let owner = if path.is_empty() { "the arguments".to_owned() } else { super::issue::dotted(&path) };
        let mut text = super::refusal::hint(issues);
        if !others.is_empty() {
            let _ = write!(text, " Or send {owner} as {}.", super::refusal::or_list(&others));
        }
        Issue::new(path, keyword.to_owned(), message, Hint::Text(text))
    }

    /// A union branch as the caller reads it: `{kind, n}` (its properties), `a string`.
    fn shape(&self, branch: Option<&'s Value>) -> String {
        let Some(node) = branch.map(|b| self.resolve(b)) else {
            return "another shape".to_owned();
        };
        if let Some(props) = node.get("properties").and_then(Value::as_object)
            && !props.is_empty()
        {
            return format!(
                "{{{}}}",
                props.keys().map(|k| super::issue::dotted(&[Seg::Key(k.clone())])).collect::<Vec<_>>().join(", ")
            );
        }
        match node.get("type").and_then(Value::as_str) {
            Some("object") => "an object".to_owned(),
            Some("array") => "an array".to_owned(),
            Some("integer") => "an integer".to_owned(),
            Some(t) => format!("a {t}"),
            None => node.get("const").map_or_else(|| "another shape".to_owned(), ToString::to_string),
        }
    }
}
