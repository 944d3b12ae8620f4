//! Every rule that can be checked at compile time, each reported at the offending token.

use syn::ext::IdentExt;

use crate::ast::{Contract, ParamKind, Tool};
use crate::attr::{CODES, CodeValue, ERRORS_KEYS, ErrorsAttr, Kind};
use crate::ctxt::Ctxt;
use crate::text::{pascal_case, snake_case, suggestion};

pub(crate) const SEVERITIES: &[&str] = &["debug", "info", "notice", "warning"];

pub(crate) fn validate(cx: &Ctxt, tool: &Tool<'_>) {
    signature(cx, tool);
    tool_keys(cx, tool);
    errors(cx, tool);
    match tool.attr.kind {
        Kind::Tool => tool_ui(cx, tool),
        Kind::Resource => {
            resource(cx, tool);
            view(cx, tool);
        }
        Kind::Prompt => prompt(cx, tool),
    }
}

/// The rules of a `#[contract]` enum: unit variants in table order, one `#[errors]` each
/// (each checked like a tool's), every reason once.
pub(crate) fn validate_contract(cx: &Ctxt, contract: &Contract<'_>) {
    let mut seen: Vec<(&syn::Ident, &syn::LitStr)> = Vec::new();
    for variant in &contract.variants {
        let original = variant.original;
        if !matches!(original.fields, syn::Fields::Unit) {
            cx.error_spanned_by(
                &original.fields,
                "a `#[contract]` variant names a failure reason and carries no fields; attach data at the throw site with `.data(..)`",
            );
        }
        if let Some((_, d)) = &original.discriminant {
            cx.error_spanned_by(
                d,
                "a `#[contract]` variant takes no discriminant: the variant's position indexes the contract table",
            );
        }
        let Some(e) = variant.entry() else {
            cx.error_spanned_by(
                &original.ident,
                "each `#[contract]` variant takes exactly one `#[errors(code = .., when = \"..\", recovery = \"..\")]`",
            );
            continue;
        };
        error_entry(cx, e);
        // Reasons are unique: a variant's own (`NoSuchNote` → `no_such_note`) and the ones
        // written out (`reason = "no_such_note"`) alike.
        let Some(reason) = &e.reason else { continue };
        let value = reason.value();
        if let Some((first, first_reason)) = seen.iter().find(|(_, r)| r.value() == value) {
            cx.error_spanned_by(
                reason,
                format!(
                    "duplicate reason `{value}`: variants `{first}` and `{}` both declare it; each failure mode of a contract has its own reason",
                    original.ident
                ),
            );
            cx.error_spanned_by(first_reason, format!("note: `{value}` first declared here, by variant `{first}`"));
        }
        seen.push((&original.ident, reason));
    }
}

/// Parameters of a resource or a prompt come from text: no `#[input]`, and no attributes
/// but doc comments.
fn text_params(cx: &Ctxt, tool: &Tool<'_>) {
    let name = tool.attr.kind.name();
    for param in &tool.params {
        if let Some(marker) = param.input_marker {
            cx.error_spanned_by(
                marker,
                format!("`#[input]` is for tools: a `#[{name}]` fn takes its values one parameter each"),
            );
        }
        for a in param.field_attrs.iter().filter(|a| !a.path().is_ident("doc")) {
            cx.error_spanned_by(a, format!("a `#[{name}]` parameter takes only a doc comment: its value is text"));
        }
    }
}

/// The variables of a URI template (`{name}`, `{+path}`), or what is wrong with it. The
/// runtime reads the same grammar when it matches URIs.
fn template_variables(template: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = template;
    let mut last_was_var = false;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return Err("a `{` has no `}`".to_owned());
        };
        if rest[..open].contains('}') {
            return Err("a `}` has no `{`".to_owned());
        }
        if open == 0 && last_was_var {
            return Err("two variables are side by side: separate them with literal text, such as `/`".to_owned());
        }
        let expr = &rest[open + 1..open + close];
        let name = expr.strip_prefix('+').unwrap_or(expr);
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "`{{{expr}}}` is not a variable: write `{{name}}`, or `{{+path}}` for a value that may hold `/`"
            ));
        }
        if names.iter().any(|n| n == name) {
            return Err(format!("`{{{name}}}` appears twice"));
        }
        names.push(name.to_owned());
        rest = &rest[open + close + 1..];
        last_was_var = true;
    }
    if rest.contains('}') {
        return Err("a `}` has no `{`".to_owned());
    }
    Ok(names)
}

