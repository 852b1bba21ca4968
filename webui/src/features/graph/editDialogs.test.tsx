// The edit dialogs show the record they edit in their first render: a dialog that filled its form
// in an effect painted one frame with an empty name first, and the browser test read it under load
// (regression: "entity editor opened with an empty name").
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { GraphActions } from './actions';
import { EditEntityDialog } from './EditEntityDialog';
import { EditRelationDialog } from './EditRelationDialog';

const actions = {} as GraphActions;
const noop = () => {};

describe('edit dialogs', () => {
  it('the entity editor opens with the name, type and description filled in', () => {
    const html = renderToStaticMarkup(
      <EditEntityDialog
        entity={{ name: 'Ada Lovelace', type: 'person', description: 'Wrote the first program.' }}
        actions={actions}
        blocked={null}
        knownTypes={['person']}
        onClose={noop}
        onDone={noop}
      />,
    );
    expect(html).toContain('value="Ada Lovelace"');
    expect(html).toContain('Wrote the first program.');
  });

  it('the relation editor opens with the description, keywords and weight filled in', () => {
    const html = renderToStaticMarkup(
      <EditRelationDialog
        relation={{ edge: 'e1', source: 'Ada', target: 'Babbage', description: 'Corresponded.', keywords: 'letters', weight: '2' }}
        actions={actions}
        blocked={null}
        onClose={noop}
        onDone={noop}
      />,
    );
    expect(html).toContain('Corresponded.');
    expect(html).toContain('value="letters"');
  });
});
