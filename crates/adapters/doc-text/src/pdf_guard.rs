//! A walk over a PDF's structure, done with `lopdf` before `pdf-extract` gets the file, that
//! refuses the shapes `pdf-extract` follows without limit:
//!
//! - Form XObjects drawn with `Do`: `pdf-extract` draws them recursively with no depth limit or
//!   cycle check, so a form that draws itself overflows the stack (which aborts the process), and
//!   forms that draw the same child many times multiply the work. The walk refuses a form that
//!   draws itself (directly or not), nesting deeper than [`MAX_FORM_DEPTH`], and documents that
//!   would draw more than [`MAX_FORM_DRAWS`] forms in all.
//! - Inherited page attributes: `pdf-extract` follows `/Parent` links without a cycle check; the
//!   walk refuses a page whose `/Parent` chain loops or is longer than [`MAX_PARENT_CHAIN`].
//!
//! A form without its own `/Resources` uses the resources of whatever draws it, as `pdf-extract`
//! does, so the walk follows the same names `pdf-extract` would.

use std::collections::{HashMap, HashSet};

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

/// Forms nested deeper than this are refused.
pub(crate) const MAX_FORM_DEPTH: usize = 32;
/// The most form drawings (each `Do`, counted through the nesting) a document may ask for.
pub(crate) const MAX_FORM_DRAWS: u64 = 100_000;
/// The longest `/Parent` chain from a page to the root of the page tree.
pub(crate) const MAX_PARENT_CHAIN: usize = 64;

/// Why a document is refused (the reason of a [`crate::DocTextError::Corrupt`]).
pub(crate) type Refusal = String;

/// Checks every page of `doc`; `Err` holds the reason for refusing the document.
pub(crate) fn check(doc: &Document) -> Result<(), Refusal> {
    let mut walk = Walk { doc, draws: 0, on_path: Vec::new(), cost: HashMap::new() };
    for (number, page_id) in doc.get_pages() {
        let Ok(page) = doc.get_dictionary(page_id) else { continue };
        let resources = inherited_resources(doc, page, number)?;
        let Ok(content) = doc.get_page_content(page_id) else { continue };
        walk.content(&content, resources, 0)?;
    }
    Ok(())
}

/// The page's `/Resources`, or the nearest ancestor's, checking the `/Parent` chain on the way.
fn inherited_resources<'a>(
    doc: &'a Document,
    page: &'a Dictionary,
    number: u32,
) -> Result<Option<&'a Dictionary>, Refusal> {
    let mut node = page;
    let mut seen = HashSet::new();
    let mut found = None;
    for _ in 0..=MAX_PARENT_CHAIN {
        if found.is_none() {
            found = node.get(b"Resources").ok().and_then(|r| deref(doc, r)).and_then(|r| r.as_dict().ok());
        }
        let Some(parent_id) = node.get(b"Parent").ok().and_then(|p| p.as_reference().ok()) else {
            return Ok(found);
        };
        if !seen.insert(parent_id) {
            return Err(format!("the page tree above page {number} loops back on itself"));
        }
        let Ok(parent) = doc.get_dictionary(parent_id) else { return Ok(found) };
        node = parent;
    }
    Err(format!("the page tree above page {number} is more than {MAX_PARENT_CHAIN} levels deep"))
}

fn deref<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, o)| o)
}

struct Walk<'a> {
    doc: &'a Document,
    /// Form drawings counted so far.
    draws: u64,
    /// The forms being drawn, outermost first.
    on_path: Vec<ObjectId>,
    /// Drawings counted for one drawing of a form that has its own resources, itself included
    /// (so the count does not depend on who draws it).
    cost: HashMap<ObjectId, u64>,
}

impl<'a> Walk<'a> {
    /// Follows every `Do` of a content stream drawn with `resources` at nesting `depth`.
    fn content(&mut self, content: &[u8], resources: Option<&'a Dictionary>, depth: usize) -> Result<(), Refusal> {
        // Only `Do` matters here; content that does not parse is left to pdf-extract to judge.
        let Ok(content) = Content::decode(content) else { return Ok(()) };
        for operation in content.operations.iter().filter(|op| op.operator == "Do") {
            let Some(name) = operation.operands.first().and_then(|o| o.as_name().ok()) else { continue };
            let Some(xobjects) = resources
                .and_then(|r| r.get(b"XObject").ok())
                .and_then(|x| deref(self.doc, x))
                .and_then(|x| x.as_dict().ok())
            else {
                continue;
            };
            let Ok(entry) = xobjects.get(name) else { continue };
            let (id, stream) = match self.doc.dereference(entry) {
                Ok((id, Object::Stream(stream))) => (id, stream),
                _ => continue,
            };
            self.form(id, stream, resources, depth + 1)?;
        }
        Ok(())
    }

    /// One drawing of the form `stream` (object `id` when it is an indirect object).
    fn form(
        &mut self,
        id: Option<ObjectId>,
        stream: &'a Stream,
        inherited: Option<&'a Dictionary>,
        depth: usize,
    ) -> Result<(), Refusal> {
        if depth > MAX_FORM_DEPTH {
            return Err(format!("its drawings (form XObjects) are nested more than {MAX_FORM_DEPTH} deep"));
        }
        if let Some(id) = id
            && self.on_path.contains(&id)
        {
            return Err(format!("the drawing (form XObject) {} {} R draws itself", id.0, id.1));
        }
        let own = stream.dict.get(b"Resources").ok().and_then(|r| deref(self.doc, r)).and_then(|r| r.as_dict().ok());
        let memo_key = id.filter(|_| own.is_some());
        if let Some(cost) = memo_key.and_then(|key| self.cost.get(&key)) {
            return self.spend(*cost);
        }
        let before = self.draws;
        self.spend(1)?;
        let content = if stream.filters().is_ok() {
            stream.decompressed_content().unwrap_or_else(|_| stream.content.clone())
        } else {
            stream.content.clone()
        };
        self.on_path.extend(id);
        let result = self.content(&content, own.or(inherited), depth);
        if id.is_some() {
            self.on_path.pop();
        }
        result?;
        if let Some(key) = memo_key {
            self.cost.insert(key, self.draws - before);
        }
        Ok(())
    }

    fn spend(&mut self, draws: u64) -> Result<(), Refusal> {
        self.draws = self.draws.saturating_add(draws);
        if self.draws > MAX_FORM_DRAWS {
            return Err(format!("it draws more than {MAX_FORM_DRAWS} nested drawings (form XObjects)"));
        }
        Ok(())
    }
}
