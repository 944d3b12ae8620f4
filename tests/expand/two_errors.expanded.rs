use mcp_runtime::prelude::*;
const _: () = ::mcp_runtime::__private::context_of::<
    Ctx<FetchItemError>,
    FetchItemError,
>();
/// Fetches one item.
#[allow(non_camel_case_types)]
struct fetch_item;
impl fetch_item {
    /// The handler of tool `fetch_item`, as written. Call it directly in unit tests; the server calls it through the tool's `ToolDef` impl.
    async fn handler(
        ctx: &Ctx<FetchItemError>,
        id: String,
    ) -> Result<String, ToolError> {
        Err(
            ctx
                .fail(FetchItemError::NoMatch)
                .message(
                    ::alloc::__export::must_use({
                        ::alloc::fmt::format(format_args!("no item {0}", id))
                    }),
                ),
        )
    }
}
/// The failure reasons of tool `fetch_item`, declared with `#[errors(...)]`. Pass one to `ctx.fail`.
#[allow(dead_code)]
enum FetchItemError {
    /// `no_match`: The id does not exist.
    NoMatch,
    /// `queue_full`: The queue is full.
    QueueFull,
}
#[automatically_derived]
#[doc(hidden)]
#[allow(dead_code)]
unsafe impl ::core::clone::TrivialClone for FetchItemError {}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::clone::Clone for FetchItemError {
    #[inline]
    fn clone(&self) -> FetchItemError {
        *self
    }
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::marker::Copy for FetchItemError {}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::fmt::Debug for FetchItemError {
    #[inline]
    fn fmt(&self, f: &mut ::core::fmt::Formatter) -> ::core::fmt::Result {
        ::core::fmt::Formatter::write_str(
            f,
            match self {
                FetchItemError::NoMatch => "NoMatch",
                FetchItemError::QueueFull => "QueueFull",
            },
        )
    }
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::marker::StructuralPartialEq for FetchItemError {}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::cmp::PartialEq for FetchItemError {
    #[inline]
    fn eq(&self, other: &FetchItemError) -> bool {
        let __self_discr = ::core::intrinsics::discriminant_value(self);
        let __arg1_discr = ::core::intrinsics::discriminant_value(other);
        __self_discr == __arg1_discr
    }
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::cmp::Eq for FetchItemError {
    #[doc(hidden)]
    #[coverage(off)]
    fn assert_fields_are_eq(&self) {}
}
#[automatically_derived]
#[allow(dead_code)]
impl ::core::hash::Hash for FetchItemError {
    #[inline]
    fn hash<__H: ::core::hash::Hasher>(&self, state: &mut __H) {
        let __self_discr = ::core::intrinsics::discriminant_value(self);
        ::core::hash::Hash::hash(&__self_discr, state)
    }
}
impl FetchItemError {
    /// The reason string sent in `data.reason`.
    const fn as_str(self) -> &'static str {
        match self {
            Self::NoMatch => "no_match",
            Self::QueueFull => "queue_full",
        }
    }
}
impl ::mcp_runtime::Contract for FetchItemError {
    const ENTRIES: &'static [::mcp_runtime::ContractEntry] = &[
        ::mcp_runtime::ContractEntry {
            reason: "no_match",
            code: ::mcp_runtime::ErrorCode::NotFound,
            when: "The id does not exist.",
            recovery: "Call search_docs to find a valid id.",
            retryable: ::core::option::Option::None,
            severity: ::core::option::Option::None,
        },
        ::mcp_runtime::ContractEntry {
            reason: "queue_full",
            code: ::mcp_runtime::ErrorCode::RateLimited,
            when: "The queue is full.",
            recovery: "Wait a few seconds, then call fetch_item again.",
            retryable: ::core::option::Option::Some(true),
            severity: ::core::option::Option::None,
        },
    ];
    fn entry(self) -> &'static ::mcp_runtime::ContractEntry {
        &Self::ENTRIES[self as usize]
    }
}
const _: () = {
    use ::mcp_runtime::__private as __mcp;
    #[allow(unused_imports)]
    use __mcp::{
        ArgKind as _, NotAnArgKind as _, ArgsKind as _, UndeserializableKind as _,
        ContentKind as _, StructuredKind as _, UnsupportedKind as _,
        IntoToolErrorKind as _, NotAToolErrorKind as _,
    };
    #[serde(crate = "::mcp_runtime::__private::serde")]
    #[serde(
        bound(deserialize = "String: ::mcp_runtime::__private::serde::Deserialize<'de>")
    )]
    #[serde(deny_unknown_fields)]
    #[schemars(crate = "::mcp_runtime::schemars")]
    struct __McpArgs {
        id: String,
    }
    #[doc(hidden)]
    #[allow(
        non_upper_case_globals,
        unused_attributes,
        unused_qualifications,
        clippy::absolute_paths,
    )]
    const _: () = {
        use ::mcp_runtime::__private::serde as _serde;
        #[automatically_derived]
        impl<'de> _serde::Deserialize<'de> for __McpArgs
        where
            String: ::mcp_runtime::__private::serde::Deserialize<'de>,
        {
            fn deserialize<__D>(
                __deserializer: __D,
            ) -> _serde::__private229::Result<Self, __D::Error>
            where
                __D: _serde::Deserializer<'de>,
            {
                #[allow(non_camel_case_types)]
                #[doc(hidden)]
                enum __Field {
                    __field0,
                }
                #[doc(hidden)]
                struct __FieldVisitor;
                #[automatically_derived]
                impl<'de> _serde::de::Visitor<'de> for __FieldVisitor {
                    type Value = __Field;
                    fn expecting(
                        &self,
                        __formatter: &mut _serde::__private229::Formatter,
                    ) -> _serde::__private229::fmt::Result {
                        _serde::__private229::Formatter::write_str(
                            __formatter,
                            "field identifier",
                        )
                    }
                    fn visit_u64<__E>(
                        self,
                        __value: u64,
                    ) -> _serde::__private229::Result<Self::Value, __E>
                    where
                        __E: _serde::de::Error,
                    {
                        match __value {
                            0u64 => _serde::__private229::Ok(__Field::__field0),
                            _ => {
                                _serde::__private229::Err(
                                    _serde::de::Error::invalid_value(
                                        _serde::de::Unexpected::Unsigned(__value),
                                        &"field index 0 <= i < 1",
                                    ),
                                )
                            }
                        }
                    }
                    fn visit_str<__E>(
                        self,
                        __value: &str,
                    ) -> _serde::__private229::Result<Self::Value, __E>
                    where
                        __E: _serde::de::Error,
                    {
                        match __value {
                            "id" => _serde::__private229::Ok(__Field::__field0),
                            _ => {
                                _serde::__private229::Err(
                                    _serde::de::Error::unknown_field(__value, FIELDS),
                                )
                            }
                        }
                    }
                    fn visit_bytes<__E>(
                        self,
                        __value: &[u8],
                    ) -> _serde::__private229::Result<Self::Value, __E>
                    where
                        __E: _serde::de::Error,
                    {
                        match __value {
                            b"id" => _serde::__private229::Ok(__Field::__field0),
                            _ => {
                                let __value = &_serde::__private229::from_utf8_lossy(
                                    __value,
                                );
                                _serde::__private229::Err(
                                    _serde::de::Error::unknown_field(__value, FIELDS),
                                )
                            }
                        }
                    }
                }
                #[automatically_derived]
                impl<'de> _serde::Deserialize<'de> for __Field {
                    #[inline]
                    fn deserialize<__D>(
                        __deserializer: __D,
                    ) -> _serde::__private229::Result<Self, __D::Error>
                    where
                        __D: _serde::Deserializer<'de>,
                    {
                        _serde::Deserializer::deserialize_identifier(
                            __deserializer,
                            __FieldVisitor,
                        )
                    }
                }
                #[doc(hidden)]
                struct __Visitor<'de>
                where
                    String: ::mcp_runtime::__private::serde::Deserialize<'de>,
                {
                    marker: _serde::__private229::PhantomData<__McpArgs>,
                    lifetime: _serde::__private229::PhantomData<&'de ()>,
                }
                #[automatically_derived]
                impl<'de> _serde::de::Visitor<'de> for __Visitor<'de>
                where
                    String: ::mcp_runtime::__private::serde::Deserialize<'de>,
                {
                    type Value = __McpArgs;
                    fn expecting(
                        &self,
                        __formatter: &mut _serde::__private229::Formatter,
                    ) -> _serde::__private229::fmt::Result {
                        _serde::__private229::Formatter::write_str(
                            __formatter,
                            "struct __McpArgs",
                        )
                    }
                    #[inline]
                    fn visit_seq<__A>(
                        self,
                        mut __seq: __A,
                    ) -> _serde::__private229::Result<Self::Value, __A::Error>
                    where
                        __A: _serde::de::SeqAccess<'de>,
                    {
                        let __field0 = match _serde::de::SeqAccess::next_element::<
                            String,
                        >(&mut __seq)? {
                            _serde::__private229::Some(__value) => __value,
                            _serde::__private229::None => {
                                return _serde::__private229::Err(
                                    _serde::de::Error::invalid_length(
                                        0usize,
                                        &"struct __McpArgs with 1 element",
                                    ),
                                );
                            }
                        };
                        _serde::__private229::Ok(__McpArgs { id: __field0 })
                    }
                    #[inline]
                    fn visit_map<__A>(
                        self,
                        mut __map: __A,
                    ) -> _serde::__private229::Result<Self::Value, __A::Error>
                    where
                        __A: _serde::de::MapAccess<'de>,
                    {
                        let mut __field0: _serde::__private229::Option<String> = _serde::__private229::None;
                        while let _serde::__private229::Some(__key) = _serde::de::MapAccess::next_key::<
                            __Field,
                        >(&mut __map)? {
                            match __key {
                                __Field::__field0 => {
                                    if _serde::__private229::Option::is_some(&__field0) {
                                        return _serde::__private229::Err(
                                            <__A::Error as _serde::de::Error>::duplicate_field("id"),
                                        );
                                    }
                                    __field0 = _serde::__private229::Some(
                                        _serde::de::MapAccess::next_value::<String>(&mut __map)?,
                                    );
                                }
                            }
                        }
                        let __field0 = match __field0 {
                            _serde::__private229::Some(__field0) => __field0,
                            _serde::__private229::None => {
                                _serde::__private229::de::missing_field("id")?
                            }
                        };
                        _serde::__private229::Ok(__McpArgs { id: __field0 })
                    }
                }
                #[doc(hidden)]
                const FIELDS: &'static [&'static str] = &["id"];
                _serde::Deserializer::deserialize_struct(
                    __deserializer,
                    "__McpArgs",
                    FIELDS,
                    __Visitor {
                        marker: _serde::__private229::PhantomData::<__McpArgs>,
                        lifetime: _serde::__private229::PhantomData,
                    },
                )
            }
        }
    };
    const _: () = {
        use ::mcp_runtime::schemars as schemars;
        #[automatically_derived]
        #[allow(unused_braces, unused_qualifications)]
        impl schemars::JsonSchema for __McpArgs {
            fn schema_name() -> schemars::_private::alloc::borrow::Cow<'static, str> {
                schemars::_private::alloc::borrow::Cow::Borrowed("__McpArgs")
            }
            fn schema_id() -> schemars::_private::alloc::borrow::Cow<'static, str> {
                schemars::_private::alloc::borrow::Cow::Borrowed(
                    "macrotest009::__McpArgs",
                )
            }
            fn json_schema(
                generator: &mut schemars::SchemaGenerator,
            ) -> schemars::Schema {
                {
                    let mut schema = <::schemars::Schema as ::core::convert::TryFrom<
                        _,
                    >>::try_from(
                            ::serde_json::Value::Object({
                                let mut object = ::serde_json::Map::new();
                                let _ = object
                                    .insert(
                                        ("type").into(),
                                        ::serde_json::to_value(&"object").unwrap(),
                                    );
                                let _ = object
                                    .insert(
                                        ("additionalProperties").into(),
                                        ::serde_json::Value::Bool(false),
                                    );
                                object
                            }),
                        )
                        .unwrap();
                    {
                        schemars::_private::insert_object_property(
                            &mut schema,
                            "id",
                            generator.contract().is_deserialize()
                                && <String as schemars::JsonSchema>::_schemars_private_is_option(),
                            { generator.subschema_for::<String>() },
                        );
                    }
                    schema
                }
            }
            fn inline_schema() -> bool {
                false
            }
        }
    };
    impl __mcp::ToolDef for fetch_item {
        const INFO: __mcp::ToolInfo = __mcp::ToolInfo {
            input: __mcp::InputSpec::Params(
                ::mcp_runtime::schemars::SchemaGenerator::root_schema_for::<__McpArgs>,
            ),
            contract: ::core::option::Option::Some(
                <FetchItemError as ::mcp_runtime::Contract>::ENTRIES,
            ),
            ..__mcp::ToolInfo::new("fetch_item", "Fetches one item.", "macrotest009")
        };
        type Ctx = Ctx<FetchItemError>;
        type Ret = Result<String, ToolError>;
        fn run(
            __mcp_ctx: &Self::Ctx,
            __mcp_args: __mcp::Args,
        ) -> __mcp::Started<
            impl ::core::future::Future<Output = Self::Ret> + ::core::marker::Send + '_,
        > {
            (&&__mcp::ArgOf::<String>::new()).check();
            let __McpArgs { id } = (&&__mcp::ArgsOf::<__McpArgs>::new())
                .parse(__mcp_args)?;
            ::core::result::Result::Ok(fetch_item::handler(__mcp_ctx, id))
        }
        fn finish(__mcp_out: Self::Ret) -> __mcp::Finished {
            let __mcp_out = match __mcp_out {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(error) => {
                    return ::core::result::Result::Err(
                        (&&__mcp::ErrorOf::of(&error)).convert(error),
                    );
                }
            };
            (&&__mcp::Kind::<String>::new()).finish(__mcp_out)
        }
        fn output_schema(
            g: &mut __mcp::SchemaGenerator,
        ) -> ::core::option::Option<__mcp::Schema> {
            (&&__mcp::Kind::<String>::new()).output_schema(g)
        }
    }
};
fn main() {}
