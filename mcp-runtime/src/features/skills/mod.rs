//! Skills (`io.modelcontextprotocol/skills`, SEP-2640): `skills/list`, `skills/get` and
//! `resources/directory/read`. A skill is a folder, a `SKILL.md` and its files; each file is
//! a resource of the resources family (`skill://<name>/<path>`, read with `resources/read`
//! on its road: scopes, hooks, the envelope), so this module keeps only the entries: the
//! frontmatter rendered once (`frontmatter`), each file's digest and size. Everything is
//! read, checked and hashed at `build()`; a request only looks it up.

pub(crate) mod frontmatter;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};
use sha2::Digest as _;

use crate::auth::principal::{Principal, grants};
use crate::features::resources::{File, Resources};
use crate::rpc::jsonrpc::RpcError;

/// The extension's identifier, under `capabilities.extensions`.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The most files a skill may have, `SKILL.md` included (the extension's limit: hosts need
/// not load more).
const MAX_FILES: usize = 512;

/// The most bytes a skill's files may hold together (16 MiB, the extension's limit).
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// A skill declared in code: its `SKILL.md` and its other files, each from `include_str!`,
/// `include_bytes!` or generated. Served as `skill://<name>/SKILL.md` (the `name` of its
/// frontmatter) and `skill://<name>/<path>`; checked at `build()` like a skill on disk.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::Skill;
///
/// let release = Skill::new("---\nname: release\ndescription: Cut a release of this project.\n---\n\nRead `references/CHECKLIST.md`.\n")
///     .file("references/CHECKLIST.md", "1. Bump the version.\n");
/// let server = Server::builder("notes", "1.0.0").skill(release).build().unwrap();
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct Skill {
    manifest: String,
    files: Vec<(String, Vec<u8>)>,
    scopes: &'static [&'static str],
}

impl Skill {
    /// A skill whose `SKILL.md` is `skill_md` (frontmatter with `name` and `description`,
    /// then the instructions).
    pub fn new(skill_md: impl Into<String>) -> Self {
        Skill { manifest: skill_md.into(), files: Vec::new(), scopes: &[] }
    }

    /// Adds a file at `path`, relative to the skill's folder and `/`-separated
    /// (`references/FORMS.md`): no `..`, `.`, empty segment or leading `/` (refused at
    /// `build()`).
    pub fn file(mut self, path: impl Into<String>, contents: impl Into<Vec<u8>>) -> Self {
        self.files.push((path.into(), contents.into()));
        self
    }

    /// The scopes a caller's token must grant to see the skill (`skills/list`,
    /// `skills/get`, directory reads) and read its files; default none.
    pub fn scopes(mut self, scopes: &'static [&'static str]) -> Self {
        self.scopes = scopes;
        self
    }
}

/// Where skills come from: a directory of skill folders, or one skill declared in code.
pub(crate) enum Source {
    Dir(PathBuf),
    Code(Skill),
}

/// A skill's refusal at `build()`: the file, and what is wrong with it.
pub(crate) type Refusal = (String, String);

/// One skill served: its `SKILL.md` URI, its entry (`uri`, `frontmatter`, `resources`) and
/// the scopes it needs.
struct Served {
    uri: String,
    entry: Value,
    scopes: &'static [&'static str],
}

/// The skills this server serves, in URI order.
#[derive(Default)]
pub(crate) struct Skills {
    all: Vec<Served>,
}

