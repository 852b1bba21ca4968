//! [`LocalFiles`]: what `insert_file` of the stdio server may read. An agent can be
//! prompt-injected into asking for anything (`/proc/self/environ` holds the API keys, `/dev/zero`
//! never ends), so a path is read only when
//!
//! * its real path (symbolic links resolved) is under the root folder (`MCP_FILES_ROOT`, by
//!   default the current directory);
//! * it is not under `/proc`, `/sys` or `/dev`, whatever the root;
//! * it is a regular file (no device, pipe, socket or folder);
//! * it is at most `MAX_UPLOAD_SIZE` bytes (the limit of an upload to the server).
//!
//! Errors name the path relative to the root (or as the client wrote it), never a resolved
//! server path.

use std::path::{Component, Path, PathBuf};

use tokio::io::AsyncReadExt;

/// Folders never read, whatever the root: the kernel's views of processes, devices and settings.
const SYSTEM_FOLDERS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// Why the root folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FilesRootError {
    /// It does not exist or cannot be resolved.
    #[error("MCP_FILES_ROOT {path}: {source}; set it to an existing folder")]
    Unreadable {
        /// The folder as configured.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not a folder, or a system folder.
    #[error("MCP_FILES_ROOT {0} is not a folder the file tools may read; set it to a folder of documents")]
    Refused(PathBuf),
}

/// Why a file was not read; the message says what to do next.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FileRefusal(pub String);

/// A file read for `insert_file`.
#[derive(Debug)]
pub struct LocalFile {
    /// Its path relative to the root (`/`-separated), the name it is stored under.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// The files the stdio server's tools may read.
#[derive(Debug, Clone)]
pub struct LocalFiles {
    /// The root, resolved.
    root: PathBuf,
    /// `MAX_UPLOAD_SIZE`; `None` = no limit.
    max_bytes: Option<u64>,
}

fn is_system(path: &Path) -> bool {
    SYSTEM_FOLDERS.iter().any(|folder| path.starts_with(folder))
}

impl LocalFiles {
    /// Files under `root` (resolved now), of at most `max_bytes` bytes each.
    pub fn new(root: &Path, max_bytes: Option<u64>) -> Result<Self, FilesRootError> {
        let resolved = std::fs::canonicalize(root)
            .map_err(|source| FilesRootError::Unreadable { path: root.to_path_buf(), source })?;
        if !resolved.is_dir() || is_system(&resolved) {
            return Err(FilesRootError::Refused(root.to_path_buf()));
        }
        Ok(LocalFiles { root: resolved, max_bytes })
    }

    /// The root folder, resolved.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// How `requested` is named in messages: relative to the root when it lies there, else as
    /// the client wrote it.
    fn shown(&self, requested: &Path) -> String {
        let relative = requested.strip_prefix(&self.root).unwrap_or(requested);
        relative.display().to_string()
    }

    /// Reads the file at `requested` (relative to the root, or absolute) under the rules of the
    /// module.
    pub async fn read(&self, requested: &str) -> Result<LocalFile, FileRefusal> {
        let requested = Path::new(requested);
        let shown = self.shown(requested);
        let outside = || {
            FileRefusal(format!(
                "'{shown}' is outside the folder the file tools may read (MCP_FILES_ROOT); give a path under it, \
                 relative to it"
            ))
        };
        // refused before anything is looked up, so nothing is learnt about files outside
        let joined = lexically_normal(&self.root.join(requested));
        if !joined.starts_with(&self.root) || is_system(&joined) {
            return Err(outside());
        }
        // then again with the links resolved
        let real = tokio::fs::canonicalize(&joined).await.map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => FileRefusal(format!(
                "cannot read '{shown}': no such file; give the path of a file under MCP_FILES_ROOT"
            )),
            _ => FileRefusal(format!("cannot read '{shown}': {}", io_reason(&e))),
        })?;
        let Ok(relative) = real.strip_prefix(&self.root) else {
            return Err(outside());
        };
        if is_system(&real) {
            return Err(outside());
        }
        let name = relative
            .components()
            .filter_map(|c| match c {
                Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("/");
        let shown = if name.is_empty() { ".".to_string() } else { name.clone() };
        let metadata = tokio::fs::metadata(&real)
            .await
            .map_err(|e| FileRefusal(format!("cannot read '{shown}': {}", io_reason(&e))))?;
        if !metadata.is_file() {
            return Err(FileRefusal(format!(
                "'{shown}' is not a regular file (a folder, device, pipe or socket); give the path of a document"
            )));
        }
        self.check_size(&shown, metadata.len())?;
        let file = tokio::fs::File::open(&real)
            .await
            .map_err(|e| FileRefusal(format!("cannot read '{shown}': {}", io_reason(&e))))?;
        // the file may grow after the check: read one byte past the limit at most
        let mut bytes = Vec::new();
        let mut reader = file.take(self.max_bytes.map_or(u64::MAX, |max| max.saturating_add(1)));
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| FileRefusal(format!("cannot read '{shown}': {}", io_reason(&e))))?;
        self.check_size(&shown, bytes.len() as u64)?;
        Ok(LocalFile { name, bytes })
    }

    fn check_size(&self, shown: &str, size: u64) -> Result<(), FileRefusal> {
        match self.max_bytes {
            Some(max) if size > max => Err(FileRefusal(lightrag_application::read::too_large(shown, max).to_string())),
            _ => Ok(()),
        }
    }
}

/// `path` with `.` and `..` resolved as text (a `..` at the top stays at the top).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// An I/O error without the path the operating system may add.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::NotFound => "no such file".into(),
        kind => kind.to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn names_are_relative_to_the_root_and_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("docs/a.txt"), "alpha").unwrap();
        let files = LocalFiles::new(&dir.path().join("docs"), Some(100)).unwrap();
        let read = files.read("a.txt").await.unwrap();
        assert_eq!((read.name.as_str(), read.bytes.as_slice()), ("a.txt", b"alpha".as_slice()));
        let absolute = files.root().join("a.txt");
        assert_eq!(files.read(absolute.to_str().unwrap()).await.unwrap().name, "a.txt");
        std::fs::write(dir.path().join("secret.txt"), "key").unwrap();
        let refused = files.read("../secret.txt").await.unwrap_err().0;
        assert!(refused.contains("outside") && !refused.contains(dir.path().to_str().unwrap()), "{refused}");
        let missing = files.read("nope.txt").await.unwrap_err().0;
        assert!(missing.contains("'nope.txt'") && !missing.contains(dir.path().to_str().unwrap()), "{missing}");
        let folder = files.read(".").await.unwrap_err().0;
        assert!(folder.contains("not a regular file"), "{folder}");
    }
}
