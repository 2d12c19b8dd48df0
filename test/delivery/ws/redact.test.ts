import { describe, expect, it } from 'vitest';
import { redactOps, redactValue } from '../../../src/delivery/core/redact.js';

describe('redactValue', () => {
  it('removes restricted keys at any depth and keeps everything else', () => {
    const doc = {
      race: { event_id: 'R1', class: 'BM70', track_surface: 'Dirt', distance: 1200 },
      runners: { E1: { entrant_id: 'E1', form_comment: 'x', odds: { win: 2 } } },
      list: [{ spr: 1, name: 'a' }],
    };
    expect(redactValue(doc)).toEqual({
      race: { event_id: 'R1', distance: 1200 },
      runners: { E1: { entrant_id: 'E1', odds: { win: 2 } } },
      list: [{ name: 'a' }],
    });
    expect(doc.race.class).toBe('BM70'); // the input is not modified
  });

  it('returns the same object when nothing is restricted', () => {
    const doc = { race: { event_id: 'R1' } };
    expect(redactValue(doc)).toBe(doc);
  });
});

describe('redactOps', () => {
  it('drops ops on restricted paths, redacts values and turns a move into a restricted path into a remove', () => {
    expect(
      redactOps([
        { op: 'replace', path: '/race/class', value: 'G1' },
        { op: 'add', path: '/runners/E1/last_starts/0', value: '1' },
        { op: 'replace', path: '/runners/E1/odds/win', value: 3 },
        { op: 'add', path: '/runners/E3', value: { entrant_id: 'E3', win_p: 0.2 } },
        { op: 'move', from: '/runners/E1/note', path: '/runners/E1/form_comment' },
        { op: 'copy', from: '/runners/E1/spr', path: '/runners/E1/copy' },
        { op: 'test', path: '/race/gait', value: 'trot' },
      ]),
    ).toEqual([
      { op: 'replace', path: '/runners/E1/odds/win', value: 3 },
      { op: 'add', path: '/runners/E3', value: { entrant_id: 'E3' } },
      { op: 'remove', path: '/runners/E1/note' },
    ]);
  });

  it('decodes escaped pointer tokens before checking them', () => {
    expect(redactOps([{ op: 'remove', path: '/a~1b/spr' }])).toEqual([]);
    expect(redactOps([{ op: 'remove', path: '/a~1spr' }])).toEqual([{ op: 'remove', path: '/a~1spr' }]);
  });
});
