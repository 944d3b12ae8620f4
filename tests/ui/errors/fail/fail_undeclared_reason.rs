use mcp_runtime::prelude::*;

/// Creates a task.
#[tool]
#[errors(
    reason = "duplicate_title",
    code = Conflict,
    when = "A task with this title exists.",
    recovery = "Call list_tasks and pick another title for the task."
)]
#[errors(
    reason = "title_too_long",
    code = InvalidParams,
    when = "The title is longer than 80 characters.",
    recovery = "Shorten the title to under 80 characters and retry."
)]
fn create_task(ctx: &Ctx<CreateTaskError>, title: String) -> Result<String, ToolError> {
    if title.is_empty() {
        return Err(ctx.fail(CreateTaskError::TooManyTasks));
    }
    if title.len() > 80 { return Err(ctx.fail(CreateTaskError::TitleTooLong)); }
    if title == "x" { return Err(ctx.fail(CreateTaskError::DuplicateTitle)); }
    Ok(title)
}

fn main() {}
