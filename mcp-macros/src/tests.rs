//! Unit tests of parse → validate: each bad input is fed through the same stages as the
//! attribute, and the test asserts the full list of messages, in order.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ctxt::Ctxt;
use crate::{ast, validate};

/// Every message `#[tool(args)]` on `item` reports, in order.
fn messages(args: TokenStream, item: TokenStream) -> Vec<String> {
    let item: syn::ItemFn = syn::parse2(item).expect("the test input is a fn");
    let cx = Ctxt::new();
    let model = ast::from_syn(&cx, crate::attr::Kind::Tool, args, &item);
    validate::validate(&cx, &model);
    match cx.check() {
        Ok(()) => Vec::new(),
        Err(errors) => errors.into_iter().map(|e| e.to_string()).collect(),
    }
}

/// The messages of the `compile_error!`s in a macro's output.
fn compile_errors(output: &TokenStream) -> Vec<String> {
    let file: syn::File = syn::parse2(output.clone()).expect("the output parses as items");
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "compile_error") => {
                Some(m.mac.parse_body::<syn::LitStr>().expect("a message").value())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_valid_tool_has_no_messages() {
    let errors = messages(
        quote!(
            name = "docs.search-v2",
            title = "Search",
            annotations(read_only_hint = true, open_world_hint = false),
            icons(icon(src = "https://example.com/i.png", sizes = "48x48")),
            meta("com.example/owner" = "docs", retries = 3),
            allow_unknown_args,
            timeout_ms = 1000,
            task = "optional",
            crate = my_runtime,
        ),
        quote! {
            /// Searches the docs.
            #[errors(reason = "no_match", code = NotFound, when = "Nothing matched.", recovery = "Call list_docs to see every document.")]
            #[errors(reason = "legacy", code = -32042, retryable = false, severity = "info", when = "Old ids.", recovery = "Convert the id with convert_id first.", thrown_by = service)]
            async fn search_docs(ctx: &Ctx<SearchDocsError>, query: String, #[serde(default)] limit: Option<u32>) -> Result<Hits, ToolError> {
                todo!()
            }
        },
    );
    assert_eq!(errors, Vec::<String>::new());
}

#[test]
fn every_tool_key_mistake_in_one_list() {
    let errors = messages(
        quote!(
            nmae = "x",
            name = "search docs",
            title = 5,
            timeout_ms = 0,
            annotations(read_only = true, open_world_hint = "no"),
            name = "again",
            crate = "my_runtime",
        ),
        quote! {
            fn search_docs(query: String) -> String { query }
        },
    );
    assert_eq!(
        errors,
        [
            "unknown `tool` key `nmae`; expected one of `name`, `title`, `description`, `annotations`, `icons`, `meta`, `allow_unknown_args`, `repair`, `needs_session`, `asks`, `app_data`, `timeout_ms`, `task`, `scopes`, `contract`, `crate`, `ui`, `visibility`; did you mean `name`?",
            "`title` takes a string literal: `title = \"Search the docs\"`",
            "unknown `annotations` key `read_only`; expected one of `title`, `read_only_hint`, `destructive_hint`, `idempotent_hint`, `open_world_hint`; did you mean `read_only_hint`?",
            "`open_world_hint` takes `true` or `false`, without quotes: `open_world_hint = true`",
            "duplicate `tool` key `name`; remove one of them",
            "note: `name` first used here",
            "`crate` takes a path, not a string: `crate = my_runtime`",
            "invalid tool name `search docs`: ` ` is not allowed; tool names are 1 to 128 characters of `A-Z a-z 0-9 _ . -`, e.g. `search_docs`",
            "a `#[tool]` needs a description, which the model reads to choose it: add a doc comment `/// What this tool does.` above the fn, or `#[tool(description = \"…\")]`",
            "`timeout_ms` must be at least 1",
        ]
    );
}

#[test]
fn task_is_optional_or_required() {
    let task = |value: &str| {
        messages(
            quote!(task = #value),
            quote! { /// Docs.
            fn job() -> String { String::new() } },
        )
    };
    assert_eq!(task("optional"), Vec::<String>::new());
    assert_eq!(task("required"), Vec::<String>::new());
    assert_eq!(
        task("always"),
        [
            "`task` is \"optional\" (the server may answer a call with a task) or \"required\" (always a task), not \"always\""
        ]
    );
    assert_eq!(
        messages(
            quote!(task = true),
            quote! { /// Docs.
            fn job() -> String { String::new() } }
        ),
        ["`task` takes a string literal: `task = \"optional\"`"]
    );
}

#[test]
fn tool_names_are_checked_at_their_bounds() {
    const RULE: &str = "tool names are 1 to 128 characters of `A-Z a-z 0-9 _ . -`";
    let named = |name: &str| {
        messages(
            quote!(name = #name),
            quote! { /// Docs.
            fn f() -> String { String::new() } },
        )
    };
    assert_eq!(named(&"a".repeat(128)), Vec::<String>::new());
    assert_eq!(named("a.b-c_D9"), Vec::<String>::new());
    assert_eq!(named(&"a".repeat(129)), [format!("the tool name has 129 characters; {RULE}")]);
    assert_eq!(named(""), [format!("the tool name is empty; {RULE}")]);
    assert_eq!(
        named("a/b c/d"),
        [format!("invalid tool name `a/b c/d`: `/`, ` ` are not allowed; {RULE}, e.g. `a_b_c_d`")]
    );
    assert_eq!(named("é"), [format!("invalid tool name `é`: `é` is not allowed; {RULE}")]);
    // The default name is the fn's.
    let errors = messages(
        TokenStream::new(),
        quote! { /// Docs.
        fn café() -> String { String::new() } },
    );
    assert_eq!(
        errors,
        [format!(
            "invalid tool name `café`: `é` is not allowed; {RULE}; the name comes from the fn: set another with `#[tool(name = \"…\")]`"
        )]
    );
}

#[test]
fn every_errors_mistake_in_one_list() {
    let errors = messages(
        TokenStream::new(),
        quote! {
            /// Fetches.
            #[errors(reason = "NoMatch", code = NotFund, when = " ", recovery = "Retry.", severity = loud)]
            #[errors(reason = "queue_full", code = "RateLimited", retryable = "yes", when = "Full.", recovery = "Wait a few seconds, then retry.", thrown_by = db)]
            #[errors(reson = "gone", code = NotFound, when = "Gone.")]
            #[errors(reason = "queue_full", code = -2147483649, when = "Full.", recovery = "Wait a few seconds, then retry.", when = "Again.")]
            fn fetch(id: String) -> String { id }
        },
    );
    assert_eq!(
        errors,
        [
            "`code` takes the code's name without quotes: `code = RateLimited`",
            "`retryable` takes `true` or `false`, without quotes: `retryable = true`",
            "`thrown_by` takes `service`, found `db`; write `thrown_by = service`",
            "unknown `errors` key `reson`; expected one of `reason`, `code`, `when`, `recovery`, `retryable`, `severity`, `thrown_by`; did you mean `reason`?",
            "`code` must fit in an i32 (-2147483648 to 2147483647)",
            "duplicate `errors` key `when`; remove one of them",
            "note: `when` first used here",
            // validation, entry by entry
            "reason `NoMatch` must be snake_case (`^[a-z][a-z0-9_]*$`), e.g. `no_match`",
            "unknown error code `NotFund`; use a name from the code table (`NotFound`, `RateLimited`, …) or an integer; did you mean `NotFound`?",
            "`when` is empty; describe in one sentence when this failure happens",
            "`recovery` has 1 word; tell the caller its next move in at least 5 words, naming a tool or an argument it can use",
            "unknown severity `loud`; expected one of `debug`, `info`, `notice`, `warning`",
            "`errors` is missing `recovery`; every failure mode declares `reason`, `code`, `when`, `recovery`",
            "duplicate reason `queue_full`; each failure mode of a tool has its own reason",
            "note: `queue_full` first declared here",
        ]
    );
}

#[test]
fn reasons_must_make_distinct_variants() {
    let errors = messages(
        TokenStream::new(),
        quote! {
            /// Fetches.
            #[errors(reason = "a_b", code = NotFound, when = "A.", recovery = "Call list_items to see every item.")]
            #[errors(reason = "a__b", code = NotFound, when = "B.", recovery = "Call list_items to see every item.")]
            #[errors(reason = "self", code = NotFound, when = "C.", recovery = "Call list_items to see every item.")]
            fn fetch(id: String) -> String { id }
        },
    );
    assert_eq!(
        errors,
        [
            "reasons `a_b` and `a__b` both become the variant `FetchError::AB`; rename one of them",
            "reason `self` cannot name a variant of the reason enum (`Self` is a keyword); choose another reason",
        ]
    );
}

#[test]
fn signature_mistakes() {
    let errors = messages(
        TokenStream::new(),
        quote! {
            /// Searches.
            const fn search<T>(&self, ctx: &mut Ctx, again: &Ctx, (a, b): (u8, u8), #[input(x)] q: Query, #[input] r: &Query) -> String {
                todo!()
            }
        },
    );
    assert_eq!(
        errors,
        [
            "`#[tool]` goes on a free fn, not a method; share state with `Server::builder(..).app_data(value)` and read it with `ctx.app_data::<T>()`",
            "the context parameter is shared: take it as `&Ctx<..>`, not `&mut`",
            "a `#[tool]` argument is named after its binding: use a plain identifier here, or mark a struct parameter `#[input]` to destructure it",
            "`#[input]` takes no arguments",
            "`#[input]` marks a by-value parameter; take the input struct by value",
            "a `#[tool]` fn cannot be generic: its schemas are generated for concrete types",
            "a `#[tool]` fn cannot be `const`",
            "a `#[tool]` fn takes at most one by-reference parameter, the context `&Ctx<..>`; take arguments by value (`path: String`)",
            "a `#[tool]` fn takes at most one by-reference parameter, the context `&Ctx<..>`; take arguments by value (`path: String`)",
            "a tool with an `#[input]` struct takes no other arguments: move this field into the struct",
        ]
    );
}

#[test]
fn input_struct_mistakes() {
    let errors = messages(
        TokenStream::new(),
        quote! {
            /// Searches.
            fn search(/// The query.
            #[input] q: Query, #[input] p: Paging) -> String {
                todo!()
            }
        },
    );
    assert_eq!(
        errors,
        [
            "only one parameter can be the whole `#[input]`: make the other one a field of the input struct",
            "put `///`, `#[serde]` and `#[schemars]` on the `#[input]` struct's fields, not on the parameter",
        ]
    );
}

#[test]
fn misplaced_attributes() {
    let errors = messages(
        quote!(annotations = true, icons(src = "x"), meta(a = b, c = 1)),
        quote! {
            /// Docs.
            #[tool]
            fn f() -> String { String::new() }
        },
    );
    assert_eq!(
        errors,
        [
            "`annotations` takes a list in parentheses: `annotations(read_only_hint = true)`",
            "expected `icon(src = \"…\", mime_type = \"…\")` inside `icons(...)`, found `src`",
            "`meta` values are string, number or boolean literals: `a = \"…\"`",
            "`#[tool]` is applied twice; keep one and merge their keys",
        ]
    );
}

#[test]
fn tool_on_something_else_than_a_fn() {
    let out = crate::tool_impl(
        TokenStream::new(),
        quote!(
            struct S;
        ),
    );
    assert_eq!(
        compile_errors(&out),
        ["`#[tool]` goes on a fn item: `/// What it does.` `#[tool] async fn name(..) -> T { .. }`"]
    );
}

#[test]
fn errors_above_tool_moves_below_it() {
    // `#[errors(a)] #[errors(b)] #[tool] fn f`: the first `#[errors]` runs first and sees the rest.
    let out = crate::errors_impl(
        quote!(reason = "a"),
        quote! {
            /// Docs.
            #[errors(reason = "b")]
            #[tool(title = "T")]
            #[inline]
            fn f() {}
        },
    );
    assert_eq!(
        compile_errors(&out),
        ["`#[tool]` reads the `#[errors(...)]` attributes below it: move `#[tool]` above every `#[errors(...)]`"]
    );
    let file: syn::File = syn::parse2(out).expect("items");
    let syn::Item::Fn(f) = &file.items[0] else { panic!("the fn comes first") };
    let attrs: Vec<String> = f.attrs.iter().map(|a| quote!(#a).to_string()).collect();
    assert_eq!(
        attrs,
        [
            "# [doc = r\" Docs.\"]",
            "# [tool (title = \"T\")]",
            "# [errors (reason = \"a\")]",
            "# [errors (reason = \"b\")]",
            "# [inline]",
        ]
    );
}

#[test]
fn errors_without_tool() {
    let out = crate::errors_impl(
        quote!(reason = "a"),
        quote!(
            fn f() {}
        ),
    );
    assert_eq!(
        compile_errors(&out),
        [
            "`#[errors(...)]` declares a failure mode of a tool: put `#[tool]` above it, on a fn (or use `#[contract]` on an enum)"
        ]
    );
}

/// The macro maps integer codes to named ones itself (the contract table is a constant), so
/// its table must be the runtime's.
#[test]
fn code_table_matches_the_runtime() {
    let runtime: Vec<(&str, i32)> =
        renamed_runtime::ErrorCode::NAMED.iter().map(|(name, code)| (*name, code.as_i32())).collect();
    assert_eq!(crate::attr::CODES, runtime.as_slice());
}

#[test]
fn errors_named_by_path_are_read() {
    let item: syn::ItemFn = syn::parse2(quote! {
        /// Docs.
        #[mcp_runtime::errors(reason = "a", code = NotFound, when = "A.", recovery = "Call list_items to see every item.")]
        #[errors(reason = "b", code = NotFound, when = "B.", recovery = "Call list_items to see every item.")]
        #[inline]
        fn f() -> String { String::new() }
    })
    .expect("a fn");
    let cx = Ctxt::new();
    let model = ast::from_syn(&cx, crate::attr::Kind::Tool, TokenStream::new(), &item);
    cx.check().expect("no errors");
    let reasons: Vec<String> = model.errors.iter().filter_map(|e| e.reason.as_ref()).map(syn::LitStr::value).collect();
    assert_eq!(reasons, ["a", "b"]);
    assert_eq!(model.kept_attrs.len(), 2, "the doc comment and `#[inline]` stay on the handler");
}

#[test]
fn borrowed_arguments_ask_for_owned_types() {
    let errors = messages(
        quote!(),
        quote! {
            /// Reads a file.
            fn read_file(ctx: &Ctx, path: &str, ids: &[u32]) -> String { todo!() }
        },
    );
    assert_eq!(
        errors,
        [
            "a `#[tool]` argument is deserialized from the call's JSON, so the handler owns it: take `path: String`, not `&str`",
            "a `#[tool]` argument is deserialized from the call's JSON, so the handler owns it: take `ids: Vec<u32>`, not `&[u32]`",
        ]
    );
}

#[test]
fn await_needs_async_but_async_blocks_do_not() {
    let errors = messages(
        quote!(),
        quote! {
            /// Lists the tasks.
            fn list_tasks() -> String { load().await }
        },
    );
    assert_eq!(errors, ["`list_tasks` uses `.await`, so it must be `async`: write `async fn list_tasks`"]);
    let errors = messages(
        quote!(),
        quote! {
            /// Lists the tasks.
            fn list_tasks() -> String {
                let later = async move { load().await };
                async fn inner() { load().await }
                drop(later);
                String::new()
            }
        },
    );
    assert_eq!(errors, Vec::<String>::new());
}

#[test]
fn undeclared_reasons_list_the_declared_ones() {
    let errors = messages(
        quote!(),
        quote! {
            /// Creates a task.
            #[errors(reason = "duplicate_title", code = Conflict, when = "A task with this title exists.", recovery = "Call list_tasks and pick another title.")]
            fn create_task(ctx: &Ctx<CreateTaskError>) -> Result<(), ToolError> {
                let _ = CreateTaskError::ENTRIES;
                let _ = CreateTaskError::DuplicateTitle.as_str();
                Err(ctx.fail(CreateTaskError::TooManyTasks))
            }
        },
    );
    assert_eq!(
        errors,
        [
            "`CreateTaskError` has no reason `TooManyTasks`: tool `create_task` declares `DuplicateTitle` (`duplicate_title`); to raise `too_many_tasks`, declare it with `#[errors(reason = \"too_many_tasks\", code = .., when = \"..\", recovery = \"..\")]`"
        ]
    );
}

#[test]
fn scopes_are_checked_and_every_mistake_is_reported() {
    let item = quote! {
        /// Writes a note.
        fn write_note(text: String) -> String { text }
    };
    assert_eq!(messages(quote!(scopes("notes:write", "notes:read")), item.clone()), Vec::<String>::new());
    assert_eq!(
        messages(quote!(scopes("notes:write", notes_read, "a b", "", "notes:write")), item.clone()),
        [
            "`scopes` takes string literals: `scopes(\"notes_read\")`",
            "a scope is one OAuth scope token: visible ASCII without spaces, `\"` or `\\`; list several as separate strings: `scopes(\"notes:read\", \"notes:write\")`",
            "a scope is empty; write its name: `\"notes:write\"`",
            "duplicate scope `notes:write`; remove one of them",
            "note: `notes:write` first listed here",
        ]
    );
    assert_eq!(
        messages(quote!(scopes()), item.clone()),
        ["`scopes(...)` is empty; name at least one scope: `scopes(\"notes:write\")`, or remove it"]
    );
    assert_eq!(
        messages(quote!(scopes = "notes:write"), item),
        ["`scopes` takes a list in parentheses: `scopes(\"notes:write\")`"]
    );
}

#[test]
fn impl_trait_cfg_and_reserved_names() {
    let errors = messages(
        TokenStream::new(),
        quote! {
            /// Echoes.
            fn echo(#[cfg(x)] ctx: &Ctx, text: Vec<impl ToString>, __mcp_args: String, #[cfg(y)] loud: bool) -> impl Serialize {
                todo!()
            }
        },
    );
    assert_eq!(
        errors,
        [
            "a `#[tool]` fn cannot be generic: its schemas are generated for concrete types; `impl Trait` in a parameter is a generic type: name a concrete type (`String`, a struct of yours)",
            "a `#[tool]` fn returns a concrete type, which its output is generated from: name the type instead of `impl Trait`",
            "the context parameter cannot be `#[cfg]`'d: take it always, or not at all",
            "names that start with `__mcp` belong to the code `#[tool]` generates: rename the parameter",
        ]
    );
    let errors = messages(
        TokenStream::new(),
        quote! {
            /// Searches.
            fn search(#[cfg(x)] #[input] q: Query) -> String { todo!() }
        },
    );
    assert_eq!(errors, ["the `#[input]` parameter cannot be `#[cfg]`'d: put `#[cfg]` on the input struct's fields"]);
}

#[test]
fn a_contract_reason_is_declared_once() {
    let item = quote! {
        enum NoteErrors {
            #[errors(code = NotFound, when = "Missing.", recovery = "Call list_notes to see every name.")]
            NoSuchNote,
            #[errors(code = NotFound, when = "Gone.", recovery = "Call list_notes to see every name.")]
            Gone,
            #[errors(reason = "no_such_note", code = NotFound, when = "Deleted.", recovery = "Call list_notes to see every name.")]
            Other,
            #[errors(reason = "gone", code = NotFound, when = "Gone again.", recovery = "Call list_notes to see every name.")]
            GoneAgain,
        }
    };
    assert_eq!(
        compile_errors(&crate::contract_impl(TokenStream::new(), item)),
        [
            "duplicate reason `no_such_note`: variants `NoSuchNote` and `Other` both declare it; each failure mode of a contract has its own reason",
            "note: `no_such_note` first declared here, by variant `NoSuchNote`",
            "duplicate reason `gone`: variants `Gone` and `GoneAgain` both declare it; each failure mode of a contract has its own reason",
            "note: `gone` first declared here, by variant `Gone`",
        ]
    );
}
