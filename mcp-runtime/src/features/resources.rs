//! Resources: what `#[resource]` registers, and `resources/list`, `resources/templates/list`
//! and `resources/read`. A read finds its resource (a fixed URI first, then the templates in
//! the order they were added), runs the handler with the template's variables, and turns its
//! value into `contents`. Failures are JSON-RPC errors carrying the envelope's `data`; a URI
//! that names nothing is "not found" in the code of the request's era.

use std::sync::Arc;

use base64::Engine as _;
use mcp_core::{Annotations, ContractEntry, Icon, ResourceContents, ToolError};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::auth::principal::Principal;

use crate::context::ask::{self, Reply};
use crate::context::ctx::{BoxFuture, Call, Caller};
use crate::features::call::{Failure, Handler, ResourceRead, Road, panicked, unknown};
use crate::features::uri_template::UriTemplate;
use crate::rpc::catch::CatchUnwind;
use crate::rpc::envelope::{Origin, Site, fail_rpc};
use crate::rpc::era::{Client, Era};
use crate::rpc::jsonrpc::RpcError;
use crate::rpc::request_id::RequestId;

/// Implemented by `#[resource]` for the type named after the fn.
pub trait ResourceDef: 'static {
    /// The resource's name, URI or template, metadata and handlers.
    fn spec() -> ResourceSpec;
}

/// A template's `list = fn`, as `#[resource]` wraps it.
pub type Lister = fn(Call) -> BoxFuture<'static, Result<Vec<Resource>, ToolError>>;

/// What `#[resource]` generates; built once, when the resource is registered.
pub struct ResourceSpec {
    /// The name (the fn's, or `name = ..`).
    pub name: &'static str,
    /// A display title.
    pub title: Option<&'static str>,
    /// The doc comment.
    pub description: &'static str,
    /// The URI, or the RFC 6570 template when `template` is set.
    pub uri: &'static str,
    /// `uri` is a template whose variables are the fn's parameters.
    pub template: bool,
    /// The contents' MIME type.
    pub mime_type: Option<&'static str>,
    /// The size in bytes, when known up front.
    pub size: Option<u64>,
    /// Audience, priority, last modification.
    pub annotations: Option<Annotations>,
    /// Icons for clients to show.
    pub icons: Vec<Icon>,
    /// The fn's module path.
    pub module: &'static str,
    /// The declared failure modes.
    pub contract: &'static [ContractEntry],
    /// One read: the variables' values are the call's arguments, by name.
    pub read: fn(Call) -> BoxFuture<'static, Result<ResourceBody, ToolError>>,
    /// A template's instances, for `resources/list` (`list = fn`).
    pub list: Option<Lister>,
    /// Completers of the template's variables (`complete(var = fn)`).
    pub complete: Vec<(&'static str, crate::features::completion::Completer)>,
    /// `#[resource(scopes(..))]`: the scopes a caller's token must grant to read it.
    pub scopes: &'static [&'static str],
    /// `#[resource(ui(..))]`: an MCP Apps view, and what it declares for its host (`_meta.ui`
    /// on its list entry and its read content).
    pub ui: Option<crate::features::apps::UiResource>,
}

/// A resource as `resources/list` shows it: what a `list = fn` returns for each instance of
/// a template (a directory's files, a table's rows).
///
/// ```
/// use mcp_runtime::Resource;
///
/// let note = Resource::new("notes://todo.md", "todo.md").mime_type("text/markdown").size(120);
/// ```
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    uri: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<Annotations>,
}

impl Resource {
    /// A resource with its URI and name; the MIME type is the template's unless set.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: None,
        }
    }

    /// A display title.
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What it holds.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Its MIME type.
    #[must_use]
    pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Its size in bytes.
    #[must_use]
    pub fn size(mut self, bytes: u64) -> Self {
        self.size = Some(bytes);
        self
    }

    /// Audience, priority, last modification.
    #[must_use]
    pub fn annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

