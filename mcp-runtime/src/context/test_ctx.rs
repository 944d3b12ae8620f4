//! `TestCtx`: the context of a handler called directly in a unit test, built beside
//! `TestClient` so that no method of `Ctx` exists only for tests.

use std::any::TypeId;
use std::sync::Arc;
use std::time::Instant;

use mcp_core::{Contract, ToolError};
use serde_json::Value;

use crate::auth::principal::Principal;
use crate::context::ask::{Ask, Inputs, Operation};
use crate::context::ctx::{CallInfo, Ctx, FromCall};
use crate::rpc::channel::Channel;
use crate::rpc::era::Client;
use crate::rpc::request_id::RequestId;
use crate::state::store::Stores;

/// Builds the context of a handler called directly in a unit test
/// (`my_tool::handler(&ctx, …)`): it belongs to no client, so logs go to stderr only and
/// progress goes nowhere; `ctx.era()` is legacy and the client declared nothing;
/// `ctx.state()` is an empty in-memory store of its own; the caller is the local principal
/// unless [`TestCtx::principal`] names another. `ctx.fail(..)` builds the same `ToolError`
/// as in a real call (the contract's recovery hint is filled in later, by the runtime).
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::testing::TestCtx;
///
/// struct Greeting(&'static str);
///
/// /// Greets someone.
/// #[tool]
/// fn greet(ctx: &Ctx, name: String) -> Result<String, ToolError> {
///     Ok(format!("{}, {name}", ctx.app_data::<Greeting>()?.0))
/// }
///
/// let ctx = TestCtx::new().app_data(Greeting("Hello")).build();
/// assert_eq!(greet::handler(&ctx, "Ada".into()).unwrap(), "Hello, Ada");
/// ```
pub struct TestCtx {
    stores: Stores,
    principal: Option<Principal>,
    inputs: Inputs,
}

impl Default for TestCtx {
    fn default() -> Self {
        TestCtx::new()
    }
}

impl std::fmt::Debug for TestCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestCtx").field("principal", &self.principal).finish_non_exhaustive()
    }
}

impl TestCtx {
    /// A context with no app data, the local principal and no answers.
    #[must_use]
    pub fn new() -> Self {
        TestCtx { stores: Stores::default(), principal: None, inputs: Inputs::default() }
    }

    /// Registers app data, as `ServerBuilder::app_data` does for a server.
    #[must_use]
    pub fn app_data<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.stores.app_data.insert(TypeId::of::<T>(), Box::new(value));
        self
    }

    /// The caller, as an authorized HTTP request would carry it: `ctx.principal()` returns
    /// it and `ctx.require_scopes(..)` checks its scopes.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::testing::TestCtx;
    ///
    /// let ctx: Ctx = TestCtx::new().principal(Principal::new("user-42").with_scopes(["notes:read"])).build();
    /// assert!(ctx.require_scopes(&["notes:read"]).is_ok());
    /// assert!(ctx.require_scopes(&["notes:write"]).is_err());
    /// ```
    #[must_use]
    pub fn principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }

    /// This round's answers, as a retry or the legacy shim would give them (build them with
    /// [`Inputs::for_test`]).
    #[must_use]
    pub fn inputs(mut self, inputs: Inputs) -> Self {
        self.inputs = inputs;
        self
    }

    /// The context, for a tool whose reasons are `R` (`Ctx` alone: a tool without declared
    /// failures).
    #[must_use]
    pub fn build<R: Contract>(self) -> Ctx<R> {
        let mut channel = Channel::new(None, None).with_local(Some(Arc::new(Principal::local())));
        if let Some(principal) = self.principal {
            channel.set_principal(principal);
        }
        Ctx::from_call(info(
            Arc::new(channel),
            Arc::new(self.stores),
            Operation::named("tools/call", "test"),
            self.inputs,
        ))
    }

    /// The context of the next round of a handler that asked (`asked`, the error it
    /// returned from `ctx.ask(..)` or `ctx.consent(..)`): the client answered `answers` (an
    /// object keyed as asked, each as a client sends it; see [`Inputs::for_test`]) and sent
    /// back the ask's state. It shares `ctx`'s caller, app data and state store, so a consent
    /// recorded in one round is there to redeem in the next. The client declared
    /// `capabilities` (answers they do not allow are dropped).
    ///
    /// # Panics
    ///
    /// When `asked` is not an ask: the test's handler did not ask.
    #[must_use]
    pub fn next_round<R: Contract>(ctx: &Ctx<R>, asked: &ToolError, answers: Value, capabilities: &Value) -> Ctx<R> {
        let Some(ask) = asked.__ask().and_then(|a| a.downcast_ref::<Ask>()) else {
            panic!("TestCtx::next_round: the handler did not ask ({asked:?})");
        };
        let was = ctx.call_info();
        let inputs = Inputs::for_test(answers, ask.state.as_deref(), Some(capabilities));
        Ctx::from_call(info(Arc::clone(&was.channel), Arc::clone(&was.stores), was.operation.clone(), inputs))
    }

    /// Cancels `ctx` as its client would, to test how a handler ends then:
    /// `ctx.is_cancelled()` turns `true` and `ctx.cancelled()` resolves.
    pub fn cancel<R: Contract>(ctx: &Ctx<R>) {
        ctx.call_info().cancel.cancel();
    }
}

fn info(channel: Arc<Channel>, stores: Arc<Stores>, operation: Operation, inputs: Inputs) -> CallInfo {
    CallInfo {
        tool: "test",
        request_id: RequestId::generate(),
        started: Instant::now(),
        channel,
        client: Client::Legacy(Arc::default()),
        stores,
        operation,
        notices: Arc::default(),
        progress: None,
        inputs,
        cancel: Arc::default(),
        task: None,
    }
}
