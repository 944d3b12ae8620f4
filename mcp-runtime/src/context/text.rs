//! Values that arrive as text: a resource template's variables and a prompt's arguments.
//! A parameter of a `#[resource]` or `#[prompt]` fn takes any [`TextValue`] type.

/// A parameter type of a `#[resource]` or `#[prompt]` fn: read from the text of a URI
/// template variable or a prompt argument. Implemented for `String`, the integer and float
/// types, `bool` and `char`, and `Option<T>` of those (a prompt argument that may be left
/// out). Implement it for a type of your own to take it as a parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from text, as a URI template variable or a prompt argument is",
    label = "take `String`, a number, `bool` or `char` (or `Option<_>` of one for an optional prompt argument)",
    note = "or implement `mcp_runtime::TextValue` for `{Self}`"
)]
pub trait TextValue: Sized {
    /// `false` for a value that may be absent (`Option<T>`): its prompt argument is not
    /// required.
    const REQUIRED: bool = true;

    /// Reads the value, or says what was expected (`a whole number from 0 to 255`); `text`
    /// is `None` when the argument was not sent.
    fn from_text(text: Option<&str>) -> Result<Self, String>;
}

impl TextValue for String {
    fn from_text(text: Option<&str>) -> Result<Self, String> {
        text.map(str::to_owned).ok_or_else(|| "a value".to_owned())
    }
}

impl TextValue for char {
    fn from_text(text: Option<&str>) -> Result<Self, String> {
        let mut chars = text.unwrap_or_default().chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Ok(c),
            _ => Err("one character".to_owned()),
        }
    }
}

impl TextValue for bool {
    fn from_text(text: Option<&str>) -> Result<Self, String> {
        match text {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            _ => Err("`true` or `false`".to_owned()),
        }
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl TextValue for $t {
            fn from_text(text: Option<&str>) -> Result<Self, String> {
                text.and_then(|t| t.parse().ok())
                    .ok_or_else(|| format!("a whole number from {} to {}", <$t>::MIN, <$t>::MAX))
            }
        }
    )*};
}
integers!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

macro_rules! floats {
    ($($t:ty),*) => {$(
        impl TextValue for $t {
            fn from_text(text: Option<&str>) -> Result<Self, String> {
                text.and_then(|t| t.parse::<$t>().ok())
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| "a number, such as 2.5".to_owned())
            }
        }
    )*};
}
floats!(f32, f64);

impl<T: TextValue> TextValue for Option<T> {
    const REQUIRED: bool = false;

    fn from_text(text: Option<&str>) -> Result<Self, String> {
        text.map(|t| T::from_text(Some(t))).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_becomes_typed_values() {
        assert_eq!(u32::from_text(Some("123")), Ok(123));
        assert_eq!(u8::from_text(Some("256")), Err("a whole number from 0 to 255".to_owned()));
        assert_eq!(i64::from_text(Some("-4")), Ok(-4));
        assert!(f64::from_text(Some("NaN")).is_err());
        assert_eq!(bool::from_text(Some("true")), Ok(true));
        assert_eq!(char::from_text(Some("ab")), Err("one character".to_owned()));
        assert_eq!(Option::<u32>::from_text(None), Ok(None));
        assert_eq!(Option::<u32>::from_text(Some("7")), Ok(Some(7)));
        assert!(Option::<u32>::from_text(Some("x")).is_err());
        assert!(String::from_text(None).is_err());
        const { assert!(!Option::<String>::REQUIRED && String::REQUIRED) };
    }
}
