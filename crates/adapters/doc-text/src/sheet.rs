//! Excel workbooks (`.xlsx`) via `calamine`'s streaming cell reader: one block per sheet, a
//! `[Sheet name]` line, then one line per non-empty row with the cells separated by tabs.
//!
//! The cells are read one by one and laid out sparsely, never as a dense rows × columns grid:
//! a sheet holding only `A1` and `XFD1048576` is two cells, not 17 billion. A gap between two
//! cells of a row is kept as tabs, at most [`MAX_GAP_TABS`] of them; empty rows are left out.
//! A sheet of more than [`MAX_SHEET_CELLS`] cells is refused.

use std::io::Cursor;

use calamine::{Data, DataRef, Reader, Xlsx, XlsxError};
use quick_xml::events::Event;

use crate::structure::{heading_mark, strip_marks};
use crate::zipped::ZipDoc;
use crate::{DocTextError, MAX_SHEET_CELLS, MAX_UNPACKED_BYTES};

/// The most tabs written for a gap between two cells (or before the first cell of a row).
pub(crate) const MAX_GAP_TABS: u32 = 32;

const FORMAT: &str = "XLSX";

/// The text of an `.xlsx` workbook.
pub(crate) fn extract(bytes: &[u8]) -> Result<String, DocTextError> {
    // calamine unpacks the parts itself, without a cap: check the sizes first.
    ZipDoc::open(FORMAT, bytes)?.check_unpacked_size()?;
    check_shared_strings(bytes)?;
    let mut workbook: Xlsx<_> = Xlsx::new(Cursor::new(bytes))
        .map_err(|e| DocTextError::corrupt(FORMAT, format!("not a readable workbook: {e}")))?;
    let mut out = String::new();
    let mut first_error = None;
    let mut read_any = false;
    let mut text_budget = MAX_UNPACKED_BYTES;
    for name in workbook.sheet_names() {
        let cells = match sheet_cells(&mut workbook, &name, &mut text_budget) {
            Ok(cells) => cells,
            Err(SheetError::Refused(e)) => return Err(e),
            Err(SheetError::Unreadable(reason)) => {
                first_error.get_or_insert(reason);
                continue;
            }
        };
        read_any = true;
        // each sheet is a section headed by its name
        out.push_str(&format!("{}[{}]\n", heading_mark(1), strip_marks(&name)));
        lay_out(FORMAT, &cells, &mut out)?;
        out.push('\n');
    }
    match first_error {
        Some(reason) if !read_any => Err(DocTextError::corrupt(FORMAT, reason)),
        _ => Ok(out),
    }
}

/// calamine reserves room for as many shared strings as the `uniqueCount` attribute of the
/// shared-string table declares, before reading any: a tiny file declaring billions would make
/// that allocation fail, which aborts the process. Refuses a table that declares more strings
/// than its size can hold (5 bytes each, `<si/>`) or more than [`MAX_SHEET_CELLS`].
fn check_shared_strings(bytes: &[u8]) -> Result<(), DocTextError> {
    let mut zip = ZipDoc::open(FORMAT, bytes)?;
    // calamine finds parts case-insensitively, with `\` read as `/`
    let tables = zip
        .names()
        .into_iter()
        .filter(|name| name.replace('\\', "/").to_ascii_lowercase().ends_with("sharedstrings.xml"));
    for name in tables.collect::<Vec<_>>() {
        let Some(xml) = zip.read(&name)? else { continue };
        let Some(declared) = declared_unique_count(&xml) else { continue };
        let room = (xml.len() / 5) as u64;
        if declared > room.min(MAX_SHEET_CELLS as u64) {
            return Err(DocTextError::corrupt(
                FORMAT,
                format!("its shared-string table declares {declared} strings, more than it can hold"),
            ));
        }
    }
    Ok(())
}

/// The `uniqueCount` of the first `sst` element (`u64::MAX` when it is too large to read).
fn declared_unique_count(xml: &[u8]) -> Option<u64> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e) | Event::Empty(e)) if e.local_name().as_ref() == "sst" => {
                let attr = e.try_get_attribute("uniqueCount").ok().flatten()?;
                let value = attr.value.trim();
                let digits = value.strip_prefix('+').unwrap_or(value);
                let end = digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(digits.len());
                if end == 0 {
                    return None;
                }
                return Some(digits[..end].parse::<u64>().unwrap_or(u64::MAX));
            }
            Ok(Event::Eof) | Err(_) => return None,
            Ok(_) => buf.clear(),
        }
    }
}

enum SheetError {
    /// The whole workbook is refused.
    Refused(DocTextError),
    /// This sheet cannot be read; others may.
    Unreadable(String),
}

/// A non-empty cell: row, column, text.
pub(crate) type SheetCell = (u32, u32, String);

