// The message catalogs: every offered language is complete (every key of English, in the plural
// forms the language needs, with the same placeholders and tags), no catalog has a key English
// lacks, no key is unused, and no component shows text the catalogs do not hold (JSX text and
// user-visible attributes are read from the components' syntax trees).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAst } from 'rolldown/parseAst';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from './languages';

const SRC = join(import.meta.dirname, '..');
const LOCALES = join(import.meta.dirname, 'locales');
const PLURAL = /_(zero|one|two|few|many|other)$/;

type Catalog = Record<string, string>;

function flatten(value: unknown, prefix = '', out: Catalog = {}): Catalog {
  if (typeof value === 'string') {
    out[prefix] = value;
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  }
  return out;
}

function load(code: string): Catalog {
  return flatten(JSON.parse(readFileSync(join(LOCALES, `${code}.json`), 'utf8')));
}

/** The keys a language must have: plural keys in each of its plural categories. */
function requiredKeys(en: Catalog, code: string): string[] {
  const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
  const keys = new Set<string>();
  for (const key of Object.keys(en)) {
    if (PLURAL.test(key)) for (const c of categories) keys.add(key.replace(PLURAL, `_${c}`));
    else keys.add(key);
  }
  return [...keys].sort();
}

/** {{placeholders}} (name only) and <tags> of a message. */
function markers(message: string): string[] {
  const names = [...message.matchAll(/\{\{\s*([\w]+)[^}]*\}\}/g)].map((m) => `{{${m[1]}}}`);
  const tags = [...message.matchAll(/<\/?[a-z]+>/g)].map((m) => m[0]);
  return [...new Set([...names, ...tags])].sort();
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const en = load('en');

/** Messages that are the same word in a language as in English (brand and protocol names). */
const SAME_AS_ENGLISH = new Set(['header.tabApi', 'app.pageApi', 'login.api', 'docs.detail.id', 'docs.pager.range', 'docs.trackSummaryPart', 'retrieval.field.error',
  'docs.delete.refusal', 'retrieval.field.topK', 'docs.upload.statusRunning', 'docs.table.unknownSource', 'graph.stop', 'graph.run', 'graph.plusEntity', 'graph.plusRelation',
  'docs.pipeline.jumpLatest', 'graph.pickedMark', 'workspace.placeholder', 'graph.shownOf']);

/** Messages that are the same word in a language as in English (reviewed, one by one). */
const COGNATES: Record<string, string[]> = {
  fr: ['app.pageDocuments', 'header.tabDocuments', 'header.tabDocumentsShort', 'header.pages', 'status.pipeline', 'status.configuration',
    'docs.countWord_one', 'docs.countWord_other', 'docs.detail.title', 'docs.pager.pages', 'docs.pipeline.title', 'docs.pipeline.documents',
    'retrieval.role.total', 'retrieval.answer.total', 'retrieval.composer.question', 'retrieval.conversation', 'retrieval.page.questions_one',
    'retrieval.page.questions_other', 'retrieval.settings.mode', 'why.relations', 'why.score', 'graph.type', 'graph.description', 'graph.options',
    'graph.plusRelation', 'graph.typesCount', 'graph.sources', 'graph.relation', 'graph.documents', 'graph.mentions_one', 'graph.mentions_other',
    'graph.relationsHeading', 'graph.relationWord'],
  de: ['header.tabGraphShort', 'status.server', 'status.status', 'docs.detail.status', 'docs.table.status', 'docs.track.status',
    'retrieval.mode.hybrid', 'graph.name', 'graph.toolbar'],
  es: ['header.tabDocumentsShort', 'docs.detail.error', 'docs.table.error', 'members.role.editor', 'retrieval.mode.local', 'retrieval.mode.global', 'retrieval.role.total',
    'retrieval.answer.tokens', 'retrieval.answer.total', 'graph.tokens_one', 'graph.tokens_other', 'graph.layoutCircular'],
};

