// The bodies of the graph edit requests, built from the edit forms: only what changed is sent,
// names are trimmed, an empty description (refused by the server) is caught before sending.
import { t } from '../../i18n';

export interface EntityForm {
  name: string;
  type: string;
  description: string;
}

export interface RelationForm {
  description: string;
  keywords: string;
  /** As typed in the form. */
  weight: string;
}

export type Built<T> = { ok: true; value: T } | { ok: false; error: string };

export interface EntityEdit {
  /** The entity as it is called now (`entity_name`). */
  entityName: string;
  updatedData: { entity_name?: string; entity_type?: string; description?: string };
  /** Renamed: `allow_rename` must be set. */
  rename: string | null;
}

export interface RelationEdit {
  updatedData: { description?: string; keywords?: string; weight?: number };
}

/** Normalises typed text: trimmed; descriptions keep their inner line breaks. */
const tidy = (s: string) => s.trim();

/** A weight as typed: a finite number ≥ 0, else null. */
export function parseWeight(raw: string): number | null {
  const s = raw.trim().replace(',', '.');
  if (s === '') return null;
  const n = Number(s);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/** Keywords tidied: split on commas, trimmed, empty ones and repeats dropped, joined with ", ". */
export function tidyKeywords(raw: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const k of raw.split(/[,，]/)) {
    const t = k.trim();
    if (t && !seen.has(t.toLowerCase())) {
      seen.add(t.toLowerCase());
      out.push(t);
    }
  }
  return out.join(', ');
}

export function buildEntityEdit(original: EntityForm, form: EntityForm): Built<EntityEdit | null> {
  const name = tidy(form.name);
  const type = tidy(form.type);
  const description = tidy(form.description);
  if (name === '') return { ok: false, error: t('graph.errors.nameEmpty') };
  if (description === '') return { ok: false, error: t('graph.errors.descriptionEmpty') };
  const updatedData: EntityEdit['updatedData'] = {};
  const rename = name !== original.name ? name : null;
  if (rename) updatedData.entity_name = rename;
  if (type !== tidy(original.type)) updatedData.entity_type = type;
  if (description !== tidy(original.description)) updatedData.description = description;
  if (Object.keys(updatedData).length === 0) return { ok: true, value: null };
  return { ok: true, value: { entityName: original.name, updatedData, rename } };
}

export function buildRelationEdit(original: RelationForm, form: RelationForm): Built<RelationEdit | null> {
  const description = tidy(form.description);
  if (description === '') return { ok: false, error: t('graph.errors.descriptionEmpty') };
  const weight = parseWeight(form.weight);
  if (weight === null) return { ok: false, error: t('graph.errors.weight') };
  const keywords = tidyKeywords(form.keywords);
  const updatedData: RelationEdit['updatedData'] = {};
  if (description !== tidy(original.description)) updatedData.description = description;
  if (keywords !== tidyKeywords(original.keywords)) updatedData.keywords = keywords;
  if (weight !== parseWeight(original.weight)) updatedData.weight = weight;
  if (Object.keys(updatedData).length === 0) return { ok: true, value: null };
  return { ok: true, value: { updatedData } };
}

export function buildEntityCreate(form: EntityForm): Built<{ name: string; data: { entity_type: string; description: string } }> {
  const name = tidy(form.name);
  const description = tidy(form.description);
  if (name === '') return { ok: false, error: t('graph.errors.giveName') };
  if (description === '') return { ok: false, error: t('graph.errors.describeEntity') };
  return { ok: true, value: { name, data: { entity_type: tidy(form.type), description } } };
}

export interface RelationCreateForm extends RelationForm {
  source: string;
  target: string;
}

export function buildRelationCreate(
  form: RelationCreateForm,
): Built<{ source: string; target: string; data: { description: string; keywords: string; weight: number } }> {
  const source = tidy(form.source);
  const target = tidy(form.target);
  if (source === '' || target === '') return { ok: false, error: t('graph.errors.bothEntities') };
  if (source === target) return { ok: false, error: 'A relation links two different entities.' };
  const description = tidy(form.description);
  if (description === '') return { ok: false, error: t('graph.errors.describeRelation') };
  const weight = form.weight.trim() === '' ? 1 : parseWeight(form.weight);
  if (weight === null) return { ok: false, error: t('graph.errors.weight') };
  return { ok: true, value: { source, target, data: { description, keywords: tidyKeywords(form.keywords), weight } } };
}

export function buildMerge(selected: string[], target: string): Built<{ sources: string[]; target: string }> {
  const into = tidy(target);
  const sources = [...new Set(selected.map(tidy).filter((s) => s !== '' && s !== into))];
  if (into === '') return { ok: false, error: t('graph.errors.mergeTarget') };
  if (sources.length === 0) return { ok: false, error: t('graph.errors.mergeSources') };
  return { ok: true, value: { sources, target: into } };
}
