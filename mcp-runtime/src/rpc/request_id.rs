//! Request ids: `XXXXX-XXXXX` from `A-Z0-9`, drawn from the OS's cryptographic source
//! (docs/errors.md#the-envelopes-rules). Random bytes are fetched 4 KiB at a time, so a call costs no syscall.

use std::fmt;
use std::sync::Mutex;

const ALPHABET: &[u8; 36] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// A request id such as `UTFAC-QE0MB`. Unique per request; never the client's JSON-RPC id.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RequestId([u8; 11]);

impl RequestId {
    /// A fresh id.
    pub fn generate() -> Self {
        let mut out = [b'-'; 11];
        let mut filled = 0;
        let mut pool = POOL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while filled < 10 {
            let byte = pool.next();
            // 252 = 7 × 36: rejecting the rest keeps every character equally likely.
            if byte < 252 {
                let at = if filled < 5 { filled } else { filled + 1 };
                out[at] = ALPHABET[usize::from(byte % 36)];
                filled += 1;
            }
        }
        RequestId(out)
    }

    /// `n` characters of `A-Z2-7` from the same source: a session id.
    #[cfg(feature = "http")]
    pub(crate) fn token(n: usize) -> String {
        const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        let mut pool = POOL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // 256 = 8 × 32: every character equally likely.
        (0..n).map(|_| char::from(BASE32[usize::from(pool.next() % 32)])).collect()
    }

    /// An id [`RequestId::generate`] made, read back from its text (a task's record keeps
    /// the id of the call that created it); `None` for any other text.
    pub(crate) fn parse(text: &str) -> Option<RequestId> {
        let bytes: [u8; 11] = text.as_bytes().try_into().ok()?;
        let valid = bytes.iter().enumerate().all(|(i, b)| if i == 5 { *b == b'-' } else { ALPHABET.contains(b) });
        valid.then_some(RequestId(bytes))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        // Only ASCII bytes are ever written.
        std::str::from_utf8(&self.0).unwrap_or("?????-?????")
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

struct Pool {
    bytes: [u8; 4096],
    at: usize,
}

impl Pool {
    fn next(&mut self) -> u8 {
        if self.at == self.bytes.len() {
            // The OS source does not fail on any platform this runs on; if it ever did,
            // serving requests with predictable ids would be worse than stopping.
            getrandom::fill(&mut self.bytes).expect("the OS random source failed");
            self.at = 0;
        }
        self.at += 1;
        self.bytes[self.at - 1]
    }
}

static POOL: Mutex<Pool> = Mutex::new(Pool { bytes: [0; 4096], at: 4096 });

#[cfg(test)]
mod tests {
    use super::RequestId;

    #[test]
    fn ids_have_the_documented_shape_and_differ() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..5000 {
            let id = RequestId::generate();
            let s = id.as_str();
            assert_eq!(s.len(), 11);
            assert_eq!(&s[5..6], "-");
            assert!(s.chars().enumerate().all(|(i, c)| i == 5 || c.is_ascii_uppercase() || c.is_ascii_digit()), "{s}");
            assert!(seen.insert(id), "duplicate {s}");
            assert_eq!(RequestId::parse(s), Some(id));
        }
        for bad in ["", "ABCDE-FGHI", "ABCDEXFGHIJ", "abcde-fghij", "ABCDE-FGHIJK"] {
            assert_eq!(RequestId::parse(bad), None, "{bad}");
        }
    }
}
