use mcp_runtime::prelude::*;
/// Searches the notes,
///at most 50 at a time.
#[allow(clippy::must_use_candidate)]
const fn search() -> search {
    search {}
}
/// The type of tool `search`: it holds the handler and implements `ToolDef`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct search {}
impl search {
    /// The handler of tool `search`, as written. Call it directly in unit tests; the server calls it through the tool's `ToolDef` impl.
    #[allow(
        clippy::missing_errors_doc,
        clippy::missing_panics_doc,
        clippy::must_use_candidate,
        clippy::needless_pass_by_value
    )]
    fn handler(query: String) -> String {
        query
    }
}
const _: () = {
    use ::mcp_runtime::__private::{self as __mcp, probes::*};
    #[allow(unused_imports)]
    use __mcp::derive_prelude::*;
    #[serde(crate = "::mcp_runtime::__private::serde")]
    #[serde(
        bound(deserialize = "String: ::mcp_runtime::__private::serde::Deserialize<'de>")
    )]
    #[serde(deny_unknown_fields)]
    #[schemars(crate = "::mcp_runtime::schemars")]
    struct __McpArgs {
        /// What to look for.
        #[schemars(length(min = 1))]
        query: String,
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
                            "query" => _serde::__private229::Ok(__Field::__field0),
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
                            b"query" => _serde::__private229::Ok(__Field::__field0),
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
                        _serde::__private229::Ok(__McpArgs { query: __field0 })
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
                                            <__A::Error as _serde::de::Error>::duplicate_field("query"),
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
                                _serde::__private229::de::missing_field("query")?
                            }
                        };
                        _serde::__private229::Ok(__McpArgs { query: __field0 })
                    }
                }
                #[doc(hidden)]
                const FIELDS: &'static [&'static str] = &["query"];
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
                    "macrotest003::__McpArgs",
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
                            "query",
                            generator.contract().is_deserialize()
                                && <String as schemars::JsonSchema>::_schemars_private_is_option(),
                            {
                                let mut schema = generator.subschema_for::<String>();
                                schemars::_private::insert_metadata_property_if_nonempty(
                                    &mut schema,
                                    "title",
                                    {
                                        const TITLE: &str = schemars::_private::get_title_and_description(
                                                "What to look for.",
                                            )
                                            .0;
                                        TITLE
                                    },
                                );
                                schemars::_private::insert_metadata_property_if_nonempty(
                                    &mut schema,
                                    "description",
                                    {
                                        const DESCRIPTION: &str = schemars::_private::get_title_and_description(
                                                "What to look for.",
                                            )
                                            .1;
                                        DESCRIPTION
                                    },
                                );
                                schemars::_private::insert_validation_property(
                                    &mut schema,
                                    "string",
                                    "minLength",
                                    1,
                                );
                                schemars::_private::insert_validation_property(
                                    &mut schema,
                                    "array",
                                    "minItems",
                                    1,
                                );
                                schema
                            },
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
    impl __mcp::ToolDef for search {
        const INFO: __mcp::ToolInfo = __mcp::ToolInfo {
            input: __mcp::InputSpec::Params(__mcp::root_schema::<__McpArgs>),
            blocking: true,
            ..__mcp::ToolInfo::new(
                "search",
                "Searches the notes,\nat most 50 at a time.",
                "macrotest003",
            )
        };
        type Ctx = ::mcp_runtime::Ctx;
        type Ret = __mcp::Finished;
        fn run(
            _: &Self::Ctx,
            __mcp_args: __mcp::Args,
        ) -> __mcp::Started<impl __mcp::Running<Self::Ret>> {
            (&&__mcp::ArgOf::<String>::new()).check();
            let __McpArgs { query } = (&&__mcp::ArgsOf::<__McpArgs>::new())
                .parse(__mcp_args)?;
            let __mcp_out = search::handler(query);
            ::core::result::Result::Ok(
                ::core::future::ready((&&__mcp::Kind::<String>::new()).finish(__mcp_out)),
            )
        }
        fn finish(__mcp_out: Self::Ret) -> __mcp::Finished {
            __mcp_out
        }
        fn output_schema(__mcp_gen: &mut __mcp::SchemaGenerator) -> __mcp::OutputSchema {
            (&&__mcp::Kind::<String>::new()).output_schema(__mcp_gen)
        }
    }
};
fn main() {}