/// What a resource handler returned, before it has a URI: text, bytes (sent as base64
/// `blob`), or contents of its own.
pub enum ResourceBody {
    /// `text`.
    Text(String),
    /// `blob`, base64-encoded on the wire.
    Bytes(Vec<u8>),
    /// Contents as they are (several, or with URIs of their own).
    Contents(Vec<ResourceContents>),
    /// A value's JSON text ([`Json`]): `text`, `application/json` unless the resource
    /// declares a `mime_type`.
    Json(String),
    /// The value could not become a body (a [`Json`] value that does not serialize).
    Failed(ToolError),
}

/// A `#[resource]` fn's value served as JSON: return `Json(value)` for any `Serialize`
/// value, and the client reads its compact JSON text with `mimeType: "application/json"`
/// (unless the resource declares a `mime_type` of its own). A value that cannot be
/// serialized (a map with non-string keys, a failing `Serialize` impl) fails the read with
/// `SerializationError` (-32070), its cause logged.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::Json;
///
/// #[derive(serde::Serialize)]
/// struct Stats {
///     notes: usize,
/// }
///
/// /// How many notes there are.
/// #[resource(uri = "notes://stats")]
/// fn stats() -> Json<Stats> {
///     Json(Stats { notes: 3 })
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let server = Server::builder("notes", "1").resource(stats).build().unwrap();
/// let read = server.read_resource("notes://stats").await.unwrap();
/// assert_eq!(read["contents"][0]["text"], r#"{"notes":3}"#);
/// assert_eq!(read["contents"][0]["mimeType"], "application/json");
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: serde::Serialize> IntoResource for Json<T> {
    fn into_resource(self) -> ResourceBody {
        match serde_json::to_string(&self.0) {
            Ok(text) => ResourceBody::Json(text),
            Err(e) => ResourceBody::Failed(
                ToolError::new(
                    mcp_core::ErrorCode::SerializationError,
                    "The resource's value could not be serialized as JSON.",
                )
                .with_source(e),
            ),
        }
    }
}

/// A return type of a `#[resource]` fn: `String` or `&'static str` (text), `Vec<u8>`
/// (bytes), [`ResourceContents`] or a `Vec` of them, or [`Json`] of any `Serialize` value
/// (its JSON text, `application/json`).
#[diagnostic::on_unimplemented(
    message = "a `#[resource]` fn cannot return `{Self}`",
    label = "return text (`String`), bytes (`Vec<u8>`), `ResourceContents` (one or a `Vec`), or `Json(value)` for a `Serialize` value",
    note = "wrap it in `Result<_, ToolError>` to fail"
)]
pub trait IntoResource {
    /// The body.
    fn into_resource(self) -> ResourceBody;
}

impl IntoResource for String {
    fn into_resource(self) -> ResourceBody {
        ResourceBody::Text(self)
    }
}

impl IntoResource for &'static str {
    fn into_resource(self) -> ResourceBody {
        ResourceBody::Text(self.to_owned())
    }
}

impl IntoResource for Vec<u8> {
    fn into_resource(self) -> ResourceBody {
        ResourceBody::Bytes(self)
    }
}

impl IntoResource for ResourceContents {
    fn into_resource(self) -> ResourceBody {
        ResourceBody::Contents(vec![self])
    }
}

impl IntoResource for Vec<ResourceContents> {
    fn into_resource(self) -> ResourceBody {
        ResourceBody::Contents(self)
    }
}

/// What a `list = fn` returns: `Vec<Resource>`, or a `Result` of it.
#[diagnostic::on_unimplemented(
    message = "a resource's `list` fn cannot return `{Self}`",
    label = "return `Vec<Resource>` or `Result<Vec<Resource>, ToolError>`"
)]
pub trait IntoListing {
    /// The listing, or why it failed.
    fn into_listing(self) -> Result<Vec<Resource>, ToolError>;
}

