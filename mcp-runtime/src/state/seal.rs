//! Sealed `requestState`: what a handler writes as its state goes out signed, and comes back
//! verified before the handler sees it again.
//!
//! A token is `v1.<body>.<mac>`: `body` is base64url (no padding) of the JSON
//! `{"p": state, "exp": seconds since the epoch, "b": bind tag}`, `mac` the base64url
//! HMAC-SHA256 of `v1.<body>` under the first key of the ring. The bind tag is the first 16
//! bytes of HMAC-SHA256(key, `mcp.requestState.bind:` + binding), where the binding names the
//! caller (client id, subject, tenant) and the operation (method and tool, prompt or resource):
//! a state minted for one caller or one operation does not open for another. Signed, not
//! encrypted: a client can read what a handler puts in its state.
//!
//! Every key of the ring verifies; the first one seals, so rotation is "put the new key first,
//! keep the old one until the states it sealed have expired".

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The shortest key accepted, in bytes.
pub(crate) const MIN_KEY_BYTES: usize = 32;
/// How long a sealed state opens, by default.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(900);
/// The largest token read back; a longer one is refused unread.
pub(crate) const MAX_TOKEN_BYTES: usize = 16 * 1024;

const VERSION: &str = "v1";
const BIND_LABEL: &[u8] = b"mcp.requestState.bind:";
const BIND_TAG_BYTES: usize = 16;

/// One key of the ring. Its `Debug` never shows the bytes.
struct Key(Box<[u8]>);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key({} bytes)", self.0.len())
    }
}

impl Key {
    fn mac(&self) -> HmacSha256 {
        // HMAC takes a key of any length: this cannot fail.
        <HmacSha256 as Mac>::new_from_slice(&self.0).unwrap_or_else(|_| unreachable!("HMAC accepts every key length"))
    }

    fn bind_mac(&self, binding: &str) -> HmacSha256 {
        let mut mac = self.mac();
        mac.update(BIND_LABEL);
        mac.update(binding.as_bytes());
        mac
    }
}

/// Why a token did not open. Logged at debug, never sent: every one of them is the same
/// `-32602` on the wire, so a client learns nothing about which check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Invalid {
    TooLarge,
    Malformed,
    Mac,
    Expired,
    Bind,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Invalid::TooLarge => "longer than the 16 KiB a sealed state may be",
            Invalid::Malformed => "not a sealed state (`v1.<body>.<mac>`)",
            Invalid::Mac => "its signature matches no key of this server",
            Invalid::Expired => "it expired",
            Invalid::Bind => "it was sealed for another caller or another operation",
        })
    }
}

#[derive(Serialize, Deserialize)]
struct Body<'a> {
    #[serde(borrow)]
    p: std::borrow::Cow<'a, str>,
    exp: u64,
    b: std::borrow::Cow<'a, str>,
}

/// The key ring and lifetime of sealed states.
#[derive(Debug)]
pub(crate) struct Sealer {
    keys: Vec<Key>,
    ttl: Duration,
    /// A per-process random key: nothing was configured.
    #[cfg(feature = "http")]
    ephemeral: bool,
    /// Whether the warning about that was logged.
    #[cfg(feature = "http")]
    warned: std::sync::atomic::AtomicBool,
}