fn resource(cx: &Ctxt, tool: &Tool<'_>) {
    text_params(cx, tool);
    let attr = &tool.attr;
    // `#[input]` parameters count too: that marker is reported on its own, and the
    // parameter is still the variable's.
    let args: Vec<_> = tool.params.iter().filter(|p| p.kind != ParamKind::Context).collect();
    let variables = match (&attr.uri, &attr.uri_template) {
        (None, None) => {
            cx.error_spanned_by(
                &tool.original.sig.ident,
                "a `#[resource]` needs its address: `#[resource(uri = \"notes://index\")]`, or `#[resource(uri_template = \"notes://{name}\")]` with a parameter per variable",
            );
            return;
        }
        (Some(_), Some(template)) => {
            cx.error_spanned_by(template, "a resource has either a fixed `uri` or a `uri_template`, not both");
            return;
        }
        (Some(uri), None) => {
            if uri.value().contains('{') {
                cx.error_spanned_by(uri, "this URI has a `{variable}`: write it as `uri_template = \"…\"`");
            }
            for arg in &args {
                cx.error_spanned_by(
                    &arg.original.pat,
                    "a resource at a fixed `uri` takes no parameters: use `uri_template = \"…/{name}\"` to take one from the URI",
                );
            }
            if let Some(list) = &attr.list {
                cx.error_spanned_by(
                    list,
                    "`list` lists the instances of a `uri_template`; a fixed `uri` is listed as it is",
                );
            }
            Vec::new()
        }
        (None, Some(template)) => match template_variables(&template.value()) {
            Err(problem) => {
                cx.error_spanned_by(template, format!("invalid URI template: {problem}"));
                return;
            }
            Ok(variables) => {
                for var in &variables {
                    if !args.iter().any(|a| a.name.as_ref() == Some(var)) {
                        cx.error_spanned_by(
                            template,
                            format!("`{{{var}}}` has no parameter: add `{var}: String` (or a number type) to the fn"),
                        );
                    }
                }
                for arg in &args {
                    let name = arg.name.clone().unwrap_or_default();
                    if !variables.contains(&name) {
                        cx.error_spanned_by(
                            &arg.original.pat,
                            format!("`{name}` is not a variable of the URI template: add `{{{name}}}` to `uri_template`, or remove the parameter"),
                        );
                    }
                }
                variables
            }
        },
    };
    complete_targets(cx, tool, &variables, "variable of the URI template");
}

/// The MIME type of an MCP Apps view (the runtime's `apps::MIME_TYPE`).
pub(crate) const VIEW_MIME: &str = "text/html;profile=mcp-app";

/// `#[resource(ui(..))]`: a view lives at a fixed `ui://` URI, is `text/html;profile=mcp-app`,
/// and names origins a host can put in a Content-Security-Policy as they are.
fn view(cx: &Ctxt, tool: &Tool<'_>) {
    let attr = &tool.attr;
    let Some(ui) = &attr.view else {
        return;
    };
    if let Some(template) = &attr.uri_template {
        cx.error_spanned_by(
            template,
            "an MCP Apps view is one page at a fixed URI: `uri = \"ui://chart/view.html\"` (its data comes from the tool's result)",
        );
    }
    if let Some(uri) = &attr.uri
        && !uri.value().starts_with("ui://")
    {
        cx.error_spanned_by(
            uri,
            "an MCP Apps view's URI starts with `ui://`, such as `uri = \"ui://chart/view.html\"`",
        );
    }
    if let Some(mime) = &attr.mime_type
        && mime.value() != VIEW_MIME
    {
        cx.error_spanned_by(
            mime,
            format!("an MCP Apps view is `{VIEW_MIME}` (the default with `ui`): remove `mime_type`"),
        );
    }
    for (key, origins) in &ui.csp {
        for origin in origins {
            if let Some(problem) = origin_problem(&origin.value()) {
                cx.error_spanned_by(
                    origin,
                    format!("`{key}` takes origins such as `https://api.example.com`: {problem}"),
                );
            }
        }
    }
    let mut asked: Vec<&syn::Ident> = Vec::new();
    for p in &ui.permissions {
        if let Some(first) = asked.iter().find(|a| **a == p) {
            cx.error_spanned_by(p, format!("`{p}` is asked for twice; remove one"));
            cx.error_spanned_by(first, format!("note: `{p}` first asked for here"));
        } else {
            asked.push(p);
        }
    }
    if let Some(domain) = &ui.domain
        && (domain.value().is_empty() || domain.value().contains(|c: char| c.is_whitespace() || ";,'\"".contains(c)))
    {
        cx.error_spanned_by(domain, "`domain` is a host name in the host's format, such as `charts.example.com`");
    }
}

