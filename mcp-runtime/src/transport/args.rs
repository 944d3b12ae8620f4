//! The flags every server binary of this repository takes: `--http <addr>` and
//! `--stateless`. For your own binaries too, if they suit you.

use std::ffi::OsString;

use crate::server::{Error, Server, ServerBuilder};

/// How to serve, read from command-line flags: `--http <addr>` serves Streamable HTTP at
/// `http://<addr>/mcp` (without it: stdio), `--stateless` serves HTTP without sessions.
/// Other arguments are kept, in order, for the program.
///
/// ```no_run
/// # use mcp_runtime::{ServeArgs, Server};
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let args = ServeArgs::parse(std::env::args_os().skip(1))?;
/// let server = args.configure(Server::builder("notes", "1.0.0")).build()?;
/// args.serve(server).await?;
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct ServeArgs {
    /// `--http <addr>`.
    pub http: Option<String>,
    /// `--stateless`.
    pub stateless: bool,
    /// Everything else, in order.
    pub rest: Vec<OsString>,
}

impl ServeArgs {
    /// Reads the flags out of `args` (without the program name). An error says what is
    /// wrong and how to write it.
    pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Self, String> {
        let mut parsed = ServeArgs::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            match arg.to_str() {
                Some("--http") => {
                    let addr = args.next().ok_or("--http needs an address: --http 127.0.0.1:8080")?;
                    let addr = addr.into_string().map_err(|_| "--http: the address is not valid UTF-8")?;
                    parsed.http = Some(addr);
                }
                Some(flag) if flag.starts_with("--http=") => parsed.http = Some(flag["--http=".len()..].to_owned()),
                Some("--stateless") => parsed.stateless = true,
                _ => parsed.rest.push(arg),
            }
        }
        if parsed.stateless && parsed.http.is_none() {
            return Err("--stateless applies to HTTP: add --http <addr>".into());
        }
        if cfg!(not(feature = "http")) && parsed.http.is_some() {
            return Err(
                "--http: this server was built without HTTP; enable the `http` feature of mcp-runtime (features = [\"http\"])"
                    .into(),
            );
        }
        Ok(parsed)
    }

    /// Applies the flags that are server settings (`--stateless`).
    pub fn configure(&self, builder: ServerBuilder) -> ServerBuilder {
        #[cfg(feature = "http")]
        return builder.stateless_http(self.stateless);
        #[cfg(not(feature = "http"))]
        builder
    }

    /// Serves as the flags say: HTTP at `/mcp` on the address, or stdio.
    pub async fn serve(&self, server: Server) -> Result<(), Error> {
        match &self.http {
            #[cfg(feature = "http")]
            Some(addr) => server.serve_http(addr.as_str()).await,
            _ => server.serve_stdio().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ServeArgs, String> {
        ServeArgs::parse(args.iter().map(OsString::from))
    }

    #[test]
    #[cfg(feature = "http")]
    fn flags_are_read_and_the_rest_kept() {
        let a = parse(&["notes", "--http", "127.0.0.1:0", "--stateless"]).expect("parses");
        assert_eq!(a.http.as_deref(), Some("127.0.0.1:0"));
        assert!(a.stateless);
        assert_eq!(a.rest, [OsString::from("notes")]);
        assert_eq!(parse(&["--http=[::1]:9"]).expect("parses").http.as_deref(), Some("[::1]:9"));
        assert!(parse(&["--http"]).unwrap_err().contains("needs an address"));
        assert!(parse(&["--stateless"]).unwrap_err().contains("add --http"));
    }

    #[test]
    #[cfg(not(feature = "http"))]
    fn without_http_the_flag_says_which_feature_to_enable() {
        let a = parse(&["notes"]).expect("parses");
        assert_eq!(a.rest, [OsString::from("notes")]);
        let err = parse(&["--http", "127.0.0.1:0"]).unwrap_err();
        assert!(err.contains("enable the `http` feature of mcp-runtime"), "{err}");
        assert!(parse(&["--http"]).unwrap_err().contains("needs an address"));
    }
}
