//! Where the model lives by default. The crate reads no environment itself: the caller passes
//! the values in, so the same rule is testable and shared with `scripts/install-model.sh`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::MODEL_NAME;

/// The model folder: `LIGHTRAG_MODEL_DIR` when set and non-empty, else
/// `$XDG_CACHE_HOME/lightrag-rs/models/all-MiniLM-L6-v2` (with `XDG_CACHE_HOME` defaulting to
/// `$HOME/.cache`), the same rule as `scripts/install-model.sh`.
///
/// Pass the raw values of `LIGHTRAG_MODEL_DIR`, `XDG_CACHE_HOME` and `HOME`. `None` only when
/// neither a model dir, a cache dir nor a home dir is known.
pub fn default_model_dir(
    lightrag_model_dir: Option<&OsStr>,
    xdg_cache_home: Option<&OsStr>,
    home: Option<&Path>,
) -> Option<PathBuf> {
    if let Some(dir) = lightrag_model_dir.filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let cache = match xdg_cache_home.filter(|d| !d.is_empty()) {
        Some(c) => PathBuf::from(c),
        None => home.filter(|h| !h.as_os_str().is_empty())?.join(".cache"),
    };
    Some(cache.join("lightrag-rs").join("models").join(MODEL_NAME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_model_dir_wins() {
        let d = default_model_dir(
            Some(OsStr::new("/models/minilm")),
            Some(OsStr::new("/cache")),
            Some(Path::new("/home/u")),
        );
        assert_eq!(d, Some(PathBuf::from("/models/minilm")));
    }

    #[test]
    fn xdg_cache_then_home() {
        let d = default_model_dir(Some(OsStr::new("")), Some(OsStr::new("/cache")), Some(Path::new("/h")));
        assert_eq!(d, Some(PathBuf::from("/cache/lightrag-rs/models/all-MiniLM-L6-v2")));
        let d = default_model_dir(None, Some(OsStr::new("")), Some(Path::new("/h")));
        assert_eq!(d, Some(PathBuf::from("/h/.cache/lightrag-rs/models/all-MiniLM-L6-v2")));
        assert_eq!(default_model_dir(None, None, None), None);
    }
}
