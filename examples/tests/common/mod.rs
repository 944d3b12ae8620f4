//! What the notes example's tests share.

/// A fresh notes directory, removed on drop.
pub(crate) struct TempDir(pub(crate) std::path::PathBuf);

impl TempDir {
    /// `<tmp>/mcp-notes-<tag>-<pid>`, empty.
    pub(crate) fn new(tag: &str) -> Self {
        let path = std::env::temp_dir().join(format!("mcp-notes-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create the notes directory");
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