impl Skills {
    /// Reads every source, checks each skill, and registers its files as resources.
    pub(crate) fn build(sources: Vec<Source>, resources: &mut Resources) -> Result<Skills, Refusal> {
        let mut all = Vec::new();
        for source in sources {
            match source {
                Source::Dir(root) => {
                    for (folder, label, files) in read_dir(&root)? {
                        all.push(register(resources, &label, Some(&folder), files, &[])?);
                    }
                }
                Source::Code(skill) => {
                    // Errors name its files `<name>/<path>` (`<skill declared in code>/..` when
                    // the frontmatter has no name).
                    let label = match frontmatter::parse(&skill.manifest) {
                        Ok(front) => match front.get("name") {
                            Some(Value::String(name)) => name.clone(),
                            _ => "<skill declared in code>".to_owned(),
                        },
                        Err(_) => "<skill declared in code>".to_owned(),
                    };
                    let mut files = vec![("SKILL.md".to_owned(), skill.manifest.into_bytes())];
                    for (path, bytes) in skill.files {
                        if !plain_path(&path) {
                            return Err((
                                format!("{label}/{path}"),
                                "a file path must be relative and `/`-separated, without `..`, `.`, empty segments or a leading `/`, in letters, digits and `-_.~+@`".to_owned(),
                            ));
                        }
                        files.push((path, bytes));
                    }
                    all.push(register(resources, &label, None, files, skill.scopes)?);
                }
            }
        }
        all.sort_by(|a, b| a.uri.cmp(&b.uri));
        Ok(Skills { all })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    /// The `skills/list` entries `principal` may see.
    pub(crate) fn list(&self, principal: Option<&Principal>) -> Vec<Value> {
        self.all.iter().filter(|s| grants(principal, s.scopes)).map(|s| s.entry.clone()).collect()
    }

    /// `skills/get`: `{skill}` for the `SKILL.md` URI in `params`, or `-32602`.
    pub(crate) fn get(&self, principal: Option<&Principal>, params: Option<&Value>) -> Result<Value, RpcError> {
        let uri = match params.and_then(|p| p.get("uri")) {
            Some(Value::String(uri)) => uri,
            Some(_) => return Err(RpcError::invalid_params("Invalid params: `uri` must be a string")),
            None => {
                return Err(RpcError::invalid_params(
                    "Invalid params: skills/get needs params {uri}, the URI of a skill's SKILL.md",
                ));
            }
        };
        match self.all.binary_search_by(|s| s.uri.as_str().cmp(uri)) {
            Ok(at) if grants(principal, self.all[at].scopes) => Ok(json!({"skill": self.all[at].entry})),
            _ => Err(RpcError::invalid_params(format!(
                "Invalid params: no skill is served at {}; list the skills with skills/list",
                crate::rpc::envelope::display_name(uri)
            ))),
        }
    }
}

/// `resources/directory/read`: the direct children of a skill's folder or of a folder in it
/// (files with their metadata, folders as `inode/directory`), of the files `principal` may
/// read; `-32602` for a URI that is no such folder.
pub(crate) fn directory(
    resources: &Resources,
    principal: Option<&Principal>,
    params: Option<&Value>,
) -> Result<Vec<Value>, RpcError> {
    let uri = match params.and_then(|p| p.get("uri")) {
        Some(Value::String(uri)) => uri,
        Some(_) => return Err(RpcError::invalid_params("Invalid params: `uri` must be a string")),
        None => return Err(RpcError::invalid_params("Invalid params: resources/directory/read needs params {uri}")),
    };
    let shown = crate::rpc::envelope::display_name(uri);
    if resources.files.get(uri).is_some_and(|f| grants(principal, f.scopes)) {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: {shown} is not a directory resource; read it with resources/read"
        )));
    }
    let prefix = format!("{uri}/");
    let mut children: Vec<Value> = Vec::new();
    let mut last_folder: Option<&str> = None;
    let under = resources.files.range(prefix.clone()..).take_while(|(u, _)| u.starts_with(&prefix));
    for (file_uri, file) in under.filter(|(_, f)| grants(principal, f.scopes)) {
        let rest = &file_uri[prefix.len()..];
        match rest.split_once('/') {
            Some((folder, _)) => {
                if last_folder != Some(folder) {
                    last_folder = Some(folder);
                    children.push(
                        json!({"uri": format!("{prefix}{folder}"), "name": folder, "mimeType": "inode/directory"}),
                    );
                }
            }
            None => children
                .push(json!({"uri": file_uri, "name": rest, "mimeType": file.mime_type, "size": file.bytes.len()})),
        }
    }
    if children.is_empty() {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: no directory resource is served at {shown}; a skill's folder is its SKILL.md URI without `/SKILL.md` (see skills/list)"
        )));
    }
    Ok(children)
}