/// The non-empty cells of a sheet, sorted by row then column (a later cell at the same place
/// replaces an earlier one). `text_budget` is the number of bytes of cell text still allowed:
/// many small cells may all point at one long shared string.
fn sheet_cells(
    workbook: &mut Xlsx<Cursor<&[u8]>>,
    name: &str,
    text_budget: &mut u64,
) -> Result<Vec<SheetCell>, SheetError> {
    let mut reader = match workbook.worksheet_cells_reader(name) {
        Ok(reader) => reader,
        // a chart sheet or the like: no cells
        Err(XlsxError::NotAWorksheet(_)) => return Ok(Vec::new()),
        Err(e) => return Err(SheetError::Unreadable(format!("sheet '{name}': {e}"))),
    };
    let mut cells: Vec<SheetCell> = Vec::new();
    let mut read = 0usize;
    loop {
        let cell = match reader.next_cell() {
            Ok(Some(cell)) => cell,
            Ok(None) => break,
            Err(e) => return Err(SheetError::Unreadable(format!("sheet '{name}': {e}"))),
        };
        read += 1;
        if read > MAX_SHEET_CELLS {
            return Err(SheetError::Refused(DocTextError::corrupt(
                FORMAT,
                format!("sheet '{name}' has more than {MAX_SHEET_CELLS} cells"),
            )));
        }
        // count a string's bytes before copying it: many cells may share one long string
        let raw_len = match cell.get_value() {
            DataRef::SharedString(s) => s.len(),
            DataRef::String(s) => s.len(),
            _ => 0,
        };
        spend_text(FORMAT, text_budget, raw_len as u64).map_err(SheetError::Refused)?;
        let text = cell_text(&Data::from(cell.get_value().clone()));
        if !text.is_empty() {
            let (row, col) = cell.get_position();
            cells.push((row, col, text));
        }
    }
    if !cells.is_sorted_by_key(|(row, col, _)| (*row, *col)) {
        cells.sort_by_key(|(row, col, _)| (*row, *col));
    }
    // keep the last of cells at the same place
    cells.reverse();
    cells.dedup_by_key(|(row, col, _)| (*row, *col));
    cells.reverse();
    Ok(cells)
}

/// Appends the rows of `cells` (sorted) to `out`, columns counted from the sheet's leftmost used
/// column; `format` names the file in errors.
pub(crate) fn lay_out(format: &'static str, cells: &[SheetCell], out: &mut String) -> Result<(), DocTextError> {
    let first_col = cells.iter().map(|(_, col, _)| *col).min().unwrap_or(0);
    let mut at = 0;
    while at < cells.len() {
        let row = cells[at].0;
        let mut col = first_col;
        while let Some((_, cell_col, text)) = cells.get(at).filter(|(r, _, _)| *r == row) {
            let gap = cell_col.saturating_sub(col).min(MAX_GAP_TABS);
            out.extend(std::iter::repeat_n('\t', gap as usize));
            out.push_str(&strip_marks(text));
            col = *cell_col;
            at += 1;
        }
        out.push('\n');
        if out.len() as u64 > MAX_UNPACKED_BYTES {
            return Err(too_much_text(format));
        }
    }
    Ok(())
}

/// Takes `bytes` of cell text from `budget`, refusing the workbook when it runs out.
pub(crate) fn spend_text(format: &'static str, budget: &mut u64, bytes: u64) -> Result<(), DocTextError> {
    if bytes > *budget {
        return Err(too_much_text(format));
    }
    *budget -= bytes;
    Ok(())
}

fn too_much_text(format: &'static str) -> DocTextError {
    DocTextError::corrupt(format, "its cells hold more text than can be indexed")
}

/// A cell as text: numbers without a trailing `.0`, tabs and line breaks turned into spaces.
fn cell_text(cell: &Data) -> String {
    match cell {
        Data::Empty => String::new(),
        Data::String(s) => one_line(s),
        other => one_line(&other.to_string()),
    }
}

fn one_line(text: &str) -> String {
    let text = text.trim();
    if text.contains(['\t', '\n', '\r']) {
        text.replace(['\t', '\n', '\r'], " ").trim().to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(row: u32, col: u32, text: &str) -> SheetCell {
        (row, col, text.to_string())
    }

    #[test]
    fn gaps_become_tabs_up_to_a_limit() {
        let mut out = String::new();
        let cells = [cell(0, 1, "a"), cell(0, 3, "b"), cell(2, 2, "c"), cell(5, 1, "d"), cell(5, 16_000, "e")];
        lay_out(FORMAT, &cells, &mut out).unwrap();
        let far = "\t".repeat(MAX_GAP_TABS as usize);
        assert_eq!(out, format!("a\t\tb\n\tc\nd{far}e\n"));
    }
}