/// What is wrong with `origin` as a CSP source a host copies into its policy: `None` when
/// it is `scheme://host[:port][/path]` (a leading `*.` allowed) with nothing that would end
/// the directive or the header.
fn origin_problem(origin: &str) -> Option<String> {
    if origin.contains(|c: char| c.is_whitespace() || c.is_control() || ";,'\"".contains(c)) {
        return Some("no spaces, quotes, `;` or `,` (each would change the host's policy)".to_owned());
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return Some(format!("`{origin}` has no scheme; write `https://{origin}`"));
    };
    let scheme_ok = scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c));
    let host = rest.split(['/', ':']).next().unwrap_or_default();
    let host = host.strip_prefix("*.").unwrap_or(host);
    if !scheme_ok || host.is_empty() || !host.chars().all(|c| c.is_ascii_alphanumeric() || ".-".contains(c)) {
        return Some(format!("`{origin}` is not `scheme://host`"));
    }
    None
}

/// `#[tool(ui = "ui://..", visibility(..))]`: the view is a `ui://` URI (that it is one of the
/// server's views is checked by `build()`); `model` and `app`, each once.
fn tool_ui(cx: &Ctxt, tool: &Tool<'_>) {
    if let Some(uri) = &tool.attr.ui
        && (!uri.value().starts_with("ui://") || uri.value().contains('{'))
    {
        cx.error_spanned_by(
            uri,
            "`ui` names a view: the fixed `ui://` URI of a `#[resource(ui)]`, such as `ui = \"ui://chart/view.html\"`",
        );
    }
    let Some((span, who)) = &tool.attr.visibility else {
        return;
    };
    if who.is_empty() {
        cx.error_at(*span, "`visibility(...)` is empty; name `model`, `app` or both: `visibility(app)`");
    }
    let mut named: Vec<&syn::Ident> = Vec::new();
    for w in who {
        let name = w.to_string();
        if !crate::attr::VISIBILITY.contains(&name.as_str()) {
            let hint = crate::text::did_you_mean(&name, crate::attr::VISIBILITY.iter().copied())
                .map(|g| format!("; did you mean `{g}`?"))
                .unwrap_or_default();
            cx.error_spanned_by(
                w,
                format!("`visibility` names `model` (the agent) and `app` (a view of this server), not `{name}`{hint}"),
            );
        } else if let Some(first) = named.iter().find(|n| **n == w) {
            cx.error_spanned_by(w, format!("`{name}` is named twice; remove one"));
            cx.error_spanned_by(first, format!("note: `{name}` first named here"));
        } else {
            named.push(w);
        }
    }
}

fn prompt(cx: &Ctxt, tool: &Tool<'_>) {
    text_params(cx, tool);
    let args: Vec<String> =
        tool.params.iter().filter(|p| p.kind == ParamKind::Arg).filter_map(|p| p.name.clone()).collect();
    complete_targets(cx, tool, &args, "parameter of the prompt");
}

/// `complete(x = f)` names a value the item has.
fn complete_targets(cx: &Ctxt, tool: &Tool<'_>, names: &[String], what: &str) {
    for (arg, _) in &tool.attr.complete {
        let arg_name = arg.unraw().to_string();
        if !names.contains(&arg_name) {
            let hint = suggestion(&arg_name, names.iter().map(String::as_str));
            cx.error_spanned_by(arg, format!("`{arg_name}` is not a {what}{hint}"));
        }
    }
}

