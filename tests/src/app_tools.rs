//! The fixture's MCP Apps tool (`io.modelcontextprotocol/ui`): `chart {values: [number]}`,
//! whose results a host that shows apps renders in the view `ui://chart/view.html`
//! (tests/apps/chart-view.html). Names, arguments and texts are a contract the browser
//! test relies on.

use mcp_runtime::prelude::*;
use mcp_runtime::{Content, Structured};

/// What `chart` drew: the values, and their smallest and largest (the bars' scale).
#[derive(Serialize, JsonSchema)]
pub(crate) struct Chart {
    /// The values, in the order sent.
    values: Vec<f64>,
    /// The smallest value.
    min: f64,
    /// The largest value.
    max: f64,
}

/// Draws the values as a bar chart: a view in clients that show MCP Apps, the values and
/// their range as text in the others.
#[tool(ui = "ui://chart/view.html", annotations(read_only_hint = true))]
#[errors(
    reason = "no_values",
    code = InvalidParams,
    when = "There is nothing to draw: `values` is empty.",
    recovery = "Send at least one number in `values`, such as `{\"values\": [3, 1, 4]}`.",
    retryable = false
)]
pub(crate) fn chart(ctx: &Ctx<ChartError>, values: Vec<f64>) -> Result<Structured<Chart>, ToolError> {
    let (Some(min), Some(max)) = (values.iter().copied().reduce(f64::min), values.iter().copied().reduce(f64::max))
    else {
        return Err(ctx.fail(ChartError::NoValues));
    };
    let shown: Vec<String> = values.iter().map(f64::to_string).collect();
    let text = format!("A bar chart of {} values from {min} to {max}: {}.", values.len(), shown.join(", "));
    Ok(Structured::new(Chart { values, min, max }).with_content(vec![Content::text(text)]))
}

/// The chart view: one HTML page that draws the values of the `chart` call it is shown for.
/// It loads nothing remote.
#[resource(uri = "ui://chart/view.html", ui(prefers_border = true))]
pub(crate) fn chart_view() -> &'static str {
    include_str!("../apps/chart-view.html")
}
