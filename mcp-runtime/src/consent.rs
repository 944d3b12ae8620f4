//! Consent that holds once: a handler asks the user to approve an action, and acts only on an
//! answer that redeems the record the server wrote when it asked.
//!
//! An answer alone proves nothing: a client can send `inputResponses` no one asked for, and
//! replay a sealed `requestState` within its lifetime. So asking writes a record (who calls
//! what, the target, a digest of the salient arguments) into the state store under a random
//! id, and sends only the id as the state. The retry redeems it first, with the store's atomic
//! `take`: of any number of retries carrying one id, on any replica sharing the store, one
//! finds the record; the others, and any retry whose record is unknown, used, expired or for
//! something else, are asked again with a fresh record.

use std::marker::PhantomData;
use std::time::Duration;

use mcp_core::ToolError;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ask::{Ask, Elicitation, Elicited, Inputs};
use crate::state::{State, Stores};

/// The key the consent form is asked (and answered) under.
pub(crate) const KEY: &str = "consent";
/// What a consent id is sent as, in `requestState`.
const PREFIX: &str = "consent:";
/// How long a record waits for its answer: as long as the state that carries it opens.
const TTL: Duration = crate::seal::DEFAULT_TTL;
/// Unredeemed records one caller may hold unless the server says otherwise.
pub(crate) const DEFAULT_PER_CALLER: usize = 64;

/// An action to ask the user's consent for, with [`Ctx::consent`](crate::Ctx::consent): the
/// form `T` the user fills in (a `confirm: bool` is typical), the message they read, and what
/// the record binds besides the caller and the tool: the action's target, and optionally a
/// digest of the arguments that matter.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::Consent;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Confirm {
///     /// Delete it?
///     confirm: bool,
/// }
///
/// /// Deletes an item, once the user confirms.
/// #[tool]
/// #[errors(reason = "declined", code = Forbidden, retryable = false,
///          when = "The user did not confirm.", recovery = "Do not retry unless the user asks again.")]
/// async fn delete(ctx: &Ctx<DeleteError>, id: String) -> Result<String, ToolError> {
///     match ctx.consent(Consent::<Confirm>::new(&id, format!("Delete {id}?"))).await? {
///         Elicited::Accepted(Confirm { confirm: true }) => Ok(format!("deleted {id}")),
///         _ => Err(ctx.fail(DeleteError::Declined)),
///     }
/// }
/// ```
pub struct Consent<T> {
    target: String,
    message: String,
    digest: String,
    fallback: Option<String>,
    _form: PhantomData<fn() -> T>,
}

impl<T: JsonSchema + DeserializeOwned + 'static> Consent<T> {
    /// Consent to act on `target` (an id, a path), asked with `message`.
    pub fn new(target: impl Into<String>, message: impl Into<String>) -> Self {
        Consent {
            target: target.into(),
            message: message.into(),
            digest: String::new(),
            fallback: None,
            _form: PhantomData,
        }
    }

    /// What to tell a client that cannot be asked (see [`Ask::fallback_hint`]).
    #[must_use]
    pub fn fallback_hint(mut self, hint: impl Into<String>) -> Self {
        self.fallback = Some(hint.into());
        self
    }

    /// Binds the record to these arguments too (a digest of their JSON): an answer given for
    /// other values of them is not consent.
    #[must_use]
    pub fn salient(mut self, arguments: &impl Serialize) -> Self {
        let json = serde_json::to_vec(arguments).unwrap_or_default();
        self.digest = hex(&Sha256::digest(&json));
        self
    }
}

/// What the server wrote when it asked.
#[derive(Serialize, Deserialize, PartialEq, Eq)]
struct Record {
    /// Caller and operation (`ask::binding`).
    binding: String,
    target: String,
    digest: String,
}

/// The user's answer when the round's state redeems a matching record; otherwise a fresh
/// record and the ask for it (the `Err` a handler returns with `?`).
pub(crate) async fn redeem_or_ask<T: JsonSchema + DeserializeOwned + 'static>(
    stores: &Stores,
    state: State<'_>,
    caller: &str,
    binding: &str,
    inputs: &Inputs,
    consent: Consent<T>,
) -> Result<Elicited<T>, ToolError> {
    let Consent { target, message, digest, fallback, .. } = consent;
    let wanted = Record { binding: binding.to_owned(), target, digest };
    if let Some(id) = inputs.state().and_then(|s| s.strip_prefix(PREFIX)) {
        // Redeem first, whatever the answer: a record is good for one answer.
        let why = match state.take::<Record>(&record_key(id)).await? {
            Some(record) if record == wanted => match inputs.form::<T>(KEY) {
                Elicited::Missing => "the retry carries no answer",
                answer => return Ok(answer),
            },
            Some(_) => "the record is for another caller, target or arguments",
            None => "no such record: unknown, already used, or expired",
        };
        tracing::debug!(target: "mcp_runtime::call", why, "consent not redeemed; asking again");
    }
    let id = fresh_id();
    remember(stores, &state, caller, &id).await?;
    state.set(&record_key(&id), &wanted, TTL).await?;
    let mut ask = Ask::new().elicit(KEY, Elicitation::form_for::<T>(message)).state(format!("{PREFIX}{id}"));
    if let Some(hint) = fallback {
        ask = ask.fallback_hint(hint);
    }
    Err(crate::ask::signal(ask))
}

fn record_key(id: &str) -> String {
    format!("consent:{id}")
}

/// Adds `id` to the caller's list of records, oldest first, and lets the oldest go past the
/// server's cap: a caller that asks and never answers holds at most that many records.
async fn remember(stores: &Stores, state: &State<'_>, caller: &str, id: &str) -> Result<(), ToolError> {
    let list_key = format!("consents:{}", hex(&Sha256::digest(caller.as_bytes())));
    let _changing = stores.consent_lock.lock().await;
    let mut ids: Vec<String> = state.get(&list_key).await?.unwrap_or_default();
    ids.push(id.to_owned());
    let over = ids.len().saturating_sub(stores.consents_per_caller);
    for old in ids.drain(..over) {
        state.delete(&record_key(&old)).await?;
    }
    state.set(&list_key, &ids, TTL).await
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut hex, byte| {
        use std::fmt::Write as _;
        let _ = write!(hex, "{byte:02x}");
        hex
    })
}

/// 128 random bits, base64url.
fn fresh_id() -> String {
    use base64::Engine as _;
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the OS random source failed");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