impl IntoListing for Vec<Resource> {
    fn into_listing(self) -> Result<Vec<Resource>, ToolError> {
        Ok(self)
    }
}

impl<E: Into<ToolError>> IntoListing for Result<Vec<Resource>, E> {
    fn into_listing(self) -> Result<Vec<Resource>, ToolError> {
        self.map_err(Into::into)
    }
}

/// A directory whose files are served as resources: names taken from URIs resolve inside
/// it, or not at all. `..`, an absolute path, and a symlink that leads out are refused as
/// `invalid_arguments` (`-32602`), without showing where the directory is.
///
/// ```
/// use mcp_runtime::ResourceDir;
///
/// let dir = std::env::temp_dir();
/// let notes = ResourceDir::new(&dir).unwrap();
/// assert!(notes.resolve("todo.md").unwrap().starts_with(notes.path()));
/// assert!(notes.resolve("../etc/passwd").is_err());
/// assert!(notes.resolve("/etc/passwd").is_err());
/// ```
#[derive(Clone, Debug)]
pub struct ResourceDir {
    root: std::path::PathBuf,
}

impl ResourceDir {
    /// The directory at `path`, which must exist (symlinks in `path` itself are resolved).
    ///
    /// # Errors
    ///
    /// When `path` does not exist or is not a directory.
    pub fn new(path: impl AsRef<std::path::Path>) -> std::io::Result<Self> {
        let root = std::fs::canonicalize(path)?;
        if !root.is_dir() {
            return Err(std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a directory"));
        }
        Ok(ResourceDir { root })
    }

    /// The directory, canonical.
    pub fn path(&self) -> &std::path::Path {
        &self.root
    }

    /// The path of `name` (relative, `/`-separated) inside the directory. It need not exist;
    /// when it does, or a directory above it does, the real path must be inside too.
    ///
    /// # Errors
    ///
    /// `invalid_arguments` for an empty name, `..`, `.`, an absolute path, or a path that a
    /// symlink leads out of the directory.
    pub fn resolve(&self, name: &str) -> Result<std::path::PathBuf, ToolError> {
        use std::path::Component;
        let relative = std::path::Path::new(name);
        let plain = !name.is_empty()
            && !name.contains('\0')
            && relative.components().all(|c| matches!(c, Component::Normal(_)));
        let outside = || {
            ToolError::invalid_params(format!(
                "`{}` is not a name inside the resource directory.",
                crate::rpc::envelope::display_name(name)
            ))
            .reason("invalid_arguments")
            .retryable(false)
            .hint("Use a relative name such as `notes/todo.md`, without `..`, `.` or a leading `/`; list resources to see the names.")
        };
        if !plain {
            return Err(outside());
        }
        let joined = self.root.join(relative);
        // The deepest part of the path that is there (a dangling symlink included) decides
        // where it really is: a link that resolves to nothing is refused, since a write
        // would follow it.
        let existing = joined.ancestors().find(|p| p.symlink_metadata().is_ok()).unwrap_or(&self.root);
        match std::fs::canonicalize(existing) {
            Ok(real) if real.starts_with(&self.root) => Ok(joined),
            _ => Err(outside()),
        }
    }
}

/// One registered resource.
pub(crate) struct Registered {
    pub(crate) spec: ResourceSpec,
    /// The parsed template, for a template resource.
    pub(crate) template: Option<UriTemplate>,
    /// An MCP Apps view's `_meta` (`{"ui": ..}`), made once here for its list entry and reads.
    view_meta: Option<Value>,
}

impl Registered {
    fn site(&self, caller: &Caller<'_>) -> Site<'_> {
        let (causes, drafts) = (caller.causes, caller.drafts);
        Site {
            family: "resource",
            tool: self.spec.name,
            contract: self.spec.contract,
            structured: true,
            causes,
            drafts,
        }
    }
}

/// A resource whose contents are known at `build()` (a skill's file): served as it is, on
/// the same road as any read (scopes, hooks, the envelope).
pub(crate) struct File {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) mime_type: &'static str,
    pub(crate) bytes: Arc<[u8]>,
    /// Shown by `resources/list` (else only read, by its URI).
    pub(crate) listed: bool,
    pub(crate) scopes: &'static [&'static str],
}