fn signature(cx: &Ctxt, tool: &Tool<'_>) {
    let sig = &tool.original.sig;
    let kind = tool.attr.kind.name();
    if !sig.generics.params.is_empty() {
        cx.error_spanned_by(
            &sig.generics,
            format!("a `#[{kind}]` fn cannot be generic: its schemas are generated for concrete types"),
        );
    }
    shapes(cx, tool);
    if let Some(c) = &sig.constness {
        cx.error_spanned_by(c, format!("a `#[{kind}]` fn cannot be `const`"));
    }
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, format!("a `#[{kind}]` fn cannot be variadic"));
    }
    if tool.awaits_without_async {
        // At the fn, which is what changes; the `.await` itself is fine.
        let fn_token = sig.fn_token;
        let name = &sig.ident;
        cx.error_spanned_by(
            fn_token,
            format!("`{name}` uses `.await`, so it must be `async`: write `async fn {name}`"),
        );
    }
    // A borrowed argument (`&str`, `&[T]`) is the likely intent of a by-reference parameter
    // that is not the context: arguments are deserialized, so they are owned.
    let (borrowed_args, contexts): (Vec<_>, Vec<_>) =
        tool.params.iter().filter(|p| p.kind == ParamKind::Context).partition(|p| owned_form(&p.ty).is_some());
    for arg in borrowed_args {
        let owned = owned_form(&arg.ty).unwrap_or_default();
        let binding = arg.ident.as_ref().map(|i| format!("{i}: ")).unwrap_or_default();
        let ty = &arg.original.ty;
        let written = quote::quote!(#ty).to_string().replace("& ", "&").replace(" [", "[");
        let why = if tool.attr.kind == Kind::Tool {
            "a `#[tool]` argument is deserialized from the call's JSON, so the handler owns it".to_owned()
        } else {
            format!("a `#[{kind}]` parameter is read from text, so the handler owns it")
        };
        cx.error_spanned_by(&arg.original.ty, format!("{why}: take `{binding}{owned}`, not `{written}`"));
    }
    for extra in contexts.iter().skip(1) {
        cx.error_spanned_by(
            &extra.original.ty,
            format!("a `#[{kind}]` fn takes at most one by-reference parameter, the context `&Ctx<..>`; take arguments by value (`path: String`)"),
        );
    }
    let inputs: Vec<_> = tool.params.iter().filter(|p| p.kind == ParamKind::Input).collect();
    for extra in inputs.iter().skip(1).filter_map(|p| p.input_marker) {
        cx.error_spanned_by(
            extra,
            "only one parameter can be the whole `#[input]`: make the other one a field of the input struct",
        );
    }
    if let Some(input) = inputs.first() {
        for arg in tool.params.iter().filter(|p| p.kind == ParamKind::Arg) {
            cx.error_spanned_by(
                &arg.original.pat,
                "a tool with an `#[input]` struct takes no other arguments: move this field into the struct",
            );
        }
        for a in &input.field_attrs {
            cx.error_spanned_by(
                a,
                "put `///`, `#[serde]` and `#[schemars]` on the `#[input]` struct's fields, not on the parameter",
            );
        }
    }
}

/// What the generated code cannot take: `impl Trait` (a generic in disguise, or a hidden
/// return type), `#[cfg]` where the parameter cannot be left out, and parameters named like
/// the generated code's own `__mcp_` variables.
fn shapes(cx: &Ctxt, tool: &Tool<'_>) {
    let sig = &tool.original.sig;
    let kind = tool.attr.kind.name();
    // `impl Trait` in a parameter is a generic parameter by another name; in the return
    // type it hides the type the output schema is generated for.
    for param in &tool.params {
        if let Some(found) = impl_trait(&param.original.ty) {
            cx.error_spanned_by(
                found,
                format!("a `#[{kind}]` fn cannot be generic: its schemas are generated for concrete types; `impl Trait` in a parameter is a generic type: name a concrete type (`String`, a struct of yours)"),
            );
        }
    }
    if let syn::ReturnType::Type(_, ty) = &sig.output
        && let Some(found) = impl_trait(ty)
    {
        cx.error_spanned_by(
            found,
            format!("a `#[{kind}]` fn returns a concrete type, which its output is generated from: name the type instead of `impl Trait`"),
        );
    }
    for param in &tool.params {
        for cfg in &param.cfgs {
            let problem = match (param.kind, tool.attr.kind) {
                (ParamKind::Context, _) => "the context parameter cannot be `#[cfg]`'d: take it always, or not at all",
                (ParamKind::Input, _) => {
                    "the `#[input]` parameter cannot be `#[cfg]`'d: put `#[cfg]` on the input struct's fields"
                }
                (ParamKind::Arg, Kind::Resource) => {
                    "a `#[resource]` parameter cannot be `#[cfg]`'d: its URI template names the variable either way"
                }
                (ParamKind::Arg, Kind::Tool | Kind::Prompt) => continue,
            };
            cx.error_spanned_by(cfg, problem);
        }
        if let (Some(ident), Some(name)) = (&param.ident, &param.name)
            && name.starts_with("__mcp")
        {
            cx.error_spanned_by(
                ident,
                "names that start with `__mcp` belong to the code `#[tool]` generates: rename the parameter",
            );
        }
    }
}