/// Checks one skill (its files, `SKILL.md` first, paths relative to its folder) and
/// registers its files; `folder` is the name of its folder on disk, which must be its name.
fn register(
    resources: &mut Resources,
    label: &str,
    folder: Option<&str>,
    files: Vec<(String, Vec<u8>)>,
    scopes: &'static [&'static str],
) -> Result<Served, Refusal> {
    let skill_md = format!("{label}/SKILL.md");
    let refuse = |file: &str, reason: String| Err((file.to_owned(), reason));
    let Some(text) = files.first().and_then(|(_, bytes)| std::str::from_utf8(bytes).ok()) else {
        return refuse(&skill_md, "SKILL.md is not UTF-8 text".to_owned());
    };
    let front = match frontmatter::parse(text) {
        Ok(front) => front,
        Err(reason) => return refuse(&skill_md, reason),
    };
    let name = match front.get("name") {
        Some(Value::String(name)) if valid_name(name) => name.clone(),
        Some(Value::String(name)) => {
            return refuse(
                &skill_md,
                format!(
                    "frontmatter field `name`: `{name}` breaks the naming rules (1-64 lowercase letters, digits and hyphens, no leading, trailing or double hyphen)"
                ),
            );
        }
        Some(_) => return refuse(&skill_md, "frontmatter field `name` must be a string".to_owned()),
        None => return refuse(&skill_md, "frontmatter field `name` is missing (required)".to_owned()),
    };
    match front.get("description") {
        Some(Value::String(d)) if !d.trim().is_empty() && d.chars().count() <= 1024 => {}
        Some(Value::String(d)) if !d.trim().is_empty() => {
            return refuse(&skill_md, "frontmatter field `description` is longer than 1024 characters".to_owned());
        }
        Some(_) => return refuse(&skill_md, "frontmatter field `description` must be non-empty text".to_owned()),
        None => return refuse(&skill_md, "frontmatter field `description` is missing (required)".to_owned()),
    }
    if front.get("metadata").is_some_and(|m| !m.is_object()) {
        return refuse(&skill_md, "frontmatter field `metadata` must be a mapping of keys to values".to_owned());
    }
    if let Some(folder) = folder.filter(|f| *f != name) {
        return refuse(
            &skill_md,
            format!("frontmatter field `name` is `{name}`, but the folder is `{folder}`: they must be the same"),
        );
    }
    if files.len() > MAX_FILES {
        return refuse(label, format!("{} files, more than the {MAX_FILES} a host must accept", files.len()));
    }
    let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    if total > MAX_BYTES {
        return refuse(label, format!("{total} bytes in all, more than the {MAX_BYTES} (16 MiB) a host must accept"));
    }
    let uri = format!("skill://{name}/SKILL.md");
    if resources.files.contains_key(&uri) {
        return refuse(&skill_md, format!("another skill is named `{name}`; skill names must be unique"));
    }
    let description = front.get("description").and_then(Value::as_str).map(str::to_owned);
    let mut manifest = Vec::with_capacity(files.len());
    let mut seen = std::collections::HashSet::new();
    for (path, bytes) in files {
        if !seen.insert(path.clone()) {
            return refuse(&format!("{label}/{path}"), "this path is given twice".to_owned());
        }
        let file_uri = format!("skill://{name}/{path}");
        manifest.push(json!({
            "uri": file_uri,
            "digest": format!("sha256:{}", hex(&sha2::Sha256::digest(&bytes))),
            "size": bytes.len(),
        }));
        let skill_md = path == "SKILL.md";
        let file = File {
            name: if skill_md { name.clone() } else { path.clone() },
            description: if skill_md { description.clone() } else { None },
            mime_type: mime_type(&path, &bytes),
            bytes: Arc::from(bytes),
            listed: skill_md,
            scopes,
        };
        if let Err(reason) = resources.add_file(file_uri, file) {
            return refuse(&format!("{label}/{path}"), reason);
        }
    }
    let entry = json!({"uri": uri, "frontmatter": front, "resources": manifest});
    Ok(Served { uri, entry, scopes })
}

