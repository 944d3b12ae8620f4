//! JSON Schema, made once and checked on every call: a type's schema as the wire lists it
//! (`generate`), and a value checked against it with failures written for the model
//! (`validate`).

pub(crate) mod generate;
pub(crate) mod validate;
