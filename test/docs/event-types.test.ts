/** docs/events.md documents every event type the SDK lists, and the market thresholds the code defaults to. */
import { readFileSync } from 'node:fs';
import { EVENT_TYPES } from '@racewire/client/protocol';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MARKET_THRESHOLDS } from '../../src/watch/detect/market-thresholds.js';

const doc = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
const headings = doc.split('\n').filter((l) => l.startsWith('### '));

describe('docs/events.md', () => {
  it('has a section for every event type', () => {
    const missing = EVENT_TYPES.filter((t) => !headings.some((h) => h.slice(4).split(' / ').includes(t)));
    expect(missing).toEqual([]);
  });

  it('states the market thresholds the code defaults to', () => {
    for (const [name, value] of Object.entries(DEFAULT_MARKET_THRESHOLDS)) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${name}\` |`));
      const shown = Array.isArray(value) ? value.join('/') : String(value);
      expect(row, name).toContain(`| \`${shown}\` |`);
    }
  });
});
