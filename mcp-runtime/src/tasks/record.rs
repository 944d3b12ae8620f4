//! A task as the state store keeps it, every change it can go through, and its wire shapes.
//!
//! ```text
//!            ask                         answer (the last key)
//! working ──────────▶ input_required ───────────────────────▶ working (ready: run again)
//!    │                     │
//!    │ complete / fail     │ cancel (nothing runs: at once)
//!    │ cancelled (runner)  │ expire, lose the lease
//!    ▼                     ▼
//! completed · failed · cancelled   (terminal: nothing changes them again)
//! ```
//!
//! Every change is a method that says whether it changed anything; the book writes a
//! changed record back with compare-and-set, so concurrent changes on several replicas
//! never lose one another. A cancel asked while the handler runs only sets `cancel`: the
//! replica running it stops the handler and ends the task `cancelled`. What a reader finds
//! past the TTL, or past the lease of the replica that runs it, it ends `failed` (`settle`).

use std::fmt::Write as _;

use mcp_core::ToolError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::rpc::envelope::{Origin, Site, fail_rpc};
use crate::rpc::request_id::RequestId;

/// A task's status, as the wire names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl Status {
    /// As the wire names it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    pub(crate) fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// An outstanding request of a task: the handler's key for it, and the request as sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pending {
    pub(crate) key: String,
    pub(crate) request: Value,
}

/// One task.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Record {
    pub(crate) id: String,
    /// The binding of the principal that created it: nobody else finds it.
    pub(crate) owner: String,
    pub(crate) tool: String,
    /// The `tools/call`'s request id: the envelope of its outcome and its logs carry it.
    pub(crate) request_id: String,
    pub(crate) status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) status_message: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub(crate) created_at: u64,
    /// When its status, outstanding requests or outcome last changed.
    pub(crate) updated_at: u64,
    pub(crate) ttl_ms: u64,
    pub(crate) poll_ms: u64,
    /// Until when the replica that runs it vouches for it; renewed while it runs.
    pub(crate) lease_until: u64,
    /// Which replica runs it (for logs).
    pub(crate) runner: String,
    /// Bumped by every write.
    pub(crate) rev: u64,
    /// A client asked to cancel it while its handler ran.
    #[serde(default)]
    pub(crate) cancel: bool,
    /// Outstanding requests by the key the wire shows (unique over the task's life).
    #[serde(default)]
    pub(crate) asks: Map<String, Value>,
    /// Every key ever shown, so that none is used twice.
    #[serde(default)]
    pub(crate) issued: Vec<String>,
    /// This round's answers, by the handler's keys.
    #[serde(default)]
    pub(crate) answers: Map<String, Value>,
    /// The state the handler gave with its ask, for its next round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) state: Option<String>,
    /// Every request is answered (or none was made): the handler runs again.
    #[serde(default)]
    pub(crate) ready: bool,
    /// Rounds of asking so far.
    #[serde(default)]
    pub(crate) rounds: u32,
    /// Completed: the `CallToolResult`, as a 2026-07-28 call would have been answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<Value>,
    /// Failed: the JSON-RPC error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<Value>,
}

/// What a handler's next round reads: the answers by its keys, and its state.
pub(crate) type Resumed = (Vec<(String, Value)>, Option<String>);

/// What a new task starts with.
pub(crate) struct Seed<'a> {
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) tool: &'a str,
    pub(crate) request_id: RequestId,
    pub(crate) runner: &'a str,
    pub(crate) now: u64,
    pub(crate) ttl_ms: u64,
    pub(crate) poll_ms: u64,
    pub(crate) lease_ms: u64,
}

impl Record {
    /// A working task.
    pub(crate) fn new(seed: Seed<'_>) -> Record {
        Record {
            id: seed.id,
            owner: seed.owner,
            tool: seed.tool.to_owned(),
            request_id: seed.request_id.as_str().to_owned(),
            status: Status::Working,
            status_message: None,
            created_at: seed.now,
            updated_at: seed.now,
            ttl_ms: seed.ttl_ms,
            poll_ms: seed.poll_ms,
            lease_until: seed.now.saturating_add(seed.lease_ms),
            runner: seed.runner.to_owned(),
            rev: 0,
            cancel: false,
            asks: Map::new(),
            issued: Vec::new(),
            answers: Map::new(),
            state: None,
            ready: false,
            rounds: 0,
            result: None,
            error: None,
        }
    }