impl File {
    fn descriptor(&self, uri: &str) -> Value {
        let mut d = json!({"uri": uri, "name": self.name, "mimeType": self.mime_type, "size": self.bytes.len()});
        if let Some(description) = &self.description {
            d["description"] = Value::from(description.as_str());
        }
        d
    }
}

/// The resources served: fixed URIs and templates, in the order they were added, and files
/// by URI.
#[derive(Default)]
pub(crate) struct Resources {
    pub(crate) all: Vec<Registered>,
    pub(crate) files: std::collections::BTreeMap<String, File>,
}

impl Resources {
    /// Registers a resource, or says why it cannot be.
    pub(crate) fn add(&mut self, spec: ResourceSpec) -> Result<(), (&'static str, String)> {
        let bad = |message: String| (spec.name, message);
        if self.all.iter().any(|r| r.spec.name == spec.name) {
            return Err(bad("another resource has this name; give one of them `name = \"...\"`".to_owned()));
        }
        if self.all.iter().any(|r| r.spec.uri == spec.uri) {
            return Err(bad(format!("another resource is registered at `{}`", spec.uri)));
        }
        if self.files.contains_key(spec.uri) {
            return Err(bad(format!("a skill's file is served at `{}`", spec.uri)));
        }
        let template = if spec.template { Some(UriTemplate::parse(spec.uri).map_err(bad)?) } else { None };
        let view_meta = spec.ui.as_ref().map(crate::features::apps::UiResource::meta);
        self.all.push(Registered { spec, template, view_meta });
        Ok(())
    }

    /// Registers a file at `uri`, or says why it cannot be.
    pub(crate) fn add_file(&mut self, uri: String, file: File) -> Result<(), String> {
        if let Some(other) = self.all.iter().find(|r| r.template.is_none() && r.spec.uri == uri) {
            return Err(format!("resource `{}` is registered at `{uri}` already", other.spec.name));
        }
        if self.files.contains_key(&uri) {
            return Err(format!("another skill's file is served at `{uri}`"));
        }
        self.files.insert(uri, file);
        Ok(())
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.all.is_empty() && self.files.is_empty()
    }

    /// Whether the server has an MCP Apps view (`#[resource(ui)]`).
    pub(crate) fn has_views(&self) -> bool {
        self.all.iter().any(|r| r.spec.ui.is_some())
    }

    /// The URIs of the MCP Apps views.
    pub(crate) fn views(&self) -> Vec<&'static str> {
        self.all.iter().filter(|r| r.spec.ui.is_some()).map(|r| r.spec.uri).collect()
    }

    /// The resource `uri` names, and the values of its template's variables.
    fn find(&self, uri: &str) -> Option<(&Registered, Vec<String>)> {
        if let Some(fixed) = self.all.iter().find(|r| r.template.is_none() && r.spec.uri == uri) {
            return Some((fixed, Vec::new()));
        }
        self.all.iter().find_map(|r| Some((r, r.template.as_ref()?.matches(uri)?)))
    }

    /// The scopes a caller needs to read `uri`; `None` when no resource of this server has
    /// that URI (a fixed URI or a template's shape).
    pub(crate) fn scopes_of(&self, uri: &str) -> Option<&'static [&'static str]> {
        match self.files.get(uri) {
            Some(file) => Some(file.scopes),
            None => self.find(uri).map(|(r, _)| r.spec.scopes),
        }
    }

    /// The template resource written as `template`.
    pub(crate) fn template(&self, template: &str) -> Option<&Registered> {
        self.all.iter().find(|r| r.template.is_some() && r.spec.uri == template)
    }
}

