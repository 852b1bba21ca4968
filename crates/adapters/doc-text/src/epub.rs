//! EPUB books: the XHTML chapters in reading order (the package's spine), each rendered as HTML.
//! When the package document cannot be followed, every XHTML/HTML entry is read in name order.

use std::collections::{HashMap, HashSet};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::DocTextError;
use crate::html::render;
use crate::zipped::ZipDoc;

/// The text of an `.epub` file, a blank line between chapters.
pub(crate) fn extract(bytes: &[u8]) -> Result<String, DocTextError> {
    let mut zip = ZipDoc::open("EPUB", bytes)?;
    let chapters = match spine(&mut zip)? {
        Some(chapters) if !chapters.is_empty() => chapters,
        _ => {
            let mut names: Vec<String> = zip
                .names()
                .into_iter()
                .filter(|n| {
                    let lower = n.to_ascii_lowercase();
                    [".xhtml", ".html", ".htm"].iter().any(|ext| lower.ends_with(ext))
                })
                .collect();
            names.sort();
            names
        }
    };
    if chapters.is_empty() {
        return Err(DocTextError::corrupt("EPUB", "no XHTML content documents in the archive"));
    }
    let mut out = String::new();
    for chapter in chapters {
        if let Some(xhtml) = zip.read(&chapter)? {
            out.push_str(&render("EPUB", &xhtml)?);
            out.push_str("\n\n");
        }
    }
    Ok(out)
}

/// The archive paths of the spine's documents, `None` when the container or package document is
/// missing or unreadable.
fn spine(zip: &mut ZipDoc<'_>) -> Result<Option<Vec<String>>, DocTextError> {
    let Some(container) = zip.read_text("META-INF/container.xml")? else { return Ok(None) };
    let mut package_path = None;
    each_element(&container, |e| {
        if package_path.is_none() && e.local_name().as_ref() == "rootfile" {
            package_path = attribute(e, "full-path");
        }
    });
    let Some(package_path) = package_path else { return Ok(None) };
    let Some(package) = zip.read_text(&package_path)? else { return Ok(None) };
    let base = package_path.rsplit_once('/').map(|(dir, _)| dir).unwrap_or("");
    let (mut items, mut order) = (Vec::new(), Vec::new());
    let complete = each_element(&package, |e| match e.local_name().as_ref() {
        "item" => {
            if let (Some(id), Some(href)) = (attribute(e, "id"), attribute(e, "href")) {
                items.push((id, href));
            }
        }
        "itemref" => order.extend(attribute(e, "idref")),
        _ => {}
    });
    if !complete {
        return Ok(None);
    }
    // a map, not a search per spine entry (both lists can be long); the first item of an id wins
    let mut hrefs: HashMap<String, String> = HashMap::with_capacity(items.len());
    for (id, href) in items {
        hrefs.entry(id).or_insert(href);
    }
    // a chapter listed twice is read once (each reading would render it again)
    let mut seen = HashSet::new();
    let paths = order
        .iter()
        .filter_map(|idref| hrefs.get(idref))
        .map(|href| resolve(base, href))
        .filter(|path| seen.insert(path.clone()))
        .collect();
    Ok(Some(paths))
}

/// Calls `visit` on every start or empty element; false when the XML is malformed.
fn each_element(xml: &str, mut visit: impl FnMut(&BytesStart<'_>)) -> bool {
    let mut reader = Reader::from_str(xml);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => visit(&e),
            Ok(Event::Eof) => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

fn attribute(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes().with_checks(false).filter_map(Result::ok).find_map(|a| {
        let key = a.key.0;
        let local = key.rsplit(':').next().unwrap_or(key);
        (local == name).then(|| quick_xml::escape::unescape(&a.value).map(|v| v.into_owned()).unwrap_or_default())
    })
}

/// An href of the package document as an archive path: relative to the package's folder, without
/// a fragment, `..` segments applied and `%XX` escapes decoded.
fn resolve(base: &str, href: &str) -> String {
    let href = href.split('#').next().unwrap_or_default();
    let mut parts: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for segment in href.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    percent_decode(&parts.join("/"))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(value)) => {
                out.push(value);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hrefs_resolve_against_the_package_folder() {
        assert_eq!(resolve("OEBPS", "text/ch%201.xhtml#top"), "OEBPS/text/ch 1.xhtml");
        assert_eq!(resolve("OEBPS/pkg", "../ch2.xhtml"), "OEBPS/ch2.xhtml");
        assert_eq!(resolve("", "ch3.xhtml"), "ch3.xhtml");
        assert_eq!(percent_decode("100%"), "100%");
    }
}
