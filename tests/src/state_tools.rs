//! Fixture tools on the shared state store (`ctx.state()`): `put_item` stores an item, and
//! `delete_item` deletes one once the user consents (`ctx.consent`), a consent that holds
//! once across every replica sharing the store; `next_id` counts (`State::increment`) and
//! `claim` claims a name once (`State::set_if_absent`), across replicas too.

use std::time::Duration;

use mcp_runtime::Consent;
use mcp_runtime::prelude::*;

use crate::ask_tools::Confirm;

/// How long a stored item lives.
const ITEM_TTL: Duration = Duration::from_secs(24 * 3600);

fn item_key(id: &str) -> String {
    format!("item:{id}")
}

/// What the store holds for an item.
#[derive(Serialize, Deserialize)]
struct Item {
    id: String,
}

/// What `put_item` stored.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Stored {
    /// The item's id.
    stored: String,
}

/// Stores an item under `id` in the server's state store (for a day): `{"stored": id}`.
#[tool]
pub(crate) async fn put_item(
    ctx: &Ctx,
    /// The item's id.
    id: String,
) -> Result<Stored, ToolError> {
    ctx.state().set(&item_key(&id), &Item { id: id.clone() }, ITEM_TTL).await?;
    Ok(Stored { stored: id })
}

/// What `delete_item` deleted.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Deleted {
    /// The item's id.
    deleted: String,
}

/// Deletes the item `id` once the user confirms: the first call asks a yes/no form; the
/// accepted retry deletes the item once and returns `{"deleted": id}`. A retry whose consent
/// was already used (or never recorded) is asked again.
#[tool]
#[errors(
    reason = "no_such_item",
    code = NotFound,
    retryable = false,
    when = "No item has this id.",
    recovery = "Check the id, or store the item first with put_item."
)]
#[errors(
    reason = "declined",
    code = Forbidden,
    retryable = false,
    when = "The user did not confirm the deletion.",
    recovery = "Do not retry unless the user asks again; nothing was deleted."
)]
pub(crate) async fn delete_item(
    ctx: &Ctx<DeleteItemError>,
    /// The item's id.
    id: String,
) -> Result<Deleted, ToolError> {
    let state = ctx.state();
    let key = item_key(&id);
    // Said before asking, on a first call; a retry redeems its consent first, so that of
    // many retries carrying one consent, the ones that lose are asked again.
    if ctx.inputs().state().is_none() && state.get::<Item>(&key).await?.is_none() {
        return Err(ctx.fail(DeleteItemError::NoSuchItem));
    }
    let consent = Consent::<Confirm>::new(&id, format!("Delete item {id}?")).salient(&id);
    match ctx.consent(consent).await? {
        Elicited::Accepted(Confirm { confirm: true }) => {
            if state.delete(&key).await? {
                Ok(Deleted { deleted: id })
            } else {
                Err(ctx.fail(DeleteItemError::NoSuchItem))
            }
        }
        _ => Err(ctx.fail(DeleteItemError::Declined)),
    }
}

/// What `next_id` counted.
#[derive(Serialize, JsonSchema)]
pub(crate) struct NextId {
    /// The id: one more than the last one given, on any replica sharing the store.
    id: i64,
}

/// The next id of a counter shared by every replica (`State::increment` on one key, kept
/// without a time to live): `{"id": n}`, each call a different `n`.
#[tool]
pub(crate) async fn next_id(ctx: &Ctx) -> Result<NextId, ToolError> {
    Ok(NextId { id: ctx.state().increment("next_id", 1).await? })
}

/// Whether `claim` won.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Claimed {
    /// `true` for the first caller to claim the name (on any replica), `false` after.
    won: bool,
}

/// Claims `name` for good (`State::set_if_absent`, without a time to live): `{"won": true}`
/// for the first claim of a name, `{"won": false}` for every later one.
#[tool]
pub(crate) async fn claim(
    ctx: &Ctx,
    /// The name to claim.
    name: String,
) -> Result<Claimed, ToolError> {
    Ok(Claimed { won: ctx.state().set_if_absent(&format!("claim:{name}"), &true, None).await? })
}
