use mcp_runtime::prelude::*;
/// What to search for.
struct Query {
    /// The text.
    text: String,
}
#[doc(hidden)]
#[allow(
    non_upper_case_globals,
    unused_attributes,
    unused_qualifications,
    clippy::absolute_paths,
)]
const _: () = {
    #[allow(unused_extern_crates, clippy::useless_attribute)]
    extern crate serde as _serde;
    #[automatically_derived]
    impl<'de> _serde::Deserialize<'de> for Query {
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
                __ignore,
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
                        _ => _serde::__private229::Ok(__Field::__ignore),
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
                        "text" => _serde::__private229::Ok(__Field::__field0),
                        _ => _serde::__private229::Ok(__Field::__ignore),
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
                        b"text" => _serde::__private229::Ok(__Field::__field0),
                        _ => _serde::__private229::Ok(__Field::__ignore),
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
            struct __Visitor<'de> {
                marker: _serde::__private229::PhantomData<Query>,
                lifetime: _serde::__private229::PhantomData<&'de ()>,
            }
            #[automatically_derived]
            impl<'de> _serde::de::Visitor<'de> for __Visitor<'de> {
                type Value = Query;
                fn expecting(
                    &self,
                    __formatter: &mut _serde::__private229::Formatter,
                ) -> _serde::__private229::fmt::Result {
                    _serde::__private229::Formatter::write_str(
                        __formatter,
                        "struct Query",
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
                                    &"struct Query with 1 element",
                                ),
                            );
                        }
                    };
                    _serde::__private229::Ok(Query { text: __field0 })
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
                                        <__A::Error as _serde::de::Error>::duplicate_field("text"),
                                    );
                                }
                                __field0 = _serde::__private229::Some(
                                    _serde::de::MapAccess::next_value::<String>(&mut __map)?,
                                );
                            }
                            _ => {
                                let _ = _serde::de::MapAccess::next_value::<
                                    _serde::de::IgnoredAny,
                                >(&mut __map)?;
                            }
                        }
                    }
                    let __field0 = match __field0 {
                        _serde::__private229::Some(__field0) => __field0,
                        _serde::__private229::None => {
                            _serde::__private229::de::missing_field("text")?
                        }
                    };
                    _serde::__private229::Ok(Query { text: __field0 })
                }
            }
            #[doc(hidden)]
            const FIELDS: &'static [&'static str] = &["text"];
            _serde::Deserializer::deserialize_struct(
                __deserializer,
                "Query",
                FIELDS,
                __Visitor {
                    marker: _serde::__private229::PhantomData::<Query>,
                    lifetime: _serde::__private229::PhantomData,
                },
            )
        }
    }
};
const _: () = {
    #[automatically_derived]
    #[allow(unused_braces, unused_qualifications)]
    impl schemars::JsonSchema for Query {
        fn schema_name() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("Query")
        }
        fn schema_id() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("macrotest005::Query")
        }
        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
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
                            object
                        }),
                    )
                    .unwrap();
                {
                    schemars::_private::insert_object_property(
                        &mut schema,
                        "text",
                        generator.contract().is_deserialize()
                            && <String as schemars::JsonSchema>::_schemars_private_is_option(),
                        {
                            let mut schema = generator.subschema_for::<String>();
                            schemars::_private::insert_metadata_property_if_nonempty(
                                &mut schema,
                                "title",
                                {
                                    const TITLE: &str = schemars::_private::get_title_and_description(
                                            "The text.",
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
                                            "The text.",
                                        )
                                        .1;
                                    DESCRIPTION
                                },
                            );
                            schema
                        },
                    );
                }
                schemars::_private::insert_metadata_property_if_nonempty(
                    &mut schema,
                    "title",
                    {
                        const TITLE: &str = schemars::_private::get_title_and_description(
                                "What to search for.",
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
                                "What to search for.",
                            )
                            .1;
                        DESCRIPTION
                    },
                );
                schema
            }
        }
        fn inline_schema() -> bool {
            false
        }
    }
};
/// The hits.
struct Hits {
    /// One line per hit.
    hits: Vec<String>,
}
#[doc(hidden)]
#[allow(
    non_upper_case_globals,
    unused_attributes,
    unused_qualifications,
    clippy::absolute_paths,
)]
const _: () = {
    #[allow(unused_extern_crates, clippy::useless_attribute)]
    extern crate serde as _serde;
    #[automatically_derived]
    impl _serde::Serialize for Hits {
        fn serialize<__S>(
            &self,
            __serializer: __S,
        ) -> _serde::__private229::Result<__S::Ok, __S::Error>
        where
            __S: _serde::Serializer,
        {
            let mut __serde_state = _serde::Serializer::serialize_struct(
                __serializer,
                "Hits",
                false as usize + 1,
            )?;
            _serde::ser::SerializeStruct::serialize_field(
                &mut __serde_state,
                "hits",
                &self.hits,
            )?;
            _serde::ser::SerializeStruct::end(__serde_state)
        }
    }
};
const _: () = {
    #[automatically_derived]
    #[allow(unused_braces, unused_qualifications)]
    impl schemars::JsonSchema for Hits {
        fn schema_name() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("Hits")
        }
        fn schema_id() -> schemars::_private::alloc::borrow::Cow<'static, str> {
            schemars::_private::alloc::borrow::Cow::Borrowed("macrotest005::Hits")
        }
        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
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
                            object
                        }),
                    )
                    .unwrap();
                {
                    schemars::_private::insert_object_property(
                        &mut schema,
                        "hits",
                        generator.contract().is_deserialize()
                            && <Vec<
                                String,
                            > as schemars::JsonSchema>::_schemars_private_is_option(),
                        {
                            let mut schema = generator.subschema_for::<Vec<String>>();
                            schemars::_private::insert_metadata_property_if_nonempty(
                                &mut schema,
                                "title",
                                {
                                    const TITLE: &str = schemars::_private::get_title_and_description(
                                            "One line per hit.",
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
                                            "One line per hit.",
                                        )
                                        .1;
                                    DESCRIPTION
                                },
                            );
                            schema
                        },
                    );
                }
                schemars::_private::insert_metadata_property_if_nonempty(
                    &mut schema,
                    "title",
                    {
                        const TITLE: &str = schemars::_private::get_title_and_description(
                                "The hits.",
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
                                "The hits.",
                            )
                            .1;
                        DESCRIPTION
                    },
                );
                schema
            }
        }
        fn inline_schema() -> bool {
            false
        }
    }
};
/// Searches the docs.
#[allow(clippy::must_use_candidate)]
const fn search_docs() -> search_docs {
    search_docs {}
}
/// The type of tool `search_docs`: it holds the handler and implements `ToolDef`.
#[doc(hidden)]
#[allow(non_camel_case_types)]
struct search_docs {}
impl search_docs {
    /// The handler of tool `search_docs`, as written. Call it directly in unit tests; the server calls it through the tool's `ToolDef` impl.
    #[allow(
        clippy::missing_errors_doc,
        clippy::missing_panics_doc,
        clippy::must_use_candidate,
        clippy::needless_pass_by_value
    )]
    async fn handler(ctx: &Ctx, query: Query) -> Hits {
        let _ = ctx.request_id();
        Hits {
            hits: ::alloc::boxed::box_assume_init_into_vec_unsafe(
                ::alloc::intrinsics::write_box_via_move(
                    ::alloc::boxed::Box::new_uninit(),
                    [query.text],
                ),
            ),
        }
    }
}
const _: () = {
    use ::mcp_runtime::__private::{self as __mcp, probes::*};
    impl __mcp::ToolDef for search_docs {
        const INFO: __mcp::ToolInfo = __mcp::ToolInfo {
            input: __mcp::InputSpec::Whole(__mcp::root_schema::<Query>),
            ..__mcp::ToolInfo::new("search_docs", "Searches the docs.", "macrotest005")
        };
        type Ctx = Ctx;
        type Ret = Hits;
        fn run(
            __mcp_ctx: &Self::Ctx,
            __mcp_args: __mcp::Args,
        ) -> __mcp::Started<impl __mcp::Running<Self::Ret>> {
            __mcp::Ok(search_docs::handler(__mcp_ctx, __mcp_args.parse::<Query>()?))
        }
        fn finish(__mcp_out: Self::Ret) -> __mcp::Finished {
            (&&__mcp::Kind::<Hits>::new()).finish(__mcp_out)
        }
        fn output_schema(__mcp_gen: &mut __mcp::SchemaGenerator) -> __mcp::OutputSchema {
            (&&__mcp::Kind::<Hits>::new()).output_schema(__mcp_gen)
        }
    }
};
fn main() {}