/// The skills of a skills directory: each folder with its name, label (for errors) and files.
type Found = (String, String, Vec<(String, Vec<u8>)>);

/// Every folder of `root` is a skill (dot-folders are skipped, loose files ignored): its
/// `SKILL.md` and every file under it, no symlink leading out of `root`.
fn read_dir(root: &Path) -> Result<Vec<Found>, Refusal> {
    let shown = root.display().to_string();
    let real =
        std::fs::canonicalize(root).map_err(|e| (shown.clone(), format!("cannot open the skills directory: {e}")))?;
    let mut skills = Vec::new();
    for (name, path) in entries(&real, &shown)? {
        let label = format!("{shown}/{name}");
        let Some(target) = inside(&real, &path, &label)? else { continue };
        if !target.is_dir() {
            continue;
        }
        let name = plain(name, &label)?;
        if !target.join("SKILL.md").is_file() {
            return Err((
                label,
                "a folder of the skills directory without a SKILL.md; add one, or move the folder out".to_owned(),
            ));
        }
        let mut files = vec![("SKILL.md".to_owned(), read(&target.join("SKILL.md"), &format!("{label}/SKILL.md"))?)];
        walk(&real, &target, "", &label, &mut files)?;
        skills.push((name, label, files));
    }
    Ok(skills)
}

