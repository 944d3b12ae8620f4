//! Entry points for the fuzz targets (`fuzz/`) and their smoke runs: the parsers a client can
//! reach that have no public door of their own. Not public API: it may change in any release.

use std::time::Duration;

use crate::features::uri_template::UriTemplate;
use crate::state::seal::Sealer;

/// A sealer with one key (the key's length is not checked here).
pub struct StateSealer(Sealer);

impl StateSealer {
    /// A sealer whose only key is `key`.
    pub fn new(key: &[u8]) -> Self {
        StateSealer(Sealer::new(vec![key.to_vec()], Duration::from_secs(900)))
    }

    /// `state` sealed for `binding`; `None` when it is too large to come back.
    pub fn seal(&self, state: &str, binding: &str) -> Option<String> {
        self.0.seal(state, binding)
    }

    /// The state `token` carries, or why it does not open.
    pub fn open(&self, token: &str, binding: &str) -> Result<String, String> {
        self.0.open(token, binding).map_err(|why| why.to_string())
    }
}

/// The variables' values when `uri` matches `template`: `Err` for a template that does not
/// parse, `Ok(None)` for a URI that does not match.
pub fn match_uri_template(template: &str, uri: &str) -> Result<Option<Vec<String>>, String> {
    Ok(UriTemplate::parse(template)?.matches(uri))
}
