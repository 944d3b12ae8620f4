// An async completer that awaits `ctx.state()` (whose store futures are `Send`, not `Sync`)
// compiles as written, for a prompt and for a resource template: no handler's future needs
// `Sync`.
use mcp_runtime::prelude::*;

/// Opens an issue by title.
#[prompt(complete(title = titles))]
fn open_issue(
    /// The issue's title.
    title: String,
) -> String {
    format!("Open the issue titled {title}.")
}

/// One issue, by title.
#[resource(uri_template = "issue://{title}", list = issues, complete(title = titles))]
fn issue(title: String) -> String {
    format!("the issue {title}")
}

/// The titles stored, that start with what was typed.
async fn titles(ctx: &Ctx, typed: String) -> Result<Vec<String>, ToolError> {
    let stored = ctx.state().list("title:").await?;
    let mut out = Vec::new();
    for key in stored {
        if let Some(title) = ctx.state().get::<String>(&key).await? {
            if title.starts_with(&typed) {
                out.push(title);
            }
        }
    }
    Ok(out)
}

/// Every issue, for `resources/list`: a lister may await the store too.
async fn issues(ctx: &Ctx) -> Result<Vec<Resource>, ToolError> {
    let keys = ctx.state().list("title:").await?;
    Ok(keys.iter().map(|k| Resource::new(format!("issue://{k}"), k.as_str())).collect())
}

fn main() {
    Server::builder("t", "1").prompt(open_issue).resource(issue).build().expect("the server builds");
}