/// The entries of `dir` (name and path), sorted, dot-entries skipped.
fn entries(dir: &Path, label: &str) -> Result<Vec<(String, PathBuf)>, Refusal> {
    let listing = std::fs::read_dir(dir).map_err(|e| (label.to_owned(), format!("cannot read the folder: {e}")))?;
    let mut out = Vec::new();
    for entry in listing {
        let entry = entry.map_err(|e| (label.to_owned(), format!("cannot read the folder: {e}")))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') {
            out.push((name, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// Where `path` really is, when that is inside `root`; a symlink that leads out (or
/// nowhere) is refused.
fn inside(root: &Path, path: &Path, label: &str) -> Result<Option<PathBuf>, Refusal> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| (label.to_owned(), format!("cannot read it: {e}")))?;
    if !meta.file_type().is_symlink() {
        return Ok(Some(path.to_owned()));
    }
    match std::fs::canonicalize(path) {
        Ok(real) if real.starts_with(root) => Ok(Some(real)),
        _ => Err((
            label.to_owned(),
            "a symlink that leads out of the skills directory (or nowhere); replace it with the file".to_owned(),
        )),
    }
}

/// Adds the files under `dir` (its path in the skill is `at`) to `files`, SKILL.md at the
/// root excepted (it is first already).
fn walk(root: &Path, dir: &Path, at: &str, label: &str, files: &mut Vec<(String, Vec<u8>)>) -> Result<(), Refusal> {
    for (name, path) in entries(dir, &format!("{label}/{at}"))? {
        let relative = if at.is_empty() { name } else { format!("{at}/{name}") };
        let file_label = format!("{label}/{relative}");
        let relative = plain(relative, &file_label)?;
        if relative == "SKILL.md" {
            continue;
        }
        let Some(target) = inside(root, &path, &file_label)? else { continue };
        if target.is_dir() {
            walk(root, &target, &relative, label, files)?;
        } else {
            files.push((relative, read(&target, &file_label)?));
        }
        // A symlink cycle inside the directory would go on forever: the limit ends it.
        if files.len() > MAX_FILES {
            return Err((label.to_owned(), format!("more than the {MAX_FILES} files a host must accept")));
        }
    }
    Ok(())
}

/// A name or path served in a URI: letters, digits and `-_.~+@` (a name that is not UTF-8
/// was made lossy, and is refused here too).
fn plain(name: String, label: &str) -> Result<String, Refusal> {
    if plain_path(&name) {
        Ok(name)
    } else {
        Err((
            label.to_owned(),
            "a name in letters, digits and `-_.~+@` only, so that its URI needs no escaping; rename it".to_owned(),
        ))
    }
}

fn read(path: &Path, label: &str) -> Result<Vec<u8>, Refusal> {
    std::fs::read(path).map_err(|e| (label.to_owned(), format!("cannot read it: {e}")))
}

/// A relative `/`-separated path whose segments are plain names (no `.`, `..` or empty
/// segment) in characters a URI path carries unescaped.
fn plain_path(path: &str) -> bool {
    !path.is_empty()
        && path.split('/').all(|segment| {
            !segment.is_empty()
                && segment != "."
                && segment != ".."
                && segment.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.~+@".contains(&b))
        })
}

/// The Agent Skills naming rules: 1-64 of `a-z0-9-`, no leading, trailing or double hyphen.
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// A file's MIME type: `SKILL.md` and other Markdown `text/markdown`, others by extension,
/// else `text/plain` for UTF-8 text and `application/octet-stream` for bytes.
fn mime_type(path: &str, bytes: &[u8]) -> &'static str {
    let extension = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("toml") => "application/toml",
        Some("csv") => "text/csv",
        Some("html" | "htm") => "text/html",
        Some("xml") => "application/xml",
        Some("py") => "text/x-python",
        Some("sh") => "application/x-sh",
        Some("js" | "mjs") => "text/javascript",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The capability: `{"directoryRead": true}` under the extension's identifier.
pub(crate) fn capability(into: &mut Map<String, Value>) {
    crate::features::declare_extension(into, EXTENSION, json!({"directoryRead": true}));
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::Server;
    use crate::testing::{Era, TestClient};

    use super::Skill;

    const SKILL_MD: &str =
        "---\nname: notes\ndescription: Keep notes tidy.\nmetadata:\n  tier: 2\n---\n\nRead `references/STYLE.md`.\n";

    fn server() -> Server {
        let skill = Skill::new(SKILL_MD).file("references/STYLE.md", "x");
        Server::builder("skills", "1").skill(skill).build().unwrap()
    }

    fn entry() -> Value {
        json!({
            "uri": "skill://notes/SKILL.md",
            "frontmatter": {"name": "notes", "description": "Keep notes tidy.", "metadata": {"tier": 2}},
            "resources": [
                {"uri": "skill://notes/SKILL.md", "digest": "sha256:e50f86269bf9aaf79dff57b9e58da021255f058d0291f2420b3016fdb7396c40", "size": 99},
                {"uri": "skill://notes/references/STYLE.md", "digest": "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881", "size": 1},
            ],
        })
    }

    #[tokio::test]
    async fn a_skill_is_listed_got_read_and_browsed_in_both_eras() {
        let server = server();
        for era in [Era::Legacy, Era::Modern] {
            let mut c = TestClient::new(&server, era);
            let mut list = c.request("skills/list", json!({})).await.unwrap();
            let mut got = c.request("skills/get", json!({"uri": "skill://notes/SKILL.md"})).await.unwrap();
            let mut root = c.request("resources/directory/read", json!({"uri": "skill://notes"})).await.unwrap();
            if era == Era::Modern {
                for result in [&mut list, &mut got] {
                    assert_eq!(result["ttlMs"], json!(0), "{result}");
                    assert_eq!(result["cacheScope"], json!("private"), "{result}");
                }
                for result in [&mut list, &mut got, &mut root] {
                    let map = result.as_object_mut().unwrap();
                    assert_eq!(map.remove("resultType"), Some(json!("complete")));
                    map.remove("ttlMs");
                    map.remove("cacheScope");
                    assert!(map.remove("_meta").is_some(), "{result}");
                }
            }
            assert_eq!(list, json!({"skills": [entry()]}), "{era:?}");
            assert_eq!(got, json!({"skill": entry()}), "{era:?}");
            assert_eq!(
                root,
                json!({"resources": [
                    {"uri": "skill://notes/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown", "size": 99},
                    {"uri": "skill://notes/references", "name": "references", "mimeType": "inode/directory"},
                ]}),
                "{era:?}"
            );
            let read = c.read("skill://notes/SKILL.md").await.unwrap();
            assert_eq!(
                read["contents"],
                json!([{"uri": "skill://notes/SKILL.md", "mimeType": "text/markdown", "text": SKILL_MD}])
            );
            let listed = c.request("resources/list", json!({})).await.unwrap();
            assert_eq!(
                listed["resources"],
                json!([{"uri": "skill://notes/SKILL.md", "name": "notes", "description": "Keep notes tidy.", "mimeType": "text/markdown", "size": 99}])
            );
            for (method, uri, message) in [
                (
                    "skills/get",
                    "skill://other/SKILL.md",
                    "Invalid params: no skill is served at skill://other/SKILL.md; list the skills with skills/list",
                ),
                (
                    "resources/directory/read",
                    "skill://notes/SKILL.md",
                    "Invalid params: skill://notes/SKILL.md is not a directory resource; read it with resources/read",
                ),
                (
                    "resources/directory/read",
                    "skill://nowhere",
                    "Invalid params: no directory resource is served at skill://nowhere; a skill's folder is its SKILL.md URI without `/SKILL.md` (see skills/list)",
                ),
            ] {
                let err = c.request(method, json!({"uri": uri})).await.unwrap_err();
                assert_eq!(err, json!({"code": -32602, "message": message}), "{era:?} {method} {uri}");
            }
        }
    }

    #[tokio::test]
    async fn a_server_without_skills_declares_no_extension_and_serves_no_skills_method() {
        let plain = Server::builder("plain", "1").build().unwrap();
        for era in [Era::Legacy, Era::Modern] {
            let mut c = TestClient::new(&plain, era);
            for method in ["skills/list", "skills/get", "resources/directory/read"] {
                let err = c.request(method, json!({"uri": "skill://notes/SKILL.md"})).await.unwrap_err();
                assert_eq!(err["code"], json!(-32601), "{era:?} {method}: {err}");
            }
        }
        let mut c = TestClient::new(&plain, Era::Modern);
        let discover = c.request("server/discover", json!({})).await.unwrap();
        assert_eq!(discover["capabilities"], json!({"tools": {"listChanged": true}, "logging": {}}));
        let mut c = TestClient::new(&server(), Era::Modern);
        let discover = c.request("server/discover", json!({})).await.unwrap();
        assert_eq!(
            discover["capabilities"]["extensions"],
            json!({"io.modelcontextprotocol/skills": {"directoryRead": true}})
        );
        assert_eq!(discover["capabilities"]["resources"], json!({"subscribe": true, "listChanged": true}));
    }

    /// A hook that refuses every read of a skill's file.
    struct NoSkillReads;

    impl crate::Hook for NoSkillReads {
        fn before(&self, request: &crate::hooks::HookRequest<'_>) -> Result<(), mcp_core::ToolError> {
            if request.method() == "resources/read" && request.name().starts_with("skill://") {
                return Err(mcp_core::ToolError::new(mcp_core::ErrorCode::Forbidden, "No skill reads today.")
                    .reason("closed")
                    .hint("Try again tomorrow."));
            }
            Ok(())
        }
    }

    #[tokio::test]
    async fn scopes_hide_a_skill_and_hooks_see_its_reads() {
        let skill = Skill::new(SKILL_MD).file("references/STYLE.md", "x").scopes(&["docs:read"]);
        let server = Server::builder("skills", "1").skill(skill).hook(NoSkillReads).build().unwrap();
        for era in [Era::Legacy, Era::Modern] {
            let eve = crate::Principal::new("eve");
            let mut c = TestClient::new(&server, era).as_principal(eve);
            assert_eq!(c.request("skills/list", json!({})).await.unwrap()["skills"], json!([]), "{era:?}");
            let got = c.request("skills/get", json!({"uri": "skill://notes/SKILL.md"})).await.unwrap_err();
            assert_eq!(got["code"], json!(-32602), "{era:?}: {got}");
            let folder = c.request("resources/directory/read", json!({"uri": "skill://notes"})).await.unwrap_err();
            assert_eq!(folder["code"], json!(-32602), "{era:?}: {folder}");
            let read = c.read("skill://notes/SKILL.md").await.unwrap_err();
            assert_eq!(read["code"], json!(-32005), "{era:?}: {read}");
            assert_eq!(read["data"]["reason"], json!("insufficient_scope"), "{era:?}: {read}");

            let ann = crate::Principal::new("ann").with_scopes(["docs:read"]);
            let mut c = TestClient::new(&server, era).as_principal(ann);
            let listed = c.request("skills/list", json!({})).await.unwrap();
            assert_eq!(listed["skills"], json!([entry()]), "{era:?}");
            let read = c.read("skill://notes/references/STYLE.md").await.unwrap_err();
            assert_eq!(read["message"], json!("No skill reads today."), "{era:?}: {read}");
            assert_eq!(read["data"]["reason"], json!("closed"), "{era:?}: {read}");
            assert_eq!(read["data"]["recovery"]["hint"], json!("Try again tomorrow."), "{era:?}: {read}");
        }
    }

    fn refused(builder: crate::ServerBuilder) -> String {
        match builder.build() {
            Ok(_) => panic!("built"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_skill_in_code_with_a_path_out_or_without_frontmatter_is_refused_naming_the_file() {
        for (path, shown) in
            [("../escape.md", "notes/../escape.md"), ("/etc/passwd", "notes//etc/passwd"), ("a//b", "notes/a//b")]
        {
            let skill = Skill::new(SKILL_MD).file(path, "x");
            assert_eq!(
                refused(Server::builder("s", "1").skill(skill)),
                format!(
                    "skill file `{shown}`: a file path must be relative and `/`-separated, without `..`, `.`, empty segments or a leading `/`, in letters, digits and `-_.~+@`"
                )
            );
        }
        let cases = [
            (
                "# Notes\n",
                "skill file `<skill declared in code>/SKILL.md`: SKILL.md must begin with YAML frontmatter: a `---` line, the fields, and a closing `---` line",
            ),
            (
                "---\nname: notes\n---\n",
                "skill file `notes/SKILL.md`: frontmatter field `description` is missing (required)",
            ),
            (
                "---\ndescription: d\n---\n",
                "skill file `<skill declared in code>/SKILL.md`: frontmatter field `name` is missing (required)",
            ),
            (
                "---\nname: Notes--x\ndescription: d\n---\n",
                "skill file `Notes--x/SKILL.md`: frontmatter field `name`: `Notes--x` breaks the naming rules (1-64 lowercase letters, digits and hyphens, no leading, trailing or double hyphen)",
            ),
            (
                "---\nname: notes\ndescription: [a]\n---\n",
                "skill file `<skill declared in code>/SKILL.md`: frontmatter line 3: flow collections (`[..]`, `{..}`) are not supported; write one item per line",
            ),
        ];
        for (skill_md, message) in cases {
            assert_eq!(refused(Server::builder("s", "1").skill(Skill::new(skill_md))), message);
        }
        let twice = Server::builder("s", "1").skill(Skill::new(SKILL_MD)).skill(Skill::new(SKILL_MD));
        assert_eq!(
            refused(twice),
            "skill file `notes/SKILL.md`: another skill is named `notes`; skill names must be unique"
        );
    }

    /// How a case fills its skills directory.
    type Setup<'a> = &'a dyn Fn(&Dir);

    /// A temporary skills directory, removed when dropped.
    struct Dir(std::path::PathBuf);

    impl Dir {
        fn new(name: &str) -> Dir {
            let path = std::env::temp_dir().join(format!("mcp-skills-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }

        fn write(&self, path: &str, text: &str) {
            let path = self.0.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[tokio::test]
    async fn a_skills_directory_is_served_with_its_nested_files() {
        let dir = Dir::new("ok");
        dir.write("notes/SKILL.md", SKILL_MD);
        dir.write("notes/references/STYLE.md", "x");
        dir.write("notes/.hidden", "left out");
        dir.write("README.md", "loose files at the top are not skills");
        let server = Server::builder("s", "1").skills_dir(&dir.0).build().unwrap();
        let mut c = TestClient::new(&server, Era::Legacy);
        assert_eq!(c.request("skills/list", json!({})).await.unwrap(), json!({"skills": [entry()]}));
        let style = c.read("skill://notes/references/STYLE.md").await.unwrap();
        assert_eq!(
            style["contents"],
            json!([{"uri": "skill://notes/references/STYLE.md", "mimeType": "text/markdown", "text": "x"}])
        );
    }

    #[test]
    fn a_skills_directory_with_a_way_out_or_bad_frontmatter_is_refused_naming_the_file() {
        let outside = Dir::new("outside");
        outside.write("secret.md", "s");
        let cases: [(&str, Setup<'_>, &str, &str); 4] = [
            (
                "no-description",
                &|d| d.write("notes/SKILL.md", "---\nname: notes\n---\n"),
                "notes/SKILL.md",
                "frontmatter field `description` is missing (required)",
            ),
            (
                "other-name",
                &|d| d.write("notes/SKILL.md", "---\nname: other\ndescription: d\n---\n"),
                "notes/SKILL.md",
                "frontmatter field `name` is `other`, but the folder is `notes`: they must be the same",
            ),
            (
                "no-skill-md",
                &|d| d.write("notes/README.md", "x"),
                "notes",
                "a folder of the skills directory without a SKILL.md; add one, or move the folder out",
            ),
            (
                "bad-name",
                &|d| {
                    d.write("notes/SKILL.md", SKILL_MD);
                    d.write("notes/my file.md", "x");
                },
                "notes/my file.md",
                "a name in letters, digits and `-_.~+@` only, so that its URI needs no escaping; rename it",
            ),
        ];
        for (name, setup, file, reason) in cases {
            let dir = Dir::new(name);
            setup(&dir);
            let shown = dir.0.display();
            assert_eq!(
                refused(Server::builder("s", "1").skills_dir(&dir.0)),
                format!("skill file `{shown}/{file}`: {reason}"),
                "{name}"
            );
        }
        #[cfg(unix)]
        for (name, link, file) in [("link-file", "notes/leak.md", true), ("link-folder", "notes/references", false)] {
            let dir = Dir::new(name);
            dir.write("notes/SKILL.md", SKILL_MD);
            let target = if file { outside.0.join("secret.md") } else { outside.0.clone() };
            std::os::unix::fs::symlink(target, dir.0.join(link)).unwrap();
            assert_eq!(
                refused(Server::builder("s", "1").skills_dir(&dir.0)),
                format!(
                    "skill file `{}/{link}`: a symlink that leads out of the skills directory (or nowhere); replace it with the file",
                    dir.0.display()
                ),
                "{name}"
            );
        }
        let missing = std::env::temp_dir().join("mcp-skills-missing-dir");
        let message = refused(Server::builder("s", "1").skills_dir(&missing));
        assert!(
            message.starts_with(&format!("skill file `{}`: cannot open the skills directory: ", missing.display())),
            "{message}"
        );
    }
}
