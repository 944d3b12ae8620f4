use mcp_runtime::prelude::*;
use mcp_runtime::ResourceContents;

/// The index of all notes.
#[resource(uri = "notes://index", mime_type = "text/markdown", size = 7, title = "Index")]
fn index() -> &'static str {
    "# Notes"
}

/// A note's raw bytes.
#[resource(uri_template = "notes://{name}/raw", mime_type = "application/octet-stream")]
async fn raw(name: String) -> Vec<u8> {
    name.into_bytes()
}

/// A note and its attachment.
#[resource(uri_template = "notes://{name}/all", name = "note_with_attachment")]
fn both(name: String) -> Vec<ResourceContents> {
    vec![
        ResourceContents::Text { uri: format!("notes://{name}"), mime_type: None, text: name.clone() },
        ResourceContents::Blob { uri: format!("notes://{name}/att"), mime_type: None, blob: String::new() },
    ]
}

/// One page of a note: typed variables, a raw identifier, a reserved expansion.
#[resource(uri_template = "notes://{type}/page/{page}/{+rest}", list = pages, complete(page = page_numbers))]
#[errors(reason = "no_such_page", code = NotFound, when = "The note has fewer pages.", recovery = "List the note's pages with resources/list.")]
async fn book_page(ctx: &Ctx<BookPageError>, r#type: String, page: u32, rest: String) -> Result<String, ToolError> {
    if page > 10 {
        return Err(ctx.fail(BookPageError::NoSuchPage));
    }
    Ok(format!("{} {page} {rest}", r#type))
}

async fn pages(_ctx: &Ctx) -> Result<Vec<Resource>, ToolError> {
    Ok(vec![Resource::new("notes://a/page/1/x", "a, page 1")])
}

async fn page_numbers(_ctx: &Ctx, _typed: String) -> Result<Vec<String>, ToolError> {
    Ok((1..=10).map(|n| n.to_string()).collect())
}

fn main() {
    // The resources register: `build` succeeds (this case runs, and fails if it does not).
    Server::builder("t", "1")
        .resource(index)
        .resource(raw)
        .resource(both)
        .resource(book_page)
        .build()
        .expect("the server builds");
}
