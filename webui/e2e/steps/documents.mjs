// Steps of the Documents page: upload two files of different formats (Markdown by drag and drop,
// DOCX through the file picker), see both reach "processed", delete one with its file.
//
// The two texts share two people and each has names of its own, so the graph step can check that
// deleting the DOCX removes exactly its exclusive entities:
//   shared:         Ada Lovelace, Charles Babbage
//   Markdown only:  Luigi Menabrea, Mary Somerville, English
//   DOCX only:      Analytical Engine, Difference Engine
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';

export const MARKDOWN_FILE = 'lovelace-notes.md';
export const DOCX_FILE = 'babbage-engines.docx';

export const SHARED_ENTITY = 'Ada Lovelace';
export const SHARED_ENTITIES = ['Ada Lovelace', 'Charles Babbage'];
export const EXCLUSIVE = {
  [MARKDOWN_FILE]: ['Luigi Menabrea', 'Mary Somerville', 'English'],
  [DOCX_FILE]: ['Analytical Engine', 'Difference Engine'],
};

/** The document the delete step removes, and the entities that must disappear with it. */
export const DELETED_FILE = DOCX_FILE;
export const EXCLUSIVE_ENTITIES = EXCLUSIVE[DOCX_FILE];
/** The document that stays. */
export const KEPT_FILE = MARKDOWN_FILE;

const MARKDOWN_TEXT = `# Ada Lovelace

Ada Lovelace wrote long notes on the machine of Charles Babbage.
Ada Lovelace translated the paper of Luigi Menabrea into English.
Mary Somerville introduced Ada Lovelace to mathematicians.
`;

const DOCX_PARAGRAPHS = [
  'Charles Babbage designed the Analytical Engine together with Ada Lovelace.',
  'Charles Babbage first built a model of the Difference Engine.',
];

// ---- a minimal zip writer (deflate entries) for the DOCX ----

function dosDateTime(d) {
  const time = (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2);
  const date = ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate();
  return { time, date };
}

