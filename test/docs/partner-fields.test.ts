/** The partner-only field list in docs/operations.md is the one the code redacts, field for field. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RESTRICTED_ENTRANT_FIELDS, RESTRICTED_RACE_FIELDS } from '../../src/events/restricted-fields.js';

const doc = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
const listed = (label: string) => {
  const line = doc.split('\n').find((l) => l.startsWith(`- ${label}`));
  return [...(line ?? '').matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1]);
};

describe('the documented partner-only fields', () => {
  it('are exactly the redacted ones', () => {
    expect(listed('race fields').sort()).toEqual([...RESTRICTED_RACE_FIELDS].sort());
    expect(listed('runner fields').sort()).toEqual([...RESTRICTED_ENTRANT_FIELDS].sort());
  });
});
