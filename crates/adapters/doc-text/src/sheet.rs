//! Spreadsheets (`.xlsx`, `.xls`, `.ods`) via `calamine`: one block per sheet, a `[Sheet name]`
//! line, then one line per non-empty row with the cells separated by tabs.

use std::io::Cursor;

use calamine::{Data, Reader, open_workbook_auto_from_rs};

use crate::zipped::ZipDoc;
use crate::{DocTextError, MAX_UNPACKED_BYTES};

/// The text of a workbook; `format` (`XLSX`, `XLS` or `ODS`) names it in errors. The content of
/// the file decides how it is read, so a workbook with the wrong one of these extensions works.
pub(crate) fn extract(format: &'static str, bytes: &[u8]) -> Result<String, DocTextError> {
    if bytes.starts_with(b"PK") {
        // calamine unpacks the parts itself, without a cap: check the sizes first.
        ZipDoc::open(format, bytes)?.check_unpacked_size()?;
    }
    let mut workbook = open_workbook_auto_from_rs(Cursor::new(bytes))
        .map_err(|e| DocTextError::corrupt(format, format!("not a readable workbook: {e}")))?;
    let mut out = String::new();
    let mut first_error = None;
    let mut read_any = false;
    for name in workbook.sheet_names() {
        let range = match workbook.worksheet_range(&name) {
            Ok(range) => range,
            Err(e) => {
                first_error.get_or_insert_with(|| format!("sheet '{name}': {e}"));
                continue;
            }
        };
        read_any = true;
        out.push_str(&format!("[{name}]\n"));
        for row in range.rows() {
            let cells: Vec<String> = row.iter().map(cell_text).collect();
            let used = cells.iter().rposition(|c| !c.is_empty()).map_or(0, |last| last + 1);
            if used == 0 {
                continue;
            }
            out.push_str(&cells[..used].join("\t"));
            out.push('\n');
            if out.len() as u64 > MAX_UNPACKED_BYTES {
                return Err(DocTextError::corrupt(format, "its cells hold more text than can be indexed"));
            }
        }
        out.push('\n');
    }
    match first_error {
        Some(reason) if !read_any => Err(DocTextError::corrupt(format, reason)),
        _ => Ok(out),
    }
}

/// A cell as text: numbers without a trailing `.0`, tabs and line breaks turned into spaces.
fn cell_text(cell: &Data) -> String {
    match cell {
        Data::Empty => String::new(),
        other => other.to_string().replace(['\t', '\n', '\r'], " ").trim().to_string(),
    }
}
