//! Arguments that passed the schema, read into the tool's Rust type: an integral float the
//! schema accepted as an integer (`1.0`) is read as that integer, and arguments serde still
//! cannot read are an `invalid_arguments` failure naming the path serde stopped at (the
//! [`Tracked`] deserializer notes it). Called after validation by `tools::tool`,
//! `tools::params` and `Ctx`.

use std::cell::RefCell;

use mcp_core::ToolError;
use serde::Deserialize as _;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};
use serde_json::{Map, Value, json};

use super::issue::{Hint, Issue, Seg};
use super::refusal::{issues_json, refusal};

/// Reads arguments that passed the schema into the tool's Rust type. A number the schema
/// accepted as an integer (`1.0`) is read as that integer; arguments serde still cannot
/// read (the schema is looser than the type) are an `invalid_arguments` failure naming the
/// path serde stopped at.
pub(crate) fn deserialize_args<A: DeserializeOwned>(tool: &str, args: &Value) -> Result<A, ToolError> {
    match deserialize_property(args, None) {
        Ok(value) => Ok(value),
        Err(path) => Err(deserialize_failure(tool, path)),
    }
}

/// Reads property `key` of the arguments object `args` (it is there; the whole arguments
/// without a key) as [`deserialize_args`] reads them: an integral float is read as an
/// integer. Else where serde stopped.
pub(crate) fn deserialize_property<T: DeserializeOwned>(args: &Value, key: Option<&str>) -> Result<T, Vec<Seg>> {
    let mut out = None;
    let read = read_tracked(args, key, &mut |tracked| {
        out = Some(T::deserialize(tracked)?);
        Ok(())
    });
    match out {
        Some(value) => Ok(value),
        None => Err(read.err().unwrap_or_default()),
    }
}

/// Runs `read` on a [`Tracked`] deserializer over the arguments (over property `key` of
/// them, when given), which notes where serde stops. On a failure there, every integral
/// float of that argument becomes an integer in a copy, and the copy is read again; else
/// the path serde stopped at. Not generic, as [`Tracked`] is not: what each input type adds
/// to a build is its own `Deserialize` impl, compiled once, for this one deserializer.
fn read_tracked(
    args: &Value,
    key: Option<&str>,
    read: &mut dyn FnMut(Tracked<'_, '_>) -> Result<(), serde_json::Error>,
) -> Result<(), Vec<Seg>> {
    let mut copy: Option<Value> = None;
    loop {
        let whole = copy.as_ref().unwrap_or(args);
        let failed = RefCell::new(None);
        let root = Chain::Root;
        let (value, chain) = match key {
            Some(key) => (&whole[key], Chain::Key(&root, key)),
            None => (whole, Chain::Root),
        };
        let Err(error) = read(Tracked { value, chain: &chain, failed: &failed }) else { return Ok(()) };
        let path = failed.into_inner().unwrap_or_default();
        if !integralise(copy.get_or_insert_with(|| args.clone()), &path) {
            tracing::debug!(%error, "arguments passed the schema but not serde");
            return Err(path);
        }
    }
}

/// The failure of arguments that passed the schema but that serde cannot read, stopping at
/// `path`.
pub(crate) fn deserialize_failure(tool: &str, path: Vec<Seg>) -> ToolError {
    let hint = Hint::Send("as another value: this one fits the input schema but not the tool's own type".into());
    let issue = Issue::new(path, "deserialize", "does not match the schema (deserialize)".into(), hint);
    let issues = [issue];
    refusal(tool, &issues, 0).data(json!({"issues": issues_json(&issues)}))
}

/// Turns the integral float at `path`, and every other one in the same argument, into an
/// integer (else every one below `path`); whether anything changed. The whole argument at
/// once: one retry per argument, where one per element would make a list of a million
/// `1.0`s cost a million deserializations.
pub(super) fn integralise(args: &mut Value, path: &[Seg]) -> bool {
    fn at<'v>(value: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
        path.iter().try_fold(value, |v, seg| match seg {
            Seg::Index(i) => v.get_mut(*i),
            Seg::Key(k) => v.get_mut(k),
        })
    }
    let Some(target) = at(args, path) else { return false };
    if as_integer(target).is_none() {
        return integralise_all(target);
    }
    // The argument: the first key of the path (the root when it is not an object).
    let argument = match path.first() {
        Some(Seg::Key(_)) => &path[..1],
        _ => &[],
    };
    at(args, argument).is_some_and(integralise_all)
}

