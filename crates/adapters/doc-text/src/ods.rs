//! OpenDocument spreadsheets (`.ods`): the tables of `content.xml`, read with a streaming XML
//! reader and laid out like `.xlsx` sheets (see [`crate::sheet`]).
//!
//! OpenDocument compresses runs of equal cells and rows with `number-columns-repeated` and
//! `number-rows-repeated`; a few bytes can stand for billions of cells. Empty runs only move the
//! position; a run of non-empty cells is expanded only when it stays within
//! [`MAX_SHEET_CELLS`] cells per sheet and [`MAX_UNPACKED_BYTES`] of text in all, and the
//! workbook is refused otherwise. A cell's text is what it displays (its paragraphs), or its
//! value attribute when it has no paragraph.

use quick_xml::Reader;
use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::{BytesStart, Event};

use crate::sheet::{SheetCell, lay_out, spend_text};
use crate::structure::{heading_mark, strip_marks};
use crate::zipped::ZipDoc;
use crate::{DocTextError, MAX_SHEET_CELLS, MAX_UNPACKED_BYTES};

const FORMAT: &str = "ODS";

/// Attributes holding a cell's value, by preference.
const VALUE_ATTRIBUTES: &[&str] =
    &["office:string-value", "office:value", "office:date-value", "office:time-value", "office:boolean-value"];

