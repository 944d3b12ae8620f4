use mcp_runtime::prelude::*;

/// Exports the tasks.
#[tool]
#[errors(
    reason = "disk_full",
    code = InternalError,
    when = "The disk is full.",
    recovery = "Free some disk space, then call export_tasks again."
)]
fn export_tasks(ctx: &Ctx) -> Result<String, ToolError> {
    Err(ctx.fail(ExportTasksError::DiskFull))
}

fn main() {}