    pub(crate) fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }

    /// When its TTL ends.
    pub(crate) fn expires_at(&self) -> u64 {
        self.created_at.saturating_add(self.ttl_ms)
    }

    fn touched(&mut self, now: u64) {
        self.updated_at = self.updated_at.max(now);
    }

    /// Ends it (completed, failed or cancelled), once: a terminal task stays as it is.
    fn end(&mut self, status: Status, message: Option<String>, now: u64) -> bool {
        if self.is_terminal() {
            return false;
        }
        self.status = status;
        self.status_message = message;
        self.asks.clear();
        self.answers.clear();
        self.state = None;
        self.ready = false;
        self.touched(now);
        true
    }

    /// The handler's result (`isError` or not): `completed`.
    pub(crate) fn complete(&mut self, result: Value, now: u64) -> bool {
        let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
        let message = failed.then(|| "The tool reported an error; see result.".to_owned());
        if !self.end(Status::Completed, message, now) {
            return false;
        }
        self.result = Some(result);
        true
    }

    /// A JSON-RPC error: `failed`, with its message as the status message.
    pub(crate) fn fail(&mut self, error: Value, now: u64) -> bool {
        let message = error.get("message").and_then(Value::as_str).map(str::to_owned);
        if !self.end(Status::Failed, message, now) {
            return false;
        }
        self.error = Some(error);
        true
    }

    /// The handler stopped after a cancel: `cancelled`.
    pub(crate) fn cancelled(&mut self, now: u64) -> bool {
        self.end(Status::Cancelled, Some("Cancelled by the client.".to_owned()), now)
    }

    /// `tasks/cancel`: a task waiting for input is cancelled at once (nothing runs); a
    /// working one is marked, for the replica that runs it. A terminal one is left alone.
    pub(crate) fn request_cancel(&mut self, now: u64) -> bool {
        match self.status {
            Status::InputRequired => self.cancelled(now),
            Status::Working if !self.cancel => {
                self.cancel = true;
                true
            }
            _ => false,
        }
    }

    /// The handler asks (`requests`, by its keys, and `state` for its next round): the task
    /// waits for input under keys never shown before. Without requests it runs again at
    /// once, with the state.
    pub(crate) fn ask(&mut self, requests: Vec<(String, Value)>, state: Option<String>, now: u64) -> bool {
        if self.status != Status::Working {
            return false;
        }
        self.state = state;
        self.answers.clear();
        if requests.is_empty() {
            self.ready = true;
            return true;
        }
        for (key, request) in requests {
            let wire = self.fresh_key(&key);
            self.issued.push(wire.clone());
            let pending = Pending { key, request };
            self.asks.insert(wire, serde_json::to_value(pending).unwrap_or_default());
        }
        self.status = Status::InputRequired;
        self.status_message = Some("The tool needs input: answer inputRequests with tasks/update.".to_owned());
        self.touched(now);
        true
    }

    /// The handler's latest progress (`ctx.progress`) as the status message of a working
    /// task: whether it changed.
    pub(crate) fn progress(&mut self, message: String, now: u64) -> bool {
        if self.status != Status::Working || self.status_message.as_deref() == Some(message.as_str()) {
            return false;
        }
        self.status_message = Some(message);
        self.touched(now);
        true
    }

    /// `key` when it was never shown, else `key.2`, `key.3`, … : unique over the task's life.
    fn fresh_key(&self, key: &str) -> String {
        if !self.issued.iter().any(|k| k == key) {
            return key.to_owned();
        }
        // Of these `issued.len() + 1` candidates, at most `issued.len()` are taken.
        (2..=self.issued.len() + 2)
            .map(|n| format!("{key}.{n}"))
            .find(|k| !self.issued.contains(k))
            .unwrap_or_else(|| format!("{key}.{}", self.issued.len() + 3))
    }

    /// `tasks/update`: each answer to an outstanding request is kept for the handler's
    /// next round and its request leaves `inputRequests`; other keys are ignored. The last
    /// answer makes it `working` and ready to run again.
    pub(crate) fn answer(&mut self, responses: Map<String, Value>, now: u64) -> bool {
        if self.status != Status::InputRequired {
            return false;
        }
        let mut changed = false;
        for (wire, response) in responses {
            let Some(pending) = self.asks.remove(&wire) else { continue };
            let key = pending.get("key").and_then(Value::as_str).unwrap_or(&wire).to_owned();
            self.answers.insert(key, response);
            changed = true;
        }
        if !changed {
            return false;
        }
        if self.asks.is_empty() {
            self.status = Status::Working;
            self.status_message = None;
            self.ready = true;
        }
        self.touched(now);
        true
    }

    /// Takes what the handler's next round reads (answers by its keys, and its state), when
    /// it is ready to run again.
    pub(crate) fn resume(&mut self) -> Option<Resumed> {
        if self.status != Status::Working || !self.ready {
            return None;
        }
        self.ready = false;
        self.rounds += 1;
        Some((std::mem::take(&mut self.answers).into_iter().collect(), self.state.take()))
    }

    /// The running replica vouches for it until `until`.
    pub(crate) fn renew(&mut self, until: u64) -> bool {
        if self.is_terminal() || until <= self.lease_until {
            return false;
        }
        self.lease_until = until;
        true
    }

    /// What a reader finds at `now`: past its TTL, or past the lease of the replica that
    /// runs it (which stopped), a task that has not ended is `failed`. Only a replica that
    /// does not run the task reads it so; its runner reads it with [`Record::expire`].
    pub(crate) fn settle(&mut self, now: u64) -> bool {
        if self.expire(now) {
            return true;
        }
        if !self.is_terminal() && now > self.lease_until {
            let error = self.lost();
            return self.fail(error, now);
        }
        false
    }

    /// What the replica running it finds at `now`: past its TTL, a task that has not ended
    /// is `failed`. A lease that lapsed is not: the runner is alive (it is reading), and only
    /// missed its renewals because the store did not answer; it renews it now and writes its
    /// outcome when it has one.
    pub(crate) fn expire(&mut self, now: u64) -> bool {
        if self.is_terminal() || now < self.expires_at() {
            return false;
        }
        let error = self.expired();
        self.fail(error, now)
    }

    /// The failure of a task past its TTL.
    pub(crate) fn expired(&self) -> Value {
        let err = ToolError::timeout(format!(
            "Task expired: tool {} did not finish within the task's ttlMs of {} ms.",
            self.tool, self.ttl_ms
        ))
        .reason("task_expired")
        .retryable(true)
        .hint("Call the tool again; if it keeps expiring, narrow its input.");
        self.protocol_error(err)
    }

    /// The failure of a task whose replica stopped before it finished.
    pub(crate) fn lost(&self) -> Value {
        let err = ToolError::service_unavailable(format!(
            "Task lost: the server running tool {} stopped before it finished.",
            self.tool
        ))
        .reason("task_lost")
        .retryable(true)
        .hint("Call the tool again; the work did not complete.");
        self.protocol_error(err)
    }

    /// The failure of a task whose replica shut down (SIGTERM) before it finished: released
    /// at once, so that no client waits for the lease to lapse.
    #[cfg(feature = "http")]
    pub(crate) fn shut_down(&self) -> Value {
        let err = ToolError::service_unavailable(format!(
            "Task failed: the server replica running tool {} shut down before it finished.",
            self.tool
        ))
        .reason("replica_shutdown")
        .retryable(true)
        .hint("Call the tool again; another replica will run it. The work did not complete.");
        self.protocol_error(err)
    }

    /// `err` as the JSON-RPC error (`-32603`) a failed task carries, in the envelope's terms
    /// (`data`: reason, retryable, recovery hint, the call's request id); logged once.
    fn protocol_error(&self, err: ToolError) -> Value {
        let site = Site::bare("tool", &self.tool, crate::rpc::envelope::Drafts::default());
        let request_id = RequestId::parse(&self.request_id).unwrap_or_else(RequestId::generate);
        let rpc = fail_rpc(site, err, request_id, Origin::Fault, Some(-32603));
        error_value(&rpc)
    }

    /// The `Task` members: `taskId`, `status`, `statusMessage`, `createdAt`,
    /// `lastUpdatedAt`, `ttlMs`, `pollIntervalMs`.
    pub(crate) fn task(&self) -> Map<String, Value> {
        let mut task = Map::with_capacity(8);
        task.insert("taskId".into(), Value::from(self.id.as_str()));
        task.insert("status".into(), serde_json::to_value(self.status).unwrap_or_default());
        if let Some(message) = &self.status_message {
            task.insert("statusMessage".into(), Value::from(message.as_str()));
        }
        task.insert("createdAt".into(), Value::from(iso8601(self.created_at)));
        task.insert("lastUpdatedAt".into(), Value::from(iso8601(self.updated_at)));
        task.insert("ttlMs".into(), Value::from(self.ttl_ms));
        task.insert("pollIntervalMs".into(), Value::from(self.poll_ms));
        task
    }

    /// The `DetailedTask` of `tasks/get` and `notifications/tasks`: the task and, by status,
    /// its `inputRequests`, `result` or `error`.
    pub(crate) fn detailed(&self) -> Map<String, Value> {
        let mut task = self.task();
        match self.status {
            Status::InputRequired => {
                let requests: Map<String, Value> = self
                    .asks
                    .iter()
                    .map(|(wire, pending)| (wire.clone(), pending.get("request").cloned().unwrap_or_default()))
                    .collect();
                task.insert("inputRequests".into(), Value::Object(requests));
            }
            Status::Completed => {
                task.insert("result".into(), self.result.clone().unwrap_or_else(|| Value::Object(Map::new())));
            }
            Status::Failed => {
                task.insert("error".into(), self.error.clone().unwrap_or_default());
            }
            Status::Working | Status::Cancelled => {}
        }
        task
    }
}