describe('message catalogs', () => {
  it('offers English first and only languages with a catalog', () => {
    expect(LANGUAGES[0]?.code).toBe('en');
    const files = readdirSync(LOCALES).map((f) => f.replace(/\.json$/, ''));
    for (const l of LANGUAGES) expect(files).toContain(l.code);
  });

  for (const lang of LANGUAGES.filter((l) => l.code !== 'en')) {
    describe(lang.code, () => {
      const catalog = load(lang.code);
      it('has every key, translated, in every plural form', () => {
        const missing = requiredKeys(en, lang.code).filter((k) => !(catalog[k] ?? '').trim());
        expect(missing).toEqual([]);
      });
      it('has no key English lacks', () => {
        const base = new Set(Object.keys(en).map((k) => k.replace(PLURAL, '')));
        const extra = Object.keys(catalog).filter((k) => !base.has(k.replace(PLURAL, '')));
        expect(extra).toEqual([]);
      });
      it('keeps the placeholders and tags of English', () => {
        const wrong = Object.entries(catalog)
          .filter(([k]) => {
            const source = en[k] ?? en[k.replace(PLURAL, '_other')];
            if (source === undefined) return false;
            // the forms for 0, 1 and 2 may say the number in words ("مستند واحد", "مستندان")
            const implied = /_(zero|one|two)$/.test(k) ? (m: string[]) => m.filter((x) => x !== '{{count}}') : (m: string[]) => m;
            return implied(markers(source)).join() !== implied(markers(catalog[k] ?? '')).join();
          })
          .map(([k]) => k);
        expect(wrong).toEqual([]);
      });
      it('is not an English copy', () => {
        const copies = Object.entries(catalog)
          .filter(([k, v]) => v === en[k] && /[A-Za-z]{3}/.test(v.replace(/\{\{[^}]*\}\}|<[^>]*>/g, '')))
          .filter(([k]) => !SAME_AS_ENGLISH.has(k) && !(COGNATES[lang.code] ?? []).includes(k))
          .map(([k]) => k);
        expect(copies).toEqual([]);
      });
    });
  }

  it('has no unused key (every key appears as a string literal in the source)', () => {
    const source = sourceFiles(SRC)
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const unused = [...new Set(Object.keys(en).map((k) => k.replace(PLURAL, '')))].filter(
      (k) => !source.includes(`'${k}'`) && !source.includes(`"${k}"`),
    );
    expect(unused).toEqual([]);
  });
});

/** Attributes a user reads or hears. */
const VISIBLE_ATTRIBUTES = new Set(['title', 'aria-label', 'placeholder', 'alt', 'label', 'confirmLabel', 'emptyText', 'hint', 'aria-description']);
const WORDS = /\p{L}{2,}/u;

interface Node {
  type: string;
  [key: string]: unknown;
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && typeof (v as Node).type === 'string';
}

/** String literals and template texts of an expression shown as it is (not call arguments). */
function shownStrings(node: unknown, out: string[]): void {
  if (!isNode(node)) return;
  if (node.type === 'Literal' && typeof node.value === 'string') out.push(node.value);
  else if (node.type === 'TemplateLiteral') for (const q of node.quasis as Node[]) out.push(String((q.value as { cooked: string }).cooked));
  else if (node.type === 'ConditionalExpression') {
    shownStrings(node.consequent, out);
    shownStrings(node.alternate, out);
  } else if (node.type === 'LogicalExpression') shownStrings(node.right, out);
}

function untranslated(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const ast = parseAst(text, { lang: 'tsx' });
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isNode(node)) return;
    if (node.type === 'JSXText' && WORDS.test(String(node.value))) found.push(String(node.value).trim());
    if (node.type === 'JSXExpressionContainer') {
      const strings: string[] = [];
      shownStrings(node.expression, strings);
      found.push(...strings.filter((s) => WORDS.test(s)));
    }
    if (node.type === 'JSXAttribute') {
      const name = (node.name as Node).name as string;
      if (VISIBLE_ATTRIBUTES.has(name)) {
        const strings: string[] = [];
        shownStrings(node.value, strings);
        if (isNode(node.value) && node.value.type === 'JSXExpressionContainer') shownStrings(node.value.expression, strings);
        found.push(...strings.filter((s) => WORDS.test(s)));
      }
      return; // other attributes (className, data-testid…) are not shown
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'type') visit(v);
  };
  visit(ast);
  return found.map((s) => `${relative(SRC, file)}: ${JSON.stringify(s)}`);
}

describe('components', () => {
  it('show no text outside the catalogs (JSX text and visible attributes)', () => {
    const files = sourceFiles(SRC).filter((f) => f.endsWith('.tsx'));
    expect(files.length).toBeGreaterThan(30);
    expect(files.flatMap(untranslated)).toEqual([]);
  });
});