/// `resources/list`: the fixed resources, then each template's listed instances; a resource
/// whose `scopes(..)` the caller lacks is left out (its `list` fn does not run).
pub(crate) async fn list(caller: &Caller<'_>, resources: &Resources) -> Result<Vec<Value>, RpcError> {
    let mut out = Vec::new();
    let principal = caller.channel.principal();
    for r in resources.all.iter().filter(|r| crate::auth::principal::grants(principal, r.spec.scopes)) {
        let spec = &r.spec;
        match (&r.template, spec.list) {
            (None, _) => out.push(descriptor(r, "uri")),
            (Some(_), Some(list)) => {
                let request_id = RequestId::generate();
                let listed = CatchUnwind((list)(caller.call(spec.name, Value::Null, request_id))).await;
                let listed = match listed {
                    Ok(listed) => listed.map_err(|e| fail_rpc(r.site(caller), e, request_id, Origin::Handler, None))?,
                    Err(payload) => return Err(panicked::<ResourceRead>(r.site(caller), &*payload, request_id)),
                };
                for mut resource in listed {
                    if resource.mime_type.is_none() {
                        resource.mime_type = spec.mime_type.map(str::to_owned);
                    }
                    if resource.annotations.is_none() {
                        resource.annotations.clone_from(&spec.annotations);
                    }
                    out.push(serde_json::to_value(&resource).unwrap_or_else(|_| unreachable!("strings and numbers")));
                }
            }
            (Some(_), None) => {}
        }
    }
    let files = resources.files.iter().filter(|(_, f)| f.listed && crate::auth::principal::grants(principal, f.scopes));
    out.extend(files.map(|(uri, f)| f.descriptor(uri)));
    Ok(out)
}

/// `resources/templates/list`: the templates `principal` may read.
pub(crate) fn templates(resources: &Resources, principal: Option<&Principal>) -> Vec<Value> {
    resources
        .all
        .iter()
        .filter(|r| r.template.is_some() && crate::auth::principal::grants(principal, r.spec.scopes))
        .map(|r| descriptor(r, "uriTemplate"))
        .collect()
}

fn descriptor(r: &Registered, uri_key: &str) -> Value {
    let spec = &r.spec;
    let mut d = Map::new();
    d.insert(uri_key.to_owned(), Value::from(spec.uri));
    d.insert("name".into(), Value::from(spec.name));
    if let Some(title) = spec.title {
        d.insert("title".into(), Value::from(title));
    }
    if !spec.description.is_empty() {
        d.insert("description".into(), Value::from(spec.description));
    }
    if let Some(mime) = spec.mime_type {
        d.insert("mimeType".into(), Value::from(mime));
    }
    if let Some(size) = spec.size {
        d.insert("size".into(), Value::from(size));
    }
    if let Some(a) = &spec.annotations {
        d.insert("annotations".into(), serde_json::to_value(a).unwrap_or_default());
    }
    if !spec.icons.is_empty() {
        d.insert("icons".into(), serde_json::to_value(&spec.icons).unwrap_or_default());
    }
    if let Some(meta) = &r.view_meta {
        d.insert("_meta".into(), meta.clone());
    }
    Value::Object(d)
}

/// The `ReadResourceRequest` params: `{uri: string}`.
pub(crate) fn read_request(params: Option<&Value>) -> Result<String, RpcError> {
    match params.and_then(|p| p.get("uri")) {
        Some(Value::String(uri)) => Ok(uri.clone()),
        Some(_) => Err(RpcError::invalid_params("Invalid params: `uri` must be a string")),
        None => Err(RpcError::invalid_params("Invalid params: resources/read needs params {uri}")),
    }
}

