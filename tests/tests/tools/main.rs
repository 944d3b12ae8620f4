//! Tools and their errors: the envelope of every failure path, its classification, the
//! `invalid_arguments` hints, output-schema errors, the schemas a tool lists, parameters read
//! by their table, random arguments, the first hour's mistakes, and resources and prompts
//! failing like tools. `MCP_TEST_TRANSPORT=http` and `MCP_TEST_ERA=modern` run the same bodies
//! over the other transport and era. One test binary, one module per concern.

mod apps;
mod args_property;
mod classification;
mod envelope;
mod first_hour;
mod invalid_arguments;
mod output_schema_errors;
mod params_table;
mod resources_prompts;
mod schemas;
