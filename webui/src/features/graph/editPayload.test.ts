import { describe, expect, it } from 'vitest';
import {
  buildEntityCreate,
  buildEntityEdit,
  buildMerge,
  buildRelationCreate,
  buildRelationEdit,
  parseWeight,
  tidyKeywords,
} from './editPayload';

const entity = { name: 'Alice', type: 'person', description: 'A person.' };
const relation = { description: 'They met.', keywords: 'meeting, friendship', weight: '1' };

describe('entity edit payload', () => {
  it('sends only what changed', () => {
    expect(buildEntityEdit(entity, { ...entity, description: ' New text. ' })).toEqual({
      ok: true,
      value: { entityName: 'Alice', updatedData: { description: 'New text.' }, rename: null },
    });
    expect(buildEntityEdit(entity, { ...entity, type: 'Organization' })).toMatchObject({
      value: { updatedData: { entity_type: 'Organization' } },
    });
  });

  it('marks a rename', () => {
    expect(buildEntityEdit(entity, { ...entity, name: ' Alice Smith ' })).toEqual({
      ok: true,
      value: { entityName: 'Alice', updatedData: { entity_name: 'Alice Smith' }, rename: 'Alice Smith' },
    });
  });

  it('gives null when nothing changed (whitespace only)', () => {
    expect(buildEntityEdit(entity, { ...entity, description: 'A person.  ' })).toEqual({ ok: true, value: null });
  });

  it('refuses an empty name or description', () => {
    expect(buildEntityEdit(entity, { ...entity, name: '  ' })).toMatchObject({ ok: false });
    expect(buildEntityEdit(entity, { ...entity, description: '\n' })).toEqual({
      ok: false,
      error: 'The description cannot be empty.',
    });
  });
});

describe('relation edit payload', () => {
  it('sends changed fields with a numeric weight and tidy keywords', () => {
    expect(buildRelationEdit(relation, { description: 'They met.', keywords: 'meeting,  friendship ,, rivalry', weight: '2,5' })).toEqual({
      ok: true,
      value: { updatedData: { keywords: 'meeting, friendship, rivalry', weight: 2.5 } },
    });
  });

  it('gives null when unchanged, refuses a bad weight or empty description', () => {
    expect(buildRelationEdit(relation, { ...relation, weight: '1.0' })).toEqual({ ok: true, value: null });
    expect(buildRelationEdit(relation, { ...relation, weight: '-1' })).toMatchObject({ ok: false });
    expect(buildRelationEdit(relation, { ...relation, weight: 'abc' })).toMatchObject({ ok: false });
    expect(buildRelationEdit(relation, { ...relation, description: '' })).toMatchObject({ ok: false });
  });

  it('parses weights and keywords', () => {
    expect(parseWeight(' 3 ')).toBe(3);
    expect(parseWeight('')).toBeNull();
    expect(parseWeight('Infinity')).toBeNull();
    expect(tidyKeywords('A, a, b，c')).toBe('A, b, c');
  });
});

describe('create and merge payloads', () => {
  it('builds an entity creation', () => {
    expect(buildEntityCreate({ name: ' Zed ', type: ' place ', description: ' A town. ' })).toEqual({
      ok: true,
      value: { name: 'Zed', data: { entity_type: 'place', description: 'A town.' } },
    });
    expect(buildEntityCreate({ name: 'Zed', type: '', description: '' })).toMatchObject({ ok: false });
  });

  it('builds a relation creation with a default weight', () => {
    expect(buildRelationCreate({ source: 'A', target: 'B', description: 'd', keywords: 'k1,k2', weight: '' })).toEqual({
      ok: true,
      value: { source: 'A', target: 'B', data: { description: 'd', keywords: 'k1, k2', weight: 1 } },
    });
    expect(buildRelationCreate({ source: 'A', target: 'A', description: 'd', keywords: '', weight: '' })).toMatchObject({
      ok: false,
    });
  });

  it('builds a merge without the target among the sources', () => {
    expect(buildMerge(['A', 'B', 'A', 'C'], 'B')).toEqual({ ok: true, value: { sources: ['A', 'C'], target: 'B' } });
    expect(buildMerge(['B'], 'B')).toMatchObject({ ok: false });
    expect(buildMerge(['A'], '')).toMatchObject({ ok: false });
  });
});