/// The text of an `.ods` workbook.
pub(crate) fn extract(bytes: &[u8]) -> Result<String, DocTextError> {
    let mut zip = ZipDoc::open(FORMAT, bytes)?;
    let xml = zip.require_text("content.xml")?;
    let mut reader = Reader::from_str(&xml);
    let mut out = String::new();
    let mut text_budget = MAX_UNPACKED_BYTES;
    let mut sheet: Option<Sheet> = None;
    // within a cell: its text so far, how deep inside it, and how deep inside a paragraph
    let mut cell: Option<Cell> = None;
    loop {
        let event = reader
            .read_event()
            .map_err(|e| DocTextError::corrupt(FORMAT, format!("malformed XML in 'content.xml': {e}")))?;
        if let Some(current) = cell.as_mut() {
            match event {
                Event::Start(e) => current.open(&e),
                Event::Empty(e) => current.empty(&e),
                Event::End(_) if current.depth == 0 => {
                    if let (Some(sheet), Some(done)) = (sheet.as_mut(), cell.take()) {
                        sheet.add_cell(done);
                    }
                }
                Event::End(e) => current.close(e.name().0),
                Event::Text(t) => current.text(&t.xml10_content()),
                Event::CData(t) => current.text(&t.xml10_content()),
                Event::GeneralRef(r) => {
                    if let Ok(Some(c)) = r.resolve_char_ref() {
                        current.text(c.encode_utf8(&mut [0; 4]));
                    } else if let Some(s) = resolve_xml_entity(&r.xml10_content()) {
                        current.text(s);
                    }
                }
                Event::Eof => break,
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(e) if e.name().0 == "table:table" && sheet.is_none() => {
                let name = attribute(&e, "table:name").unwrap_or_default();
                sheet = Some(Sheet::new(name));
            }
            Event::End(e) if e.name().0 == "table:table" => {
                if let Some(done) = sheet.take() {
                    // each sheet is a section headed by its name
                    out.push_str(&format!("{}[{}]\n", heading_mark(1), strip_marks(&done.name)));
                    lay_out(FORMAT, &done.cells, &mut out)?;
                    out.push('\n');
                }
            }
            Event::Start(e) if e.name().0 == "table:table-row" => {
                if let Some(sheet) = sheet.as_mut() {
                    sheet.start_row(repeat(&e, "table:number-rows-repeated"));
                }
            }
            Event::Empty(e) if e.name().0 == "table:table-row" => {
                if let Some(sheet) = sheet.as_mut() {
                    sheet.start_row(repeat(&e, "table:number-rows-repeated"));
                    sheet.end_row(&mut text_budget)?;
                }
            }
            Event::End(e) if e.name().0 == "table:table-row" => {
                if let Some(sheet) = sheet.as_mut() {
                    sheet.end_row(&mut text_budget)?;
                }
            }
            Event::Start(e) if is_cell(&e) && sheet.is_some() => cell = Some(Cell::new(&e)),
            Event::Empty(e) if is_cell(&e) => {
                if let Some(sheet) = sheet.as_mut() {
                    sheet.add_cell(Cell::new(&e));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if out.is_empty() && sheet.is_none() {
        return Err(DocTextError::corrupt(FORMAT, "no tables in 'content.xml'"));
    }
    Ok(out)
}

fn is_cell(e: &BytesStart<'_>) -> bool {
    matches!(e.name().0, "table:table-cell" | "table:covered-table-cell")
}

fn attribute(e: &BytesStart<'_>, name: &str) -> Option<String> {
    let value = e.try_get_attribute(name).ok().flatten()?;
    quick_xml::escape::unescape(&value.value).ok().map(|v| v.into_owned())
}

/// A repeat count attribute (at least 1).
fn repeat(e: &BytesStart<'_>, name: &str) -> u64 {
    attribute(e, name).and_then(|v| v.trim().parse::<u64>().ok()).unwrap_or(1).max(1)
}

/// A table being read.
struct Sheet {
    name: String,
    cells: Vec<SheetCell>,
    /// The row the current row element starts at, and how many times it repeats.
    row: u64,
    row_repeat: u64,
    /// The column of the next cell of the current row.
    col: u64,
    /// Non-empty cells of the current row: column, repeat, text.
    row_cells: Vec<(u64, u64, String)>,
}

impl Sheet {
    fn new(name: String) -> Sheet {
        Sheet { name, cells: Vec::new(), row: 0, row_repeat: 1, col: 0, row_cells: Vec::new() }
    }

    fn start_row(&mut self, repeat: u64) {
        self.row_repeat = repeat;
        self.col = 0;
        self.row_cells.clear();
    }

    fn add_cell(&mut self, cell: Cell) {
        let text = cell.finish();
        if !text.is_empty() {
            self.row_cells.push((self.col, cell.repeat, text));
        }
        self.col = self.col.saturating_add(cell.repeat);
    }

    /// Expands the current row (its cells and its repeats) into cells, within the caps.
    fn end_row(&mut self, text_budget: &mut u64) -> Result<(), DocTextError> {
        if !self.row_cells.is_empty() {
            let per_row: u64 = self.row_cells.iter().fold(0u64, |sum, (_, n, _)| sum.saturating_add(*n));
            let count = per_row.saturating_mul(self.row_repeat);
            let total = count.saturating_add(self.cells.len() as u64);
            if total > MAX_SHEET_CELLS as u64 {
                return Err(DocTextError::corrupt(
                    FORMAT,
                    format!("sheet '{}' has more than {MAX_SHEET_CELLS} cells", self.name),
                ));
            }
            let bytes_per_row: u64 =
                self.row_cells.iter().fold(0u64, |sum, (_, n, t)| sum.saturating_add(n.saturating_mul(t.len() as u64)));
            spend_text(FORMAT, text_budget, bytes_per_row.saturating_mul(self.row_repeat))?;
            for r in 0..self.row_repeat {
                let row = clamp(self.row.saturating_add(r));
                for (col, n, text) in &self.row_cells {
                    for c in 0..*n {
                        self.cells.push((row, clamp(col.saturating_add(c)), text.clone()));
                    }
                }
            }
        }
        self.row = self.row.saturating_add(self.row_repeat);
        self.row_repeat = 1;
        self.row_cells.clear();
        Ok(())
    }
}

fn clamp(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A cell being read.
struct Cell {
    repeat: u64,
    /// The value attribute, used when the cell has no paragraph text.
    value: Option<String>,
    text: String,
    /// Elements open inside the cell.
    depth: usize,
    /// Open paragraphs (`text:p`, `text:h`) inside the cell, outside annotations.
    paragraph_depth: usize,
    /// Open annotations (comments), whose text is not the cell's.
    annotation_depth: usize,
}

impl Cell {
    fn new(e: &BytesStart<'_>) -> Cell {
        let value = VALUE_ATTRIBUTES.iter().find_map(|name| attribute(e, name));
        Cell {
            repeat: repeat(e, "table:number-columns-repeated"),
            value,
            text: String::new(),
            depth: 0,
            paragraph_depth: 0,
            annotation_depth: 0,
        }
    }

    fn open(&mut self, e: &BytesStart<'_>) {
        self.depth += 1;
        match e.name().0 {
            "office:annotation" => self.annotation_depth += 1,
            "text:p" | "text:h" if self.annotation_depth == 0 => {
                if self.paragraph_depth == 0 && !self.text.is_empty() {
                    self.text.push(' ');
                }
                self.paragraph_depth += 1;
            }
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        self.depth = self.depth.saturating_sub(1);
        match name {
            "office:annotation" => self.annotation_depth = self.annotation_depth.saturating_sub(1),
            "text:p" | "text:h" if self.annotation_depth == 0 => {
                self.paragraph_depth = self.paragraph_depth.saturating_sub(1);
            }
            _ => {}
        }
    }

    fn empty(&mut self, e: &BytesStart<'_>) {
        if self.paragraph_depth == 0 || self.annotation_depth > 0 {
            return;
        }
        match e.name().0 {
            "text:s" => {
                let count = attribute(e, "text:c").and_then(|c| c.trim().parse::<usize>().ok()).unwrap_or(1).min(64);
                self.text.extend(std::iter::repeat_n(' ', count));
            }
            "text:tab" | "text:line-break" => self.text.push(' '),
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        if self.paragraph_depth > 0 && self.annotation_depth == 0 {
            self.text.push_str(text);
        }
    }

    /// The cell's text on one line (empty for an empty cell).
    fn finish(&self) -> String {
        let text = if self.text.trim().is_empty() { self.value.as_deref().unwrap_or("") } else { &self.text };
        text.replace(['\t', '\n', '\r'], " ").trim().to_string()
    }
}