fn integralise_all(value: &mut Value) -> bool {
    match value {
        Value::Array(items) => items.iter_mut().fold(false, |changed, v| integralise_all(v) | changed),
        Value::Object(map) => map.values_mut().fold(false, |changed, v| integralise_all(v) | changed),
        other => match as_integer(other) {
            Some(int) => {
                *other = int;
                true
            }
            None => false,
        },
    }
}

/// An integral float as an integer, when one fits in `i64` or `u64`.
pub(super) fn as_integer(value: &Value) -> Option<Value> {
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    let n = value.as_number().filter(|n| n.is_f64())?.as_f64()?;
    if n.fract() != 0.0 || !n.is_finite() {
        return None;
    }
    // The range checks make these casts exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    if (-TWO_POW_63..TWO_POW_63).contains(&n) {
        Some(Value::from(n as i64))
    } else if (0.0..TWO_POW_64).contains(&n) {
        Some(Value::from(n as u64))
    } else {
        None
    }
}

/// Where a [`Tracked`] deserializer is in the arguments.
enum Chain<'a> {
    Root,
    Key(&'a Chain<'a>, &'a str),
    Index(&'a Chain<'a>, usize),
}

impl Chain<'_> {
    fn path(&self) -> Vec<Seg> {
        let mut path = Vec::new();
        let mut at = self;
        loop {
            match at {
                Chain::Root => break,
                Chain::Key(parent, k) => {
                    path.push(Seg::Key((*k).to_owned()));
                    at = parent;
                }
                Chain::Index(parent, i) => {
                    path.push(Seg::Index(*i));
                    at = parent;
                }
            }
        }
        path.reverse();
        path
    }
}

type Failed = RefCell<Option<Vec<Seg>>>;

/// Records the innermost path at which deserialization failed.
fn note<T>(chain: &Chain<'_>, failed: &Failed, result: Result<T, serde_json::Error>) -> Result<T, serde_json::Error> {
    if result.is_err() {
        fail_at(chain, failed);
    }
    result
}

fn fail_at(chain: &Chain<'_>, failed: &Failed) {
    let mut slot = failed.borrow_mut();
    if slot.is_none() {
        *slot = Some(chain.path());
    }
}

/// A deserializer over a borrowed `Value` that remembers where it failed. What it reads, and
/// how, is what `serde_json`'s `&Value` deserializer reads.
struct Tracked<'a, 'de> {
    value: &'de Value,
    chain: &'a Chain<'a>,
    failed: &'a Failed,
}

macro_rules! delegate {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
            note(self.chain, self.failed, self.value.$method(visitor))
        }
    )*};
}

/// The error of a struct read from `value`, not an object.
fn not_a_struct(value: &Value, expected: &dyn de::Expected) -> serde_json::Error {
    let unexpected = match value {
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Number(_) => de::Unexpected::Other("number"),
        Value::Array(_) => de::Unexpected::Seq,
        _ => de::Unexpected::Unit,
    };
    de::Error::invalid_type(unexpected, expected)
}

impl<'a, 'de> Tracked<'a, 'de> {
    fn map(&self, map: &'de Map<String, Value>) -> TrackedMap<'a, 'de> {
        TrackedMap { iter: map.iter(), pending: None, chain: self.chain, failed: self.failed }
    }

    fn seq(&self, items: &'de [Value]) -> TrackedSeq<'a, 'de> {
        TrackedSeq { iter: items.iter().enumerate(), chain: self.chain, failed: self.failed }
    }
}

impl<'de> de::Deserializer<'de> for Tracked<'_, 'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        let result = match self.value {
            Value::Object(map) => visitor.visit_map(self.map(map)),
            Value::Array(items) => visitor.visit_seq(self.seq(items)),
            // As `&Value` reads them, without instantiating its map and array code again.
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => n.deserialize_any(visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
        };
        note(self.chain, self.failed, result)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        let (chain, failed) = (self.chain, self.failed);
        let result = if self.value.is_null() { visitor.visit_none() } else { visitor.visit_some(self) };
        note(chain, failed, result)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        let (chain, failed) = (self.chain, self.failed);
        note(chain, failed, visitor.visit_newtype_struct(self))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        let result = match self.value {
            Value::Object(map) if map.len() == 1 => {
                let (key, value) = map.iter().next().unwrap_or_else(|| unreachable!("one entry"));
                visitor.visit_enum(TrackedEnum { key, value, chain: self.chain, failed: self.failed })
            }
            other => other.deserialize_enum(name, variants, visitor),
        };
        note(self.chain, self.failed, result)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        // An object, and nothing else, so that no other `visit_*` method of a struct's visitor
        // is compiled. (`&Value` also reads a struct from an array of its fields, but a struct
        // whose schema schemars wrote admits only objects, so the arguments never hold one.)
        let result = match self.value {
            Value::Object(map) => visitor.visit_map(self.map(map)),
            other => Err(not_a_struct(other, &visitor)),
        };
        note(self.chain, self.failed, result)
    }

    delegate! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128 deserialize_f32
        deserialize_f64 deserialize_char deserialize_str deserialize_string deserialize_bytes
        deserialize_byte_buf deserialize_unit deserialize_identifier deserialize_ignored_any
    }

    serde::forward_to_deserialize_any! { unit_struct seq tuple tuple_struct map }
}