impl Sealer {
    /// A sealer over `keys` (the first seals, all verify), each already checked to be long
    /// enough (see [`check_key`]).
    pub(crate) fn new(keys: Vec<Vec<u8>>, ttl: Duration) -> Sealer {
        Sealer {
            keys: keys.into_iter().map(|k| Key(k.into_boxed_slice())).collect(),
            ttl,
            #[cfg(feature = "http")]
            ephemeral: false,
            #[cfg(feature = "http")]
            warned: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// A sealer over a random key of this process: states die with it, and other replicas
    /// cannot open them.
    pub(crate) fn ephemeral(ttl: Duration) -> Sealer {
        let mut key = vec![0u8; 32];
        getrandom::fill(&mut key).expect("the OS random source failed");
        #[cfg_attr(not(feature = "http"), expect(unused_mut))]
        let mut sealer = Sealer::new(vec![key], ttl);
        #[cfg(feature = "http")]
        {
            sealer.ephemeral = true;
        }
        sealer
    }

    /// Over HTTP, a server may run as several replicas, and a state sealed with a key of one
    /// process does not open on another: says so once, when it serves HTTP without a key.
    #[cfg(feature = "http")]
    pub(crate) fn warn_once_if_ephemeral(&self) {
        if self.ephemeral && !self.warned.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::warn!(
                "no requestState key is configured (ServerBuilder::request_state_key): this process seals with a random \
                 key, so states die with it and other replicas refuse them; give every replica the same key"
            );
        }
    }

    /// `state` sealed for `binding`; `None` when the token would be longer than
    /// [`MAX_TOKEN_BYTES`], which the retry could never bring back.
    pub(crate) fn seal(&self, state: &str, binding: &str) -> Option<String> {
        Some(self.seal_at(state, binding, now_secs())).filter(|token| token.len() <= MAX_TOKEN_BYTES)
    }

    pub(crate) fn seal_at(&self, state: &str, binding: &str, now: u64) -> String {
        let key = &self.keys[0];
        let bind = URL_SAFE_NO_PAD.encode(&key.bind_mac(binding).finalize().into_bytes()[..BIND_TAG_BYTES]);
        let body = Body { p: state.into(), exp: now.saturating_add(self.ttl.as_secs()), b: bind.into() };
        // A struct of two strings and a number always serializes.
        let json = serde_json::to_vec(&body).unwrap_or_default();
        let mut token = format!("{VERSION}.{}", URL_SAFE_NO_PAD.encode(json));
        let mut mac = key.mac();
        mac.update(token.as_bytes());
        let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
        token.push('.');
        token.push_str(&tag);
        token
    }

    pub(crate) fn open(&self, token: &str, binding: &str) -> Result<String, Invalid> {
        self.open_at(token, binding, now_secs())
    }

    pub(crate) fn open_at(&self, token: &str, binding: &str, now: u64) -> Result<String, Invalid> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(Invalid::TooLarge);
        }
        let (signed, tag) = token.rsplit_once('.').ok_or(Invalid::Malformed)?;
        let (version, body) = signed.split_once('.').ok_or(Invalid::Malformed)?;
        if version != VERSION {
            return Err(Invalid::Malformed);
        }
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| Invalid::Malformed)?;
        let key = self
            .keys
            .iter()
            .find(|key| {
                let mut mac = key.mac();
                mac.update(signed.as_bytes());
                mac.verify_slice(&tag).is_ok()
            })
            .ok_or(Invalid::Mac)?;
        let json = URL_SAFE_NO_PAD.decode(body).map_err(|_| Invalid::Malformed)?;
        let body: Body<'_> = serde_json::from_slice(&json).map_err(|_| Invalid::Malformed)?;
        if body.exp < now {
            return Err(Invalid::Expired);
        }
        let bind = URL_SAFE_NO_PAD.decode(body.b.as_bytes()).map_err(|_| Invalid::Malformed)?;
        if bind.len() != BIND_TAG_BYTES {
            return Err(Invalid::Bind);
        }
        key.bind_mac(binding).verify_truncated_left(&bind).map_err(|_| Invalid::Bind)?;
        Ok(body.p.into_owned())
    }
}

