//! Compile-time checks for the code `#[tool]` generates: each turns a mistake in a tool's
//! signature into one error at the user's type, with a message that says the fix.
//!
//! Most are probes in the style of [`crate::features::tools::output`]: `(&&Probe::<T>::new()).method()`
//! resolves to the working impl when `T` has the needed trait, and otherwise falls through
//! `Deref` to a method that asks for a trait no type implements, whose
//! `#[diagnostic::on_unimplemented]` carries the message. (A trait with a blanket impl would
//! not do: rustc reports the blanket impl's unmet bound, with that trait's message.)

use std::marker::PhantomData;
use std::ops::Deref;

use mcp_core::{Contract, ToolError};
use serde::de::DeserializeOwned;

use crate::context::ctx::{Ctx, FromCall};
use crate::features::tools::params::Reader;
use crate::features::tools::tool::Args;

/// A probe for a handler's error type `E` (of `Result<T, E>`).
pub struct ErrorOf<E>(NotAToolError<E>);

impl<E> ErrorOf<E> {
    /// The probe for the type of `error`.
    pub const fn of(_error: &E) -> Self {
        ErrorOf(NotAToolError(PhantomData))
    }
}

impl<E> Deref for ErrorOf<E> {
    type Target = NotAToolError<E>;

    fn deref(&self) -> &NotAToolError<E> {
        &self.0
    }
}

/// `E: Into<ToolError>`: the conversion `?` would make.
pub trait IntoToolErrorKind<E> {
    /// The failure.
    fn convert(&self, error: E) -> ToolError;
}

impl<E: Into<ToolError>> IntoToolErrorKind<E> for &ErrorOf<E> {
    fn convert(&self, error: E) -> ToolError {
        error.into()
    }
}

/// The probe's last stop: an error type with no conversion into `ToolError`.
pub struct NotAToolError<E>(PhantomData<fn() -> E>);

/// What a handler's error type must be. No type implements it: it is asked for only when the
/// error type has no conversion into `ToolError`, to carry the message below.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot become a tool failure as is",
    label = "no conversion into `ToolError`",
    note = "return `Result<_, ToolError>` and convert where the error happens: `.map_err(ToolError::from_error)?` (the error is classified by its `source()` chain and logged), or raise a declared reason with `ctx.fail(..)` (`#[errors(reason = ..)]`)",
    note = "`ToolError`, `String`, `&'static str`, `std::io::Error`, `serde_json::Error` and reason enums convert as they are"
)]
pub trait ToolFailure {}

/// Error types with no conversion: the method exists so that the call resolves, and requires
/// [`ToolFailure`].
pub trait NotAToolErrorKind<E> {
    /// Never called.
    fn convert(&self, error: E) -> ToolError
    where
        E: ToolFailure;
}

impl<E> NotAToolErrorKind<E> for NotAToolError<E> {
    fn convert(&self, _: E) -> ToolError
    where
        E: ToolFailure,
    {
        unreachable!("no type implements ToolFailure")
    }
}

/// A probe for the type `T` of one by-value argument.
pub struct ArgOf<T>(NotAnArg<T>);

impl<T> ArgOf<T> {
    /// The probe.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        ArgOf(NotAnArg(PhantomData))
    }
}

impl<T> Deref for ArgOf<T> {
    type Target = NotAnArg<T>;

    fn deref(&self) -> &NotAnArg<T> {
        &self.0
    }
}

/// `T: DeserializeOwned`: it can be an argument.
pub trait ArgKind<T> {
    /// Nothing to check.
    fn check(&self) {}

    /// [`Reader::read`].
    fn read(&self, reader: &mut Reader, i: usize) -> Option<T>;

    /// [`Reader::read_or`].
    fn read_or(&self, reader: &mut Reader, i: usize, default: fn() -> T) -> Option<T>;
}

impl<T: DeserializeOwned> ArgKind<T> for &ArgOf<T> {
    fn read(&self, reader: &mut Reader, i: usize) -> Option<T> {
        reader.read(i)
    }

    fn read_or(&self, reader: &mut Reader, i: usize, default: fn() -> T) -> Option<T> {
        reader.read_or(i, default)
    }
}

/// The probe's last stop: a type that cannot be deserialized.
pub struct NotAnArg<T>(PhantomData<fn() -> T>);

/// What an argument's type must be. No type implements it: it is asked for only when the
/// type is not `Deserialize`, to carry the message below.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an argument of a `#[tool]` fn: it does not implement `serde::Deserialize`",
    label = "arguments are deserialized from the call's JSON",
    note = "derive it: `#[derive(Deserialize, JsonSchema)]` on `{Self}` (`mcp_runtime::prelude` has both), or take a type that has them"
)]
pub trait ToolArgument {}

/// Types that cannot be deserialized: each method requires [`ToolArgument`].
pub trait NotAnArgKind<T> {
    /// Never called with a type that passes.
    fn check(&self)
    where
        T: ToolArgument,
    {
    }

    /// Never called: the build failed.
    fn read(&self, _: &mut Reader, _: usize) -> Option<T>
    where
        T: ToolArgument,
    {
        unreachable!("no type implements ToolArgument")
    }