/// `resources/read` on the road (`features::call`): `{contents: [...]}`, or a JSON-RPC
/// error. A URI that names nothing is "not found", with a did-you-mean among the fixed URIs
/// this caller may read.
pub(crate) async fn read(
    caller: &Caller<'_>,
    resources: &Resources,
    uri: String,
    params: Option<&Value>,
) -> Result<Reply<Value>, RpcError> {
    let road = Road::<ResourceRead>::new(caller);
    let not_found = not_found_code(caller.client);
    if let Some(file) = resources.files.get(&uri) {
        return read_file(&road, file, uri).await;
    }
    let Some((resource, values)) = resources.find(&uri) else {
        let principal = caller.channel.principal();
        let listed = resources
            .all
            .iter()
            .filter(|r| r.template.is_none() && crate::auth::principal::grants(principal, r.spec.scopes))
            .map(|r| r.spec.uri);
        let files =
            resources.files.iter().filter(|(_, f)| f.listed && crate::auth::principal::grants(principal, f.scopes));
        let listed = listed.chain(files.map(|(uri, _)| uri.as_str()));
        let shown = shown(&uri);
        let err = unknown(
            ToolError::not_found(format!("Resource not found: {shown}")).reason("resource_not_found"),
            "List resources with resources/list (and templates with resources/templates/list), then read one of those URIs.",
            &shown,
            listed,
        )
        .data(json!({"uri": uri}));
        let site = Site::bare("resource", &shown, crate::rpc::envelope::Drafts::default());
        return Err(road.fail(site, err, Origin::Refusal, Some(not_found)));
    };
    let spec = &resource.spec;
    let site = resource.site(caller);
    road.admit(site, spec.scopes, &uri, None).await?;
    let names = resource.template.iter().flat_map(UriTemplate::variables);
    let args: Map<String, Value> = names.zip(values).map(|(n, v)| (n.to_owned(), Value::String(v))).collect();
    let args = Arc::new(Value::Object(args));
    let operation = ask::Operation::read(spec.name, Arc::from(uri.as_str()));
    let sealing = caller.sealing(&operation, road.request_id);
    let inputs = ask::inputs_of(caller.client, &sealing, params)?;
    let handler = Handler { name: spec.name, operation: &operation, sealing: &sealing, progress: None };
    let served =
        road.serve(&handler, inputs, |info| CatchUnwind((spec.read)(Call { args: Arc::clone(&args), info }))).await;
    let body = match served.into_rpc() {
        Ok(Reply::Complete(body)) => body,
        Ok(Reply::InputRequired(asked)) => return Ok(Reply::InputRequired(asked)),
        Ok(Reply::Task(task)) => return Ok(Reply::Task(task)),
        Err(Failure::Envelope(err, origin, code)) => {
            let not_found = (err.code() == mcp_core::ErrorCode::NotFound && code.is_none()).then_some(not_found);
            let err = if not_found.is_some() { with_uri(err, &uri) } else { err };
            return Err(road.fail(site, err, origin, code.or(not_found)));
        }
        Err(Failure::Rpc(e)) => return Err(e),
        Err(Failure::Panicked(payload)) => return Err(road.panicked(site, &*payload)),
    };
    let mime = spec.mime_type.map(str::to_owned);
    let contents = match body {
        ResourceBody::Text(text) => vec![ResourceContents::Text { uri, mime_type: mime, text }],
        ResourceBody::Json(text) => {
            vec![ResourceContents::Text {
                uri,
                mime_type: Some(mime.unwrap_or_else(|| "application/json".into())),
                text,
            }]
        }
        ResourceBody::Failed(err) => return Err(road.fail(site, err, Origin::Fault, None)),
        ResourceBody::Bytes(bytes) => vec![ResourceContents::Blob {
            uri,
            mime_type: mime,
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
        }],
        ResourceBody::Contents(contents) if contents.is_empty() => {
            let err = ToolError::not_found(format!("Resource not found: {}", shown(&uri)))
                .reason("resource_not_found")
                .retryable(false)
                .hint("List resources with resources/list, then read one of those URIs.");
            let err = with_uri(err, &uri);
            return Err(road.fail(site, err, Origin::Refusal, Some(not_found)));
        }
        ResourceBody::Contents(contents) => contents,
    };
    let mut contents = json!(contents);
    if let (Some(meta), Value::Array(contents)) = (&resource.view_meta, &mut contents) {
        // A view's page carries what it declares for its host (content wins over the list
        // entry for a host, so both say the same).
        for content in contents.iter_mut().filter(|c| c["uri"] == spec.uri) {
            content["_meta"] = meta.clone();
        }
    }
    Ok(Reply::Complete(json!({"contents": contents})))
}