/** A zip archive of `entries` ([name, string | Buffer]), each deflated. */
export function zip(entries) {
  const { time, date } = dosDateTime(new Date());
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const packed = deflateRawSync(data);
    const nameBytes = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // flags: UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, nameBytes, packed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // version made by
    central.writeUInt16LE(20, 6); // version needed
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    // extra, comment, disk, internal and external attributes: 0
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

const xmlEscape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A Word document with one paragraph per string. */
export function docx(paragraphs) {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r></w:p>`).join('');
  return zip([
    [
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        '</Types>',
    ],
    [
      '_rels/.rels',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
        '</Relationships>',
    ],
    [
      'word/document.xml',
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
        `<w:body>${body}<w:sectPr/></w:body></w:document>`,
    ],
  ]);
}

// ---- helpers ----

async function openDocumentsTab(page) {
  await page.getByTestId('tab-documents').click();
  await page.getByTestId('documents-page').waitFor();
}

const row = (page, file) => page.locator(`[data-testid="docs-row"][data-file="${file}"]`);
const uploadItem = (page, file) => page.locator(`[data-testid="docs-upload-item"][data-file="${file}"]`);

/** Drops files on an element the way a browser does (DragEvent with a DataTransfer of Files). */
async function dropFiles(locator, files) {
  const payload = files.map((f) => ({ name: f.name, type: f.type, base64: readFileSync(f.path).toString('base64') }));
  await locator.evaluate((el, list) => {
    const dt = new DataTransfer();
    for (const f of list) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    for (const type of ['dragenter', 'dragover', 'drop']) {
      el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
  }, payload);
}

// ---- steps ----

/**
 * Writes the two files into ctx.artifacts and uploads them through the upload dialog: the
 * Markdown file dropped on the drop zone, the DOCX through the file picker. Both must be
 * accepted with a track id.
 */
export async function uploadTwoFiles(page, ctx) {
  const mdPath = join(ctx.artifacts, MARKDOWN_FILE);
  const docxPath = join(ctx.artifacts, DOCX_FILE);
  writeFileSync(mdPath, MARKDOWN_TEXT);
  writeFileSync(docxPath, docx(DOCX_PARAGRAPHS));

  await openDocumentsTab(page);
  await page.getByTestId('docs-upload').click();
  const dialog = page.getByTestId('docs-upload-dialog');
  await dialog.getByTestId('docs-dropzone').waitFor();

  await dropFiles(dialog.getByTestId('docs-dropzone'), [{ name: MARKDOWN_FILE, type: 'text/markdown', path: mdPath }]);
  await dialog.getByTestId('docs-file-input').setInputFiles(docxPath);

  for (const file of [MARKDOWN_FILE, DOCX_FILE]) {
    const item = uploadItem(page, file);
    await item.waitFor();
    // accepted (then followed until processed); a refusal shows its reason instead
    await page.waitForFunction(
      (name) => {
        const el = document.querySelector(`[data-testid="docs-upload-item"][data-file="${name}"]`);
        return el && ['accepted', 'processed', 'failed', 'rejected'].includes(el.getAttribute('data-phase'));
      },
      file,
      { timeout: 30_000 },
    );
    const phase = await item.getAttribute('data-phase');
    assert.ok(
      phase === 'accepted' || phase === 'processed',
      `${file} was not accepted: ${phase} — ${await item.innerText()}`,
    );
    const track = await item.getByTestId('docs-upload-track').innerText();
    assert.match(track, /^upload_/, `${file} shows its track id`);
  }
  await ctx.screenshot('documents-upload');
}

/**
 * Both rows reach "processed" in the table (the table refreshes itself while the pipeline
 * works), and the upload list followed both tracks to "processed".
 */
export async function waitProcessed(page, ctx) {
  const dialog = page.getByTestId('docs-upload-dialog');
  // the upload list follows the tracks: wait there first, then close and check the table
  for (const file of [MARKDOWN_FILE, DOCX_FILE]) {
    await page.waitForFunction(
      (name) => {
        const el = document.querySelector(`[data-testid="docs-upload-item"][data-file="${name}"]`);
        return el && ['processed', 'failed'].includes(el.getAttribute('data-phase'));
      },
      file,
      { timeout: 120_000 },
    );
    const item = uploadItem(page, file);
    assert.equal(await item.getAttribute('data-phase'), 'processed', `${file}: ${await item.innerText()}`);
  }
  await dialog.getByTestId('docs-upload-close').click();
  await dialog.waitFor({ state: 'hidden' });

  for (const file of [MARKDOWN_FILE, DOCX_FILE]) {
    await page.locator(`[data-testid="docs-row"][data-file="${file}"][data-status="processed"]`).waitFor({ timeout: 60_000 });
  }
  const processedTab = page.getByTestId('docs-tab-processed');
  await page.waitForFunction(
    () => Number(document.querySelector('[data-testid="docs-tab-processed"] .docs-tab-count')?.textContent) >= 2,
  );
  assert.ok(await processedTab.isVisible());

  // the server agrees
  const answer = await ctx.api('POST', '/documents/paginated', { page: 1, page_size: 50 });
  for (const file of [MARKDOWN_FILE, DOCX_FILE]) {
    const doc = answer.documents.find((d) => d.file_path === file);
    assert.ok(doc, `${file} is listed by the API`);
    assert.equal(doc.status, 'processed');
    assert.ok(doc.chunks_count >= 1, `${file} has chunks`);
  }

  // the track dialog of the DOCX row shows its processed document
  await row(page, DOCX_FILE).getByTestId('docs-row-track').click();
  const track = page.getByTestId('docs-track-dialog');
  await track.locator('[data-testid="docs-track-row"][data-status="processed"]').waitFor();
  await page.keyboard.press('Escape');
  await track.waitFor({ state: 'hidden' });

  // the pipeline panel has settled and kept the job's messages
  await page.locator('[data-testid="docs-pipeline"][data-busy="false"]').waitFor({ timeout: 30_000 });
  await ctx.screenshot('documents');
}

/**
 * Deletes `fileName` through the UI with "also delete the uploaded file" ticked; the row
 * disappears, the API no longer lists it and its file is gone from the input folder.
 */
export async function deleteDocument(page, ctx, fileName) {
  await openDocumentsTab(page);
  const r = row(page, fileName);
  await r.waitFor();
  const docId = await r.getAttribute('data-doc-id');
  const inputDir = ctx.stack?.inputDir;
  const candidates = inputDir ? [join(inputDir, fileName), join(inputDir, '__parsed__', fileName)] : [];
  if (inputDir) assert.ok(candidates.some((p) => existsSync(p)), `${fileName} is in the input folder before the deletion`);

  await r.getByTestId('docs-row-select').check();
  await page.getByTestId('docs-delete-selected').click();
  const dialog = page.getByTestId('docs-delete-dialog');
  await dialog.getByText(fileName).first().waitFor();
  await dialog.getByTestId('docs-delete-file').check();
  await dialog.getByTestId('docs-delete-confirm').click();
  await dialog.waitFor({ state: 'hidden' });

  await r.waitFor({ state: 'detached', timeout: 60_000 });
  await row(page, KEPT_FILE).waitFor();
  await page.locator('[data-testid="docs-pipeline"][data-busy="false"]').waitFor({ timeout: 30_000 });

  const answer = await ctx.api('POST', '/documents/paginated', { page: 1, page_size: 50 });
  assert.ok(!answer.documents.some((d) => d.id === docId || d.file_path === fileName), `${fileName} is still listed`);
  if (inputDir) {
    for (const p of candidates) assert.ok(!existsSync(p), `${p} was not deleted`);
  }
  await ctx.screenshot('documents-after-delete');
}