/// Refuses a key shorter than [`MIN_KEY_BYTES`], naming the setting it came from and never
/// the key.
pub(crate) fn check_key(setting: &str, key: &[u8]) -> Result<(), String> {
    if key.len() < MIN_KEY_BYTES {
        return Err(format!(
            "{setting} must be at least {MIN_KEY_BYTES} bytes, and this one has {}: use a random key \
             (`openssl rand -base64 48` makes one) and give every replica the same",
            key.len()
        ));
    }
    Ok(())
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";
    const OTHER: &[u8] = b"fedcba9876543210fedcba9876543210";
    /// Client a, subject alice, tenant t1, calling tool `delete_item`.
    const ALICE: &str = r#"["client-a","alice","t1","tools/call","delete_item"]"#;

    fn sealer(key: &[u8]) -> Sealer {
        Sealer::new(vec![key.to_vec()], DEFAULT_TTL)
    }

    #[test]
    fn keys_shorter_than_32_bytes_are_refused_by_the_setting_name() {
        assert!(check_key("S", &[b'k'; 31]).is_err());
        assert!(check_key("S", b"").is_err());
        assert!(check_key("S", "€".repeat(10).as_bytes()).is_err(), "10 × € is 30 bytes");
        assert!(check_key("S", "€".repeat(11).as_bytes()).is_ok(), "11 × € is 33 bytes");
        let secret = "s3cr3t-s3cr3t-s3cr3t";
        let message = check_key("MCP_REQUEST_STATE_KEY", secret.as_bytes()).unwrap_err();
        assert!(message.starts_with("MCP_REQUEST_STATE_KEY must be at least 32 bytes"), "{message}");
        assert!(!message.contains(secret), "the key is never shown: {message}");
        assert!(!format!("{:?}", sealer(KEY)).contains("0123"), "Debug hides the key");
    }

    /// Found by the `request_state` fuzz target: a state of about 12 KiB was sealed into a
    /// token over the 16 KiB the opener accepts, so its retry could only fail.
    #[test]
    fn a_state_too_large_to_come_back_is_not_sealed() {
        let sealer = sealer(KEY);
        let fits = "s".repeat(8 * 1024);
        assert_eq!(sealer.open(&sealer.seal(&fits, ALICE).expect("8 KiB fits"), ALICE), Ok(fits));
        assert_eq!(sealer.seal(&"s".repeat(12 * 1024), ALICE), None);
        // Escaping counts: 2,200 NULs are 2,200 bytes, and 13,200 of JSON.
        assert_eq!(sealer.seal(&"\u{0}".repeat(2200), ALICE), None);
    }

    #[test]
    fn a_sealed_state_opens_for_the_same_caller_and_operation() {
        let sealer = sealer(KEY);
        let token = sealer.seal("consent/abc", ALICE).expect("small");
        assert!(token.starts_with("v1."), "{token}");
        assert_eq!(sealer.open(&token, ALICE), Ok("consent/abc".to_owned()));
        // Any text survives, including what JSON must escape.
        let odd = "line\n\"quoted\" ✓ \u{0}";
        assert_eq!(sealer.open(&sealer.seal(odd, ALICE).expect("small"), ALICE).as_deref(), Ok(odd));
    }

    #[test]
    fn forged_and_tampered_states_are_refused() {
        let sealer = sealer(KEY);
        assert_eq!(sealer.open("consent/abc", ALICE), Err(Invalid::Malformed), "a hand-built state");
        assert_eq!(sealer.open("v1.e30.AAAA", ALICE), Err(Invalid::Mac), "a forged v1 envelope");
        assert_eq!(sealer.open("v2.e30.AAAA", ALICE), Err(Invalid::Malformed));
        assert_eq!(sealer.open("", ALICE), Err(Invalid::Malformed));

        let token = sealer.seal("consent/abc", ALICE).expect("small");
        let (signed, tag) = token.rsplit_once('.').unwrap();
        let (_, body) = signed.split_once('.').unwrap();
        // Another payload under the old signature.
        let json = String::from_utf8(URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap();
        let changed = URL_SAFE_NO_PAD.encode(json.replace("consent/abc", "consent/abd"));
        assert_eq!(sealer.open(&format!("v1.{changed}.{tag}"), ALICE), Err(Invalid::Mac));
        // One character of the signature changed (inside it: the last one also carries
        // padding bits, and a change there may be refused as malformed instead).
        let mut bytes = token.clone().into_bytes();
        let inside = bytes.len() - 10;
        bytes[inside] = if bytes[inside] == b'A' { b'B' } else { b'A' };
        assert_eq!(sealer.open(&String::from_utf8(bytes).unwrap(), ALICE), Err(Invalid::Mac));
        // Any change of the last character is refused too, one way or the other.
        for c in ['A', 'B', 'Q', 'g', 'w', '-', '_'] {
            let mut changed = token.clone();
            if changed.pop() != Some(c) {
                changed.push(c);
                assert!(sealer.open(&changed, ALICE).is_err(), "{changed}");
            }
        }
        // Too long to read.
        let huge = format!("v1.{}.x", "A".repeat(MAX_TOKEN_BYTES));
        assert_eq!(sealer.open(&huge, ALICE), Err(Invalid::TooLarge));
    }

    #[test]
    fn another_key_does_not_open_it_and_a_shared_key_does() {
        let token = sealer(KEY).seal("s", ALICE).expect("small");
        assert_eq!(sealer(OTHER).open(&token, ALICE), Err(Invalid::Mac));
        // Two sealers (two replicas) with one key open each other's states.
        assert_eq!(sealer(KEY).open(&token, ALICE).as_deref(), Ok("s"));
        assert_eq!(sealer(KEY).open(&sealer(KEY).seal("t", ALICE).expect("small"), ALICE).as_deref(), Ok("t"));
    }

    #[test]
    fn a_ring_opens_what_its_old_keys_sealed_and_seals_with_the_first() {
        let old = sealer(OTHER).seal("old", ALICE).expect("small");
        let ring = Sealer::new(vec![KEY.to_vec(), OTHER.to_vec()], DEFAULT_TTL);
        assert_eq!(ring.open(&old, ALICE).as_deref(), Ok("old"));
        let new = ring.seal("new", ALICE).expect("small");
        assert_eq!(sealer(KEY).open(&new, ALICE).as_deref(), Ok("new"));
        assert_eq!(sealer(OTHER).open(&new, ALICE), Err(Invalid::Mac));
    }

    #[test]
    fn a_state_is_bound_to_its_caller_and_its_operation() {
        let sealer = sealer(KEY);
        let token = sealer.seal("s", ALICE).expect("small");
        for other in [
            r#"["client-b","alice","t1","tools/call","delete_item"]"#,
            r#"["client-a","bob","t1","tools/call","delete_item"]"#,
            r#"["client-a","alice","t2","tools/call","delete_item"]"#,
            r#"["","","","tools/call","delete_item"]"#,
            r#"["client-a","alice","t1","tools/call","put_item"]"#,
            r#"["client-a","alice","t1","prompts/get","delete_item"]"#,
        ] {
            assert_eq!(sealer.open(&token, other), Err(Invalid::Bind), "{other}");
        }
    }

    #[test]
    fn a_state_opens_until_its_ttl_has_passed() {
        let sealer = sealer(KEY);
        let noon = 1_767_268_800; // 2026-01-01T12:00:00Z
        let token = sealer.seal_at("s", ALICE, noon);
        assert_eq!(sealer.open_at(&token, ALICE, noon + 900).as_deref(), Ok("s"), "12:15:00");
        assert_eq!(sealer.open_at(&token, ALICE, noon + 901), Err(Invalid::Expired), "12:15:01");
        assert_eq!(sealer.open_at(&token, ALICE, noon + 902), Err(Invalid::Expired), "12:15:02");
    }

    #[test]
    fn ephemeral_sealers_disagree() {
        let a = Sealer::ephemeral(DEFAULT_TTL);
        let b = Sealer::ephemeral(DEFAULT_TTL);
        #[cfg(feature = "http")]
        assert!(a.ephemeral && !sealer(KEY).ephemeral);
        assert_eq!(b.open(&a.seal("s", ALICE).expect("small"), ALICE), Err(Invalid::Mac));
    }
}
