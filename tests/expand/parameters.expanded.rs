use mcp_runtime::prelude::*;
/// Adds two integers.
#[allow(non_camel_case_types)]
struct add;
impl add {
    /// The handler of tool `add`, as written. Call it directly in unit tests; the server calls it through the tool's `ToolDef` impl.
    fn handler(a: i64, b: Option<i64>) -> String {
        (a + b.unwrap_or(0)).to_string()
    }
}
const _: () = {
    use ::mcp_runtime::__private as __mcp;
    #[allow(unused_imports)]
    use __mcp::{
        ArgKind as _, NotAnArgKind as _, ArgsKind as _, UndeserializableKind as _,
        ContentKind as _, StructuredKind as _, UnsupportedKind as _,
    };
    #[serde(crate = "::mcp_runtime::__private::serde")]
    #[serde(
        bound(
            deserialize = "i64: ::mcp_runtime::__private::serde::Deserialize<'de>, Option < i64 >: ::mcp_runtime::__private::serde::Deserialize<'de>"
        )
    )]
    #[serde(deny_unknown_fields)]
    #[schemars(crate = "::mcp_runtime::schemars")]
    struct __McpArgs {
        /// The first addend.
        a: i64,
        /// The second addend.
        #[serde(default)]
        b: Option<i64>,
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
            i64: ::mcp_runtime::__private::serde::Deserialize<'de>,
            Option<i64>: ::mcp_runtime::__private::serde::Deserialize<'de>,
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
                    __field1,
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
                            1u64 => _serde::__private229::Ok(__Field::__field1),
                            _ => {
                                _serde::__private229::Err(
                                    _serde::de::Error::invalid_value(
                                        _serde::de::Unexpected::Unsigned(__value),
                                        &"field index 0 <= i < 2",
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
                            "a" => _serde::__private229::Ok(__Field::__field0),
                            "b" => _serde::__private229::Ok(__Field::__field1),
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
                            b"a" => _serde::__private229::Ok(__Field::__field0),
                            b"b" => _serde::__private229::Ok(__Field::__field1),
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
                    i64: ::mcp_runtime::__private::serde::Deserialize<'de>,
                    Option<i64>: ::mcp_runtime::__private::serde::Deserialize<'de>,
                {
                    marker: _serde::__private229::PhantomData<__McpArgs>,
                    lifetime: _serde::__private229::PhantomData<&'de ()>,
                }
                #[automatically_derived]
                impl<'de> _serde::de::Visitor<'de> for __Visitor<'de>
                where
                    i64: ::mcp_runtime::__private::serde::Deserialize<'de>,
                    Option<i64>: ::mcp_runtime::__private::serde::Deserialize<'de>,
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
                            i64,
                        >(&mut __seq)? {
                            _serde::__private229::Some(__value) => __value,
                            _serde::__private229::None => {
                                return _serde::__private229::Err(
                                    _serde::de::Error::invalid_length(
                                        0usize,
                                        &"struct __McpArgs with 2 elements",
                                    ),
                                );
                            }
                        };
                        let __field1 = match _serde::de::SeqAccess::next_element::<
                            Option<i64>,
                        >(&mut __seq)? {
                            _serde::__private229::Some(__value) => __value,
                            _serde::__private229::None => {
                                _serde::__private229::Default::default()
                            }
                        };
                        _serde::__private229::Ok(__McpArgs {
                            a: __field0,
                            b: __field1,
                        })
                    }
                    #[inline]
                    fn visit_map<__A>(
                        self,
                        mut __map: __A,
                    ) -> _serde::__private229::Result<Self::Value, __A::Error>
                    where
                        __A: _serde::de::MapAccess<'de>,
                    {
                        let mut __field0: _serde::__private229::Option<i64> = _serde::__private229::None;
                        let mut __field1: _serde::__private229::Option<Option<i64>> = _serde::__private229::None;
                        while let _serde::__private229::Some(__key) = _serde::de::MapAccess::next_key::<
                            __Field,
                        >(&mut __map)? {
                            match __key {
                                __Field::__field0 => {
                                    if _serde::__private229::Option::is_some(&__field0) {
                                        return _serde::__private229::Err(
                                            <__A::Error as _serde::de::Error>::duplicate_field("a"),
                                        );
                                    }
                                    __field0 = _serde::__private229::Some(
                                        _serde::de::MapAccess::next_value::<i64>(&mut __map)?,
                                    );
                                }
                                __Field::__field1 => {
                                    if _serde::__private229::Option::is_some(&__field1) {
                                        return _serde::__private229::Err(
                                            <__A::Error as _serde::de::Error>::duplicate_field("b"),
                                        );
                                    }
                                    __field1 = _serde::__private229::Some(
                                        _serde::de::MapAccess::next_value::<
                                            Option<i64>,
                                        >(&mut __map)?,
                                    );
                                }
                            }
                        }
                        let __field0 = match __field0 {
                            _serde::__private229::Some(__field0) => __field0,
                            _serde::__private229::None => {
                                _serde::__private229::de::missing_field("a")?
                            }
                        };
                        let __field1 = match __field1 {
                            _serde::__private229::Some(__field1) => __field1,
                            _serde::__private229::None => {
                                _serde::__private229::Default::default()
                            }
                        };
                        _serde::__private229::Ok(__McpArgs {
                            a: __field0,
                            b: __field1,
                        })
                    }
                }
                #[doc(hidden)]
                const FIELDS: &'static [&'static str] = &["a", "b"];
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
                            "a",
                            generator.contract().is_deserialize()
                                && <i64 as schemars::JsonSchema>::_schemars_private_is_option(),
                            {
                                let mut schema = generator.subschema_for::<i64>();
                                schemars::_private::insert_metadata_property_if_nonempty(
                                    &mut schema,
                                    "title",
                                    {
                                        const TITLE: &str = schemars::_private::get_title_and_description(
                                                "The first addend.",
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
                                                "The first addend.",
                                            )
                                            .1;
                                        DESCRIPTION
                                    },
                                );
                                schema
                            },
                        );
                    }
                    {
                        schemars::_private::insert_object_property(
                            &mut schema,
                            "b",
                            if generator.contract().is_deserialize() {
                                true
                                    || (!false
                                        && <Option<
                                            i64,
                                        > as schemars::JsonSchema>::_schemars_private_is_option())
                            } else {
                                false
                            },
                            {
                                let mut schema = generator.subschema_for::<Option<i64>>();
                                schemars::_private::insert_metadata_property_if_nonempty(
                                    &mut schema,
                                    "title",
                                    {
                                        const TITLE: &str = schemars::_private::get_title_and_description(
                                                "The second addend.",
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
                                                "The second addend.",
                                            )
                                            .1;
                                        DESCRIPTION
                                    },
                                );
                                Some(<Option<i64>>::default())
                                    .and_then(|d| {
                                        #[allow(unused_imports)]
                                        use ::schemars::_private::{
                                            MaybeSerializeWrapper, NoSerialize as _,
                                        };
                                        MaybeSerializeWrapper(d).maybe_to_value()
                                    })
                                    .map(|d| schema.insert("default".into(), d));
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
    impl __mcp::ToolDef for add {
        const INFO: __mcp::ToolInfo = __mcp::ToolInfo {
            annotations: ::core::option::Option::Some(__mcp::Hints {
                read_only_hint: ::core::option::Option::Some(true),
                ..__mcp::Hints::NONE
            }),
            input: __mcp::InputSpec::Params(
                ::mcp_runtime::schemars::SchemaGenerator::root_schema_for::<__McpArgs>,
            ),
            blocking: true,
            ..__mcp::ToolInfo::new("add", "Adds two integers.", "macrotest003")
        };
        type Ctx = ::mcp_runtime::Ctx;
        type Ret = __mcp::Finished;
        fn run(
            _: &Self::Ctx,
            __mcp_args: __mcp::Args,
        ) -> __mcp::Started<
            impl ::core::future::Future<Output = Self::Ret> + ::core::marker::Send + '_,
        > {
            (&&__mcp::ArgOf::<i64>::new()).check();
            (&&__mcp::ArgOf::<Option<i64>>::new()).check();
            let __McpArgs { a, b } = (&&__mcp::ArgsOf::<__McpArgs>::new())
                .parse(__mcp_args)?;
            let __mcp_out = add::handler(a, b);
            ::core::result::Result::Ok(
                ::core::future::ready((&&__mcp::Kind::<String>::new()).finish(__mcp_out)),
            )
        }
        fn finish(__mcp_out: Self::Ret) -> __mcp::Finished {
            __mcp_out
        }
        fn output_schema(
            g: &mut __mcp::SchemaGenerator,
        ) -> ::core::option::Option<__mcp::Schema> {
            (&&__mcp::Kind::<String>::new()).output_schema(g)
        }
    }
};
fn main() {}