struct TrackedMap<'a, 'de> {
    iter: serde_json::map::Iter<'de>,
    pending: Option<(&'de str, &'de Value)>,
    chain: &'a Chain<'a>,
    failed: &'a Failed,
}

impl<'de> TrackedMap<'_, 'de> {
    /// The next entry's key; its value is pending.
    fn advance(&mut self) -> Option<&'de str> {
        let (key, value) = self.iter.next()?;
        self.pending = Some((key, value));
        Some(key)
    }
}

/// A map key as `serde_json` reads one: a string, or a number or `bool` written as one (the
/// keys of a `HashMap<u32, _>`).
struct Key<'de>(&'de str);

macro_rules! parsed_key {
    ($($method:ident $visit:ident $ty:ty)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
            match self.0.parse::<$ty>() {
                Ok(value) => visitor.$visit(value),
                Err(_) => Err(de::Error::invalid_type(de::Unexpected::Str(self.0), &visitor)),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        de::value::BorrowedStrDeserializer::new(self.0).deserialize_enum(name, variants, visitor)
    }

    parsed_key! {
        deserialize_bool visit_bool bool
        deserialize_i8 visit_i8 i8 deserialize_i16 visit_i16 i16 deserialize_i32 visit_i32 i32
        deserialize_i64 visit_i64 i64 deserialize_i128 visit_i128 i128
        deserialize_u8 visit_u8 u8 deserialize_u16 visit_u16 u16 deserialize_u32 visit_u32 u32
        deserialize_u64 visit_u64 u64 deserialize_u128 visit_u128 u128
        deserialize_f32 visit_f32 f32 deserialize_f64 visit_f64 f64
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de> de::MapAccess<'de> for TrackedMap<'_, 'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, serde_json::Error> {
        let Some(key) = self.advance() else { return Ok(None) };
        let result = seed.deserialize(Key(key));
        if result.is_err() {
            fail_at(&Chain::Key(self.chain, key), self.failed);
        }
        result.map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, serde_json::Error> {
        let Some((key, value)) = self.pending.take() else {
            return Err(de::Error::custom("a map value was read before its key"));
        };
        let chain = Chain::Key(self.chain, key);
        seed.deserialize(Tracked { value, chain: &chain, failed: self.failed })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct TrackedSeq<'a, 'de> {
    iter: std::iter::Enumerate<std::slice::Iter<'de, Value>>,
    chain: &'a Chain<'a>,
    failed: &'a Failed,
}

impl<'de> de::SeqAccess<'de> for TrackedSeq<'_, 'de> {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, serde_json::Error> {
        let Some((i, value)) = self.iter.next() else { return Ok(None) };
        let chain = Chain::Index(self.chain, i);
        seed.deserialize(Tracked { value, chain: &chain, failed: self.failed }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An externally tagged enum written as `{"Variant": value}`.
struct TrackedEnum<'a, 'de> {
    key: &'de str,
    value: &'de Value,
    chain: &'a Chain<'a>,
    failed: &'a Failed,
}

impl<'de> de::EnumAccess<'de> for TrackedEnum<'_, 'de> {
    type Error = serde_json::Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        let variant = seed.deserialize(de::value::BorrowedStrDeserializer::new(self.key));
        let variant = note(&chain, self.failed, variant)?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for TrackedEnum<'_, 'de> {
    type Error = serde_json::Error;

    fn unit_variant(self) -> Result<(), serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        <()>::deserialize(Tracked { value: self.value, chain: &chain, failed: self.failed })
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        seed.deserialize(Tracked { value: self.value, chain: &chain, failed: self.failed })
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        de::Deserializer::deserialize_any(Tracked { value: self.value, chain: &chain, failed: self.failed }, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        let chain = Chain::Key(self.chain, self.key);
        de::Deserializer::deserialize_any(Tracked { value: self.value, chain: &chain, failed: self.failed }, visitor)
    }
}