/// A file's read: its scopes and the hooks, then its contents (text when it is UTF-8, else
/// a base64 `blob`).
async fn read_file(road: &Road<'_, ResourceRead>, file: &File, uri: String) -> Result<Reply<Value>, RpcError> {
    let caller = road.caller;
    let site = Site { causes: caller.causes, ..Site::bare("resource", &file.name, caller.drafts) };
    road.admit(site, file.scopes, &uri, None).await?;
    let mime_type = Some(file.mime_type.to_owned());
    let contents = match std::str::from_utf8(&file.bytes) {
        Ok(text) => ResourceContents::Text { uri, mime_type, text: text.to_owned() },
        Err(_) => ResourceContents::Blob {
            uri,
            mime_type,
            blob: base64::engine::general_purpose::STANDARD.encode(&file.bytes),
        },
    };
    Ok(Reply::Complete(json!({"contents": [contents]})))
}

/// Resource not found: `-32002` in 2025-11-25, `-32602` in 2026-07-28.
fn not_found_code(client: &Client) -> i32 {
    if client.era() == Era::Modern { -32602 } else { -32002 }
}

/// The failure with `data.uri` set, as "not found" carries it.
fn with_uri(err: ToolError, uri: &str) -> ToolError {
    err.data(json!({"uri": uri}))
}

/// A URI as a message shows it: control characters removed, cut at 256 characters.
fn shown(uri: &str) -> String {
    let clean: String = uri.chars().filter(|c| !c.is_control()).take(256).collect();
    if uri.chars().count() > 256 { format!("{clean}…") } else { clean }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_stay_inside_the_directory() {
        let root = std::env::temp_dir().join(format!("mcp-resource-dir-{}", std::process::id()));
        let outside = std::env::temp_dir().join(format!("mcp-resource-out-{}", std::process::id()));
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("sub/a.md"), "a").unwrap();
        std::fs::write(outside.join("secret"), "s").unwrap();
        #[cfg(unix)]
        {
            let _ = std::fs::remove_file(root.join("leak"));
            std::os::unix::fs::symlink(&outside, root.join("leak")).unwrap();
        }
        let dir = ResourceDir::new(&root).unwrap();
        assert!(dir.resolve("sub/a.md").unwrap().ends_with("sub/a.md"));
        assert!(dir.resolve("new.md").is_ok(), "a name that does not exist yet is inside");
        for bad in ["", "..", "../x", "sub/../../x", "/etc/passwd", "./sub/a.md", "a\0b"] {
            let err = dir.resolve(bad).unwrap_err();
            assert_eq!(err.code(), mcp_core::ErrorCode::InvalidParams, "{bad:?}");
            assert!(!err.message_str().contains(root.to_str().unwrap()), "never shows the directory: {bad:?}");
        }
        #[cfg(unix)]
        {
            assert!(dir.resolve("leak/secret").is_err(), "a symlink out is refused");
            assert!(dir.resolve("leak/new").is_err(), "a new file under a symlink out is refused");
            let _ = std::fs::remove_file(root.join("dangling"));
            std::os::unix::fs::symlink(outside.join("not-yet"), root.join("dangling")).unwrap();
            assert!(dir.resolve("dangling").is_err(), "a dangling symlink out is refused");
        }
        let _ = std::fs::remove_dir_all(&root);
        let _ = std::fs::remove_dir_all(&outside);
    }
}
