//! Reading parts out of a zip container (DOCX, PPTX, ODT, EPUB, XLSX, ODS) under a cap on the
//! total unpacked size.

use std::io::{Cursor, Read};

use zip::ZipArchive;
use zip::result::ZipError;

use crate::{DocTextError, MAX_UNPACKED_BYTES};

/// A zip archive in memory, read part by part while counting the unpacked bytes.
pub(crate) struct ZipDoc<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    format: &'static str,
    budget: u64,
}

impl<'a> ZipDoc<'a> {
    /// Opens the archive; `format` names it in errors.
    pub(crate) fn open(format: &'static str, bytes: &'a [u8]) -> Result<ZipDoc<'a>, DocTextError> {
        let archive = ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| DocTextError::corrupt(format, format!("not a valid zip container: {e}")))?;
        Ok(ZipDoc { archive, format, budget: MAX_UNPACKED_BYTES })
    }

    /// The names of the entries (names that are not valid text are skipped).
    pub(crate) fn names(&self) -> Vec<String> {
        self.archive.file_names().filter_map(Result::ok).map(|n| n.into_owned()).collect()
    }

    /// The unpacked bytes of an entry, `None` when there is no entry by that name.
    pub(crate) fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, DocTextError> {
        let format = self.format;
        let entry = match self.archive.by_name(name) {
            Ok(entry) => entry,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(e) => return Err(DocTextError::corrupt(format, format!("cannot open '{name}': {e}"))),
        };
        let mut bytes = Vec::new();
        entry
            .take(self.budget.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| DocTextError::corrupt(format, format!("cannot unpack '{name}': {e}")))?;
        self.spend(bytes.len() as u64)?;
        Ok(Some(bytes))
    }

    /// An entry as UTF-8 text, `None` when there is no entry by that name.
    pub(crate) fn read_text(&mut self, name: &str) -> Result<Option<String>, DocTextError> {
        let format = self.format;
        match self.read(name)? {
            None => Ok(None),
            Some(bytes) => String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| DocTextError::corrupt(format, format!("'{name}' is not UTF-8 XML"))),
        }
    }

    /// An entry that must exist, as UTF-8 text.
    pub(crate) fn require_text(&mut self, name: &str) -> Result<String, DocTextError> {
        let format = self.format;
        self.read_text(name)?.ok_or_else(|| DocTextError::corrupt(format, format!("the part '{name}' is missing")))
    }

    /// Unpacks every entry without keeping it, to check the archive against the size cap before a
    /// reader that has no cap of its own gets it.
    pub(crate) fn check_unpacked_size(&mut self) -> Result<(), DocTextError> {
        let format = self.format;
        for index in 0..self.archive.len() {
            let entry = self
                .archive
                .by_index(index)
                .map_err(|e| DocTextError::corrupt(format, format!("cannot open entry {index}: {e}")))?;
            let copied = std::io::copy(&mut entry.take(self.budget.saturating_add(1)), &mut std::io::sink())
                .map_err(|e| DocTextError::corrupt(format, format!("cannot unpack entry {index}: {e}")))?;
            self.spend(copied)?;
        }
        Ok(())
    }

    fn spend(&mut self, bytes: u64) -> Result<(), DocTextError> {
        if bytes > self.budget {
            return Err(DocTextError::corrupt(
                self.format,
                format!("it unpacks to more than {} MB", MAX_UNPACKED_BYTES / (1024 * 1024)),
            ));
        }
        self.budget -= bytes;
        Ok(())
    }
}