/// The first `impl Trait` in a type, if any.
fn impl_trait(ty: &syn::Type) -> Option<&syn::TypeImplTrait> {
    match ty {
        syn::Type::ImplTrait(found) => Some(found),
        syn::Type::Reference(r) => impl_trait(&r.elem),
        syn::Type::Ptr(p) => impl_trait(&p.elem),
        syn::Type::Slice(s) => impl_trait(&s.elem),
        syn::Type::Array(a) => impl_trait(&a.elem),
        syn::Type::Paren(p) => impl_trait(&p.elem),
        syn::Type::Group(g) => impl_trait(&g.elem),
        syn::Type::Tuple(t) => t.elems.iter().find_map(impl_trait),
        syn::Type::Path(p) => {
            let qself = p.qself.as_ref().and_then(|q| impl_trait(&q.ty));
            qself.or_else(|| {
                p.path.segments.iter().find_map(|segment| match &segment.arguments {
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|arg| match arg {
                        syn::GenericArgument::Type(ty) => impl_trait(ty),
                        _ => None,
                    }),
                    _ => None,
                })
            })
        }
        _ => None,
    }
}

/// The owned type to take instead of a borrowed argument type: `str` → `String`, `[T]` →
/// `Vec<T>`. These are the types of `&str` and `&[T]`, which can never be a context.
fn owned_form(referenced: &syn::Type) -> Option<String> {
    match referenced {
        syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => Some("String".to_owned()),
        syn::Type::Slice(s) => {
            let elem = &s.elem;
            Some(format!("Vec<{}>", quote::quote!(#elem).to_string().replace(' ', "")))
        }
        _ => None,
    }
}

fn tool_keys(cx: &Ctxt, tool: &Tool<'_>) {
    let kind = tool.attr.kind.name();
    if tool.attr.kind == Kind::Tool
        && let Some(problem) = name_problem(&tool.name)
    {
        match &tool.attr.name {
            Some(lit) => cx.error_spanned_by(lit, problem),
            None => cx.error_spanned_by(
                &tool.original.sig.ident,
                format!("{problem}; the name comes from the fn: set another with `#[tool(name = \"…\")]`"),
            ),
        }
    }
    match &tool.attr.description {
        Some(d) if d.value().trim().is_empty() => cx.error_spanned_by(d, "`description` is empty; say what the tool does"),
        None if tool.docs.is_none() && tool.attr.kind == Kind::Tool => cx.error_spanned_by(
            &tool.original.sig.ident,
            "a `#[tool]` needs a description, which the model reads to choose it: add a doc comment `/// What this tool does.` above the fn, or `#[tool(description = \"…\")]`",
        ),
        None if tool.docs.is_none() => cx.error_spanned_by(
            &tool.original.sig.ident,
            format!("a `#[{kind}]` needs a description, which clients show to choose it: add a doc comment `/// What it holds.` above the fn, or `#[{kind}(description = \"…\")]`"),
        ),
        Some(_) | None => {}
    }
    let mut contracts: Vec<(String, &syn::Path)> = Vec::new();
    for path in &tool.attr.contracts {
        let shown = quote::quote!(#path).to_string().replace(' ', "");
        if let Some((_, first)) = contracts.iter().find(|(c, _)| *c == shown) {
            cx.error_spanned_by(path, format!("contract `{shown}` is composed twice; remove one of them"));
            cx.error_spanned_by(*first, format!("note: `{shown}` first listed here"));
        } else {
            contracts.push((shown, path));
        }
    }
    validate_scopes(cx, &tool.attr.scopes);
    if let Some(t) = &tool.attr.timeout_ms {
        match t.base10_parse::<u64>() {
            Ok(0) => cx.error_spanned_by(t, "`timeout_ms` must be at least 1"),
            Ok(_) => {}
            Err(e) => cx.error_spanned_by(t, format!("`timeout_ms` must be a whole number of milliseconds: {e}")),
        }
    }
    if let Some(task) = &tool.attr.task
        && !matches!(task.value().as_str(), "optional" | "required")
    {
        cx.error_spanned_by(
            task,
            format!(
                "`task` is \"optional\" (the server may answer a call with a task) or \"required\" (always a task), not {:?}",
                task.value()
            ),
        );
    }
}

/// `scopes(..)`: each an OAuth scope token (RFC 6749 §3.3: visible ASCII without space, `"`
/// or `\`); no repeats. (An empty list is reported where it is parsed.)
fn validate_scopes(cx: &Ctxt, scopes: &[syn::LitStr]) {
    let mut seen: Vec<(String, &syn::LitStr)> = Vec::new();
    for scope in scopes {
        let value = scope.value();
        let token = |c: char| c == '!' || ('#'..='[').contains(&c) || (']'..='~').contains(&c);
        if value.is_empty() {
            cx.error_spanned_by(scope, "a scope is empty; write its name: `\"notes:write\"`");
        } else if !value.chars().all(token) {
            cx.error_spanned_by(
                scope,
                "a scope is one OAuth scope token: visible ASCII without spaces, `\"` or `\\`; list several as separate strings: `scopes(\"notes:read\", \"notes:write\")`",
            );
        } else if let Some((_, first)) = seen.iter().find(|(v, _)| *v == value) {
            cx.error_spanned_by(scope, format!("duplicate scope `{value}`; remove one of them"));
            cx.error_spanned_by(*first, format!("note: `{value}` first listed here"));
        } else {
            seen.push((value, scope));
        }
    }
}

/// What is wrong with a tool name (MCP: 1 to 128 of `A-Za-z0-9_.-`), if anything.
fn name_problem(name: &str) -> Option<String> {
    const RULE: &str = "tool names are 1 to 128 characters of `A-Z a-z 0-9 _ . -`";
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    let len = name.chars().count();
    if len == 0 {
        return Some(format!("the tool name is empty; {RULE}"));
    }
    if len > 128 {
        return Some(format!("the tool name has {len} characters; {RULE}"));
    }
    let bad: Vec<char> = name.chars().filter(|c| !allowed(*c)).fold(Vec::new(), |mut seen, c| {
        if !seen.contains(&c) {
            seen.push(c);
        }
        seen
    });
    if bad.is_empty() {
        return None;
    }
    let list = bad.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ");
    // Suggest a fix only when it stays readable (spaces, slashes, colons…).
    let fixed: String = name.chars().map(|c| if allowed(c) { c } else { '_' }).collect();
    let example = if bad.iter().all(char::is_ascii) { format!(", e.g. `{fixed}`") } else { String::new() };
    let verb = if bad.len() == 1 { "is" } else { "are" };
    Some(format!("invalid tool name `{name}`: {list} {verb} not allowed; {RULE}{example}"))
}

fn errors(cx: &Ctxt, tool: &Tool<'_>) {
    let mut seen: Vec<(String, proc_macro2::Span)> = Vec::new();
    let mut variants: Vec<(String, String)> = Vec::new();
    for e in &tool.errors {
        error_entry(cx, e);
        let Some(reason) = &e.reason else { continue };
        let value = reason.value();
        if let Some((_, first)) = seen.iter().find(|(r, _)| *r == value) {
            cx.error_spanned_by(
                reason,
                format!("duplicate reason `{value}`; each failure mode of a tool has its own reason"),
            );
            cx.error_at(*first, format!("note: `{value}` first declared here"));
            continue;
        }
        seen.push((value.clone(), reason.span()));
        if !is_snake_case(&value) {
            continue;
        }
        // Each reason becomes a variant of the reason enum: `no_match` → `NoMatch`.
        let variant = pascal_case(&value);
        if variant == "Self" {
            cx.error_spanned_by(
                reason,
                "reason `self` cannot name a variant of the reason enum (`Self` is a keyword); choose another reason",
            );
        } else if let Some((other, _)) = variants.iter().find(|(_, v)| *v == variant) {
            cx.error_spanned_by(
                reason,
                format!(
                    "reasons `{other}` and `{value}` both become the variant `{}::{variant}`; rename one of them",
                    tool.reason_enum
                ),
            );
        } else {
            variants.push((value, variant));
        }
    }
    if variants.is_empty() {
        return;
    }
    let enum_ident = &tool.reason_enum;
    let declared =
        variants.iter().map(|(reason, variant)| format!("`{variant}` (`{reason}`)")).collect::<Vec<_>>().join(", ");
    for (ident, reason) in &tool.undeclared {
        let name = ident.to_string();
        let tool_name = &tool.name;
        let message = match crate::text::did_you_mean(&name, variants.iter().map(|(_, v)| v.as_str())) {
            Some(guess) => format!(
                "`{enum_ident}` has no reason `{name}`; did you mean `{guess}`? tool `{tool_name}` declares {declared}"
            ),
            None => match tool.attr.contracts.first() {
                Some(shared) => {
                    let shared = quote::quote!(#shared).to_string().replace(' ', "");
                    format!(
                        "`{enum_ident}` has no reason `{name}`: tool `{tool_name}` declares {declared}; a reason of the shared contract is raised by its own name (`ctx.fail({shared}::{name})`), and one of this tool's own is declared with `#[errors(reason = \"{reason}\", code = .., when = \"..\", recovery = \"..\")]`"
                    )
                }
                None => format!(
                    "`{enum_ident}` has no reason `{name}`: tool `{tool_name}` declares {declared}; to raise `{reason}`, declare it with `#[errors(reason = \"{reason}\", code = .., when = \"..\", recovery = \"..\")]`"
                ),
            },
        };
        cx.error_spanned_by(ident, message);
    }
}

/// `^[a-z][a-z0-9_]*$`.
pub(crate) fn is_snake_case(reason: &str) -> bool {
    reason.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && reason.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// The rules of one `#[errors(...)]` entry (docs/errors.md#errors--one-per-failure-mode).
pub(crate) fn error_entry(cx: &Ctxt, e: &ErrorsAttr) {
    let missing: Vec<&str> = [
        ("reason", e.reason.is_none()),
        ("code", e.code.is_none()),
        ("when", e.when.is_none()),
        ("recovery", e.recovery.is_none()),
    ]
    .into_iter()
    .filter(|(k, m)| *m && !e.attempted.contains(k))
    .map(|(k, _)| k)
    .collect();
    if !missing.is_empty() {
        let list = missing.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
        let keys = ERRORS_KEYS[..4].iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
        cx.error_at(e.span, format!("`errors` is missing {list}; every failure mode declares {keys}"));
    }
    if let Some(reason) = &e.reason {
        let value = reason.value();
        if !is_snake_case(&value) {
            let fixed = snake_case(&value).to_lowercase().replace([' ', '-'], "_").replace("__", "_");
            let fixed = fixed.trim_start_matches(|c: char| !c.is_ascii_lowercase());
            let example = if is_snake_case(fixed) { format!(", e.g. `{fixed}`") } else { String::new() };
            cx.error_spanned_by(reason, format!("reason `{value}` must be snake_case (`^[a-z][a-z0-9_]*$`){example}"));
        }
    }
    if let Some(CodeValue::Named(ident)) = &e.code {
        let name = ident.to_string();
        if !CODES.iter().any(|(n, _)| *n == name) {
            cx.error_spanned_by(
                ident,
                format!(
                    "unknown error code `{name}`; use a name from the code table (`NotFound`, `RateLimited`, …) or an integer{}",
                    suggestion(&name, CODES.iter().map(|(n, _)| *n))
                ),
            );
        }
    }
    if let Some(when) = &e.when
        && when.value().trim().is_empty()
    {
        cx.error_spanned_by(when, "`when` is empty; describe in one sentence when this failure happens");
    }
    if let Some(recovery) = &e.recovery {
        let words = recovery.value().split_whitespace().count();
        if words < 5 {
            cx.error_spanned_by(
                recovery,
                format!(
                    "`recovery` has {words} word{}; tell the caller its next move in at least 5 words, naming a tool or an argument it can use",
                    if words == 1 { "" } else { "s" }
                ),
            );
        }
    }
    if let Some(sev) = &e.severity
        && !SEVERITIES.contains(&sev.name.as_str())
    {
        cx.error_at(
            sev.span,
            format!(
                "unknown severity `{}`; expected one of `debug`, `info`, `notice`, `warning`{}",
                sev.name,
                suggestion(&sev.name, SEVERITIES.iter().copied())
            ),
        );
    }
}