    /// Never called: the build failed.
    fn read_or(&self, _: &mut Reader, _: usize, _: fn() -> T) -> Option<T>
    where
        T: ToolArgument,
    {
        unreachable!("no type implements ToolArgument")
    }
}

impl<T> NotAnArgKind<T> for NotAnArg<T> {}

/// `T` is the context (`Ctx<R>`), taken by value: each method requires [`ContextByValue`].
/// (No context type is `Deserialize`, so this and [`ArgKind`] never both apply.)
pub trait ContextByValueKind<T> {
    /// Never called with a type that passes.
    fn check(&self)
    where
        T: ContextByValue,
    {
    }

    /// Never called: the build failed.
    fn read(&self, _: &mut Reader, _: usize) -> Option<T>
    where
        T: ContextByValue,
    {
        unreachable!("no type implements ContextByValue")
    }

    /// Never called: the build failed.
    fn read_or(&self, _: &mut Reader, _: usize, _: fn() -> T) -> Option<T>
    where
        T: ContextByValue,
    {
        unreachable!("no type implements ContextByValue")
    }
}

impl<T: FromCall> ContextByValueKind<T> for &ArgOf<T> {}

/// What a by-value parameter that is the context would need. No type implements it: it is
/// asked for only to carry the message below.
#[diagnostic::on_unimplemented(
    message = "the context is lent to the handler: take `&{Self}`, not `{Self}`",
    label = "write `&{Self}` here",
    note = "the runtime passes the call's context by reference (`ctx: &Ctx`, or `ctx: &Ctx<MyToolError>` with `#[errors]`); the parameters taken by value are the tool's arguments"
)]
pub trait ContextByValue {}

/// A probe for the generated arguments struct `A`, whose `Deserialize` impl holds exactly when
/// every argument type passed [`ArgOf`]'s check: when one did not, that check has reported it
/// at the argument's type, and this probe adds no second error.
pub struct ArgsOf<A>(Undeserializable<A>);

impl<A> ArgsOf<A> {
    /// The probe.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        ArgsOf(Undeserializable(PhantomData))
    }
}

impl<A> Deref for ArgsOf<A> {
    type Target = Undeserializable<A>;

    fn deref(&self) -> &Undeserializable<A> {
        &self.0
    }
}

/// The arguments struct can be deserialized.
pub trait ArgsKind<A> {
    /// [`Args::parse`].
    fn parse(&self, args: Args) -> Result<A, ToolError>;
}

impl<A: DeserializeOwned> ArgsKind<A> for &ArgsOf<A> {
    fn parse(&self, args: Args) -> Result<A, ToolError> {
        args.parse()
    }
}

/// The probe's last stop: only reached in a build that already failed at an argument type.
pub struct Undeserializable<A>(PhantomData<fn() -> A>);

/// Arguments that cannot be deserialized.
pub trait UndeserializableKind<A> {
    /// Never called: the build failed.
    fn parse(&self, args: Args) -> Result<A, ToolError>;
}

impl<A> UndeserializableKind<A> for Undeserializable<A> {
    fn parse(&self, _: Args) -> Result<A, ToolError> {
        unreachable!("an argument type is not `Deserialize`, which failed the build")
    }
}

/// The context of a tool with `#[errors(...)]`: `Ctx<R>`, `R` its reason enum.
#[diagnostic::on_unimplemented(
    message = "this tool declares `#[errors(...)]`: take its context as `&Ctx<{R}>`",
    label = "write `&Ctx<{R}>`, so that `ctx.fail` takes the tool's reasons",
    note = "a bare `&Ctx` is `&Ctx<NoReasons>`, the context of a tool without `#[errors]`"
)]
pub trait ContextOf<R> {}

impl<R: Contract> ContextOf<R> for Ctx<R> {}

/// Compiles only when `C` is the context of a tool whose reason enum is `R`.
pub const fn context_of<C: ContextOf<R>, R>() {}

/// A probe for the type `T` of a `#[serde(default)]` parameter: its default, as the schema's
/// `default`, when `T` is `Serialize` (as schemars' derive shows it).
pub struct DefaultOf<T>(NoJsonDefault<T>);

impl<T> DefaultOf<T> {
    /// The probe.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        DefaultOf(NoJsonDefault(PhantomData))
    }
}

impl<T> Deref for DefaultOf<T> {
    type Target = NoJsonDefault<T>;

    fn deref(&self) -> &NoJsonDefault<T> {
        &self.0
    }
}

/// `T: Serialize`: the default is shown.
pub trait JsonDefaultKind<T> {
    /// `default()` as JSON.
    fn json(&self, default: fn() -> T) -> Option<serde_json::Value>;
}

impl<T: serde::Serialize> JsonDefaultKind<T> for &DefaultOf<T> {
    fn json(&self, default: fn() -> T) -> Option<serde_json::Value> {
        serde_json::to_value(default()).ok()
    }
}

/// The probe's last stop: a type that is not `Serialize` shows no default.
pub struct NoJsonDefault<T>(PhantomData<fn() -> T>);

/// Types without `Serialize`: no default in the schema.
pub trait NoJsonDefaultKind<T> {
    /// No default.
    fn json(&self, _default: fn() -> T) -> Option<serde_json::Value> {
        None
    }
}

impl<T> NoJsonDefaultKind<T> for NoJsonDefault<T> {}