/// A JSON-RPC error object: `{code, message, data?}`.
pub(crate) fn error_value(error: &crate::rpc::jsonrpc::RpcError) -> Value {
    let mut value = Map::with_capacity(3);
    value.insert("code".into(), Value::from(error.code));
    value.insert("message".into(), Value::from(error.message.as_str()));
    if let Some(data) = &error.data {
        value.insert("data".into(), data.clone());
    }
    Value::Object(value)
}

/// Milliseconds since the Unix epoch as ISO 8601 in UTC: `2026-12-03T09:36:00.123Z`.
pub(crate) fn iso8601(ms: u64) -> String {
    let days = i64::try_from(ms / 86_400_000).unwrap_or(i64::MAX / 2);
    let in_day = ms % 86_400_000;
    // Howard Hinnant's `civil_from_days`.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let mut out = String::with_capacity(24);
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LEASE: u64 = 15_000;

    fn working(now: u64) -> Record {
        Record::new(Seed {
            id: "t1".into(),
            owner: String::new(),
            tool: "slow_job",
            request_id: RequestId::generate(),
            runner: "r1",
            now,
            ttl_ms: 60_000,
            poll_ms: 1000,
            lease_ms: LEASE,
        })
    }

    fn form(message: &str) -> Value {
        json!({"method": "elicitation/create", "params": {"message": message, "requestedSchema": {"type": "object"}}})
    }

    fn responses(pairs: &[(&str, Value)]) -> Map<String, Value> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
    }

    #[test]
    fn working_completes_with_the_result_and_nothing_changes_it_after() {
        let mut task = working(1000);
        let result = json!({"resultType": "complete", "content": [{"type": "text", "text": "{\"done\":5}"}]});
        assert!(task.complete(result.clone(), 2000));
        assert_eq!((task.status, task.updated_at), (Status::Completed, 2000));
        assert_eq!(task.detailed()["result"], result);
        assert!(task.status_message.is_none());
        // Terminal: no later change takes.
        assert!(!task.complete(json!({}), 3000));
        assert!(!task.fail(json!({"code": -32603, "message": "x"}), 3000));
        assert!(!task.cancelled(3000));
        assert!(!task.request_cancel(3000), "a cancel of a terminal task changes nothing (the same empty ack)");
        assert!(!task.renew(99_000));
        assert!(!task.settle(10_000_000), "past its TTL a terminal task keeps its outcome");
        assert!(!task.ask(vec![("k".into(), form("?"))], None, 3000));
        assert!(!task.answer(responses(&[("k", json!({"action": "accept"}))]), 3000));
        assert_eq!(task.detailed()["result"], result);
    }

    #[test]
    fn an_error_result_completes_too_and_says_so() {
        let mut task = working(0);
        assert!(task.complete(json!({"content": [], "isError": true}), 1));
        assert_eq!(task.status, Status::Completed);
        assert_eq!(task.status_message.as_deref(), Some("The tool reported an error; see result."));
    }

    #[test]
    fn a_protocol_error_fails_it_with_the_error_and_no_result() {
        let mut task = working(0);
        assert!(task.fail(json!({"code": -32021, "message": "Cannot request input"}), 5));
        let detailed = task.detailed();
        assert_eq!(detailed["status"], "failed");
        assert_eq!(detailed["error"], json!({"code": -32021, "message": "Cannot request input"}));
        assert_eq!(detailed["statusMessage"], "Cannot request input");
        assert!(!detailed.contains_key("result"));
    }

    #[test]
    fn a_cancel_marks_a_working_task_and_ends_one_waiting_for_input() {
        let mut task = working(0);
        assert!(task.request_cancel(10));
        assert_eq!((task.status, task.cancel), (Status::Working, true));
        assert!(!task.request_cancel(11), "asked once");
        assert!(task.cancelled(20));
        assert_eq!(task.status, Status::Cancelled);
        assert!(!task.detailed().contains_key("result"));

        let mut waiting = working(0);
        assert!(waiting.ask(vec![("confirm".into(), form("Sure?"))], None, 5));
        assert!(waiting.request_cancel(6));
        assert_eq!(waiting.status, Status::Cancelled);
        assert!(waiting.asks.is_empty());
    }

    #[test]
    fn asks_wait_for_every_answer_and_keys_are_never_reused() {
        let mut task = working(0);
        let asked = vec![("name".to_owned(), form("Name?")), ("confirm".to_owned(), form("Sure?"))];
        assert!(task.ask(asked, Some("step-1".into()), 10));
        assert_eq!(task.status, Status::InputRequired);
        let shown = task.detailed();
        let keys: Vec<&String> = shown["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "confirm"]);
        assert_eq!(shown["inputRequests"]["name"], form("Name?"));

        // A key never issued, then a partial answer: the rest stays outstanding.
        assert!(!task.answer(responses(&[("nope", json!({"action": "accept"}))]), 11));
        assert!(task.answer(responses(&[("name", json!({"action": "accept", "content": {"name": "Ada"}}))]), 12));
        assert_eq!(task.status, Status::InputRequired);
        let keys: Vec<String> = task.detailed()["inputRequests"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["confirm"]);
        assert!(task.resume().is_none(), "not ready while a request is outstanding");
        // An answered key answered again is ignored.
        assert!(!task.answer(responses(&[("name", json!({"action": "decline"}))]), 13));

        assert!(task.answer(responses(&[("confirm", json!({"action": "accept", "content": {"ok": true}}))]), 14));
        assert_eq!((task.status, task.ready), (Status::Working, true));
        assert!(!task.detailed().contains_key("inputRequests"));
        let (answers, state) = task.resume().expect("ready");
        assert_eq!(state.as_deref(), Some("step-1"));
        let keys: Vec<&str> = answers.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["name", "confirm"]);
        assert_eq!(answers[0].1, json!({"action": "accept", "content": {"name": "Ada"}}));
        assert_eq!((task.rounds, task.ready), (1, false));

        // The handler asks for `confirm` again: a new key, since `confirm` was answered.
        assert!(task.ask(vec![("confirm".into(), form("Really?"))], None, 20));
        let keys: Vec<String> = task.detailed()["inputRequests"].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["confirm.2"]);
        assert!(!task.answer(responses(&[("confirm", json!({"action": "accept"}))]), 21), "the old key is spent");
        assert!(task.answer(responses(&[("confirm.2", json!({"action": "accept"}))]), 22));
        let (answers, _) = task.resume().expect("ready");
        assert_eq!(answers[0].0, "confirm", "the handler reads its own key");
    }

    #[test]
    fn progress_is_the_status_message_of_a_working_task_only() {
        let mut task = working(1);
        assert!(task.progress("1 of 3: a".into(), 2));
        assert!(!task.progress("1 of 3: a".into(), 3), "the same message changes nothing");
        assert_eq!(task.task()["statusMessage"], "1 of 3: a");
        assert!(task.ask(vec![("k".into(), form("Go on?"))], None, 4));
        assert!(!task.progress("2 of 3: b".into(), 5), "a task waiting for input keeps its message");
        assert!(task.complete(json!({"content": []}), 6));
        assert!(!task.progress("3 of 3: c".into(), 7));
        assert!(task.status_message.is_none());
    }

    #[test]
    fn an_ask_of_state_alone_runs_again_at_once() {
        let mut task = working(0);
        assert!(task.ask(Vec::new(), Some("next".into()), 1));
        assert_eq!(task.status, Status::Working);
        assert_eq!(task.resume(), Some((Vec::new(), Some("next".into()))));
    }

    #[test]
    fn past_its_ttl_a_task_fails_retryably() {
        let mut task = working(1000);
        assert!(task.renew(61_000 + LEASE));
        assert!(!task.settle(60_999), "not before the TTL ends");
        assert!(task.settle(61_000));
        assert_eq!(task.status, Status::Failed);
        let error = &task.detailed()["error"];
        assert_eq!(error["code"], -32603);
        assert_eq!(error["data"]["reason"], "task_expired");
        assert_eq!(error["data"]["retryable"], true);
        assert_eq!(error["data"]["requestId"], task.request_id.as_str());
        assert!(error["message"].as_str().unwrap().contains("ttlMs of 60000 ms"), "{error}");
        // A task waiting for input expires the same way, its requests gone.
        let mut waiting = working(0);
        assert!(waiting.ask(vec![("k".into(), form("?"))], None, 1));
        assert!(waiting.renew(120_000));
        assert!(waiting.settle(60_000));
        assert_eq!(waiting.status, Status::Failed);
        assert!(waiting.asks.is_empty() && !waiting.detailed().contains_key("inputRequests"));
        assert_eq!(waiting.detailed()["error"]["data"]["reason"], "task_expired");
    }

    #[test]
    fn past_the_runners_lease_a_task_is_lost_retryably() {
        let mut task = working(1000);
        assert!(!task.settle(1000 + LEASE), "the lease holds up to its last millisecond");
        assert!(task.renew(30_000));
        assert!(!task.renew(29_000), "a lease never shrinks");
        assert!(!task.settle(30_000));
        assert!(task.settle(30_001));
        let error = &task.detailed()["error"];
        assert_eq!(error["data"]["reason"], "task_lost");
        assert_eq!(error["data"]["retryable"], true);
        assert_eq!(error["data"]["recovery"]["hint"], "Call the tool again; the work did not complete.");
        // A task waiting for input is lost the same way: its replica runs it again.
        let mut waiting = working(0);
        assert!(waiting.ask(vec![("k".into(), form("?"))], None, 1));
        assert!(waiting.settle(LEASE + 1));
        assert_eq!(waiting.status, Status::Failed);
    }

    #[test]
    fn its_runner_never_loses_a_task_whose_lease_lapsed_only_its_ttl_ends_it() {
        let mut task = working(1000);
        assert!(!task.expire(1000 + LEASE + 20_000), "a store stall longer than the lease: still working");
        assert_eq!(task.status, Status::Working);
        assert!(task.renew(1000 + LEASE + 20_000 + LEASE), "and the runner renews it");
        assert!(task.complete(json!({"content": []}), 1000 + LEASE + 20_001), "then writes its outcome");
        let mut late = working(1000);
        assert!(late.expire(61_000), "past its TTL, though, it ends");
        assert_eq!(late.detailed()["error"]["data"]["reason"], "task_expired");
    }

    #[test]
    fn the_wire_shape_is_flat_with_integer_milliseconds() {
        let task = working(1_764_754_560_123);
        assert_eq!(
            Value::Object(task.task()),
            json!({"taskId": "t1", "status": "working", "createdAt": "2025-12-03T09:36:00.123Z",
                   "lastUpdatedAt": "2025-12-03T09:36:00.123Z", "ttlMs": 60000, "pollIntervalMs": 1000})
        );
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        let back: Record = serde_json::from_str(&serde_json::to_string(&task).unwrap()).unwrap();
        assert_eq!(back, task);
    }
}
