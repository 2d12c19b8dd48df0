import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataDigest } from '../../src/upstream/data-digest.js';

const real = readFileSync(new URL('../fixtures/real/event-final-awapuni.json', import.meta.url), 'utf8');
/** Envelopes as upstream varies them, with strings that look like members to a careless scanner. */
const header = fc.record({
  title: fc.oneof(fc.string(), fc.constant('"data": {"x": 1}, \\"')),
  generated_time: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  nested: fc.jsonValue({ maxDepth: 3 }),
});
const body = (h: unknown, data: unknown, pretty: boolean) =>
  JSON.stringify(
    { header: h, params: { id: 'r1', data: 'not this one' }, data },
    null,
    pretty ? 2 : undefined,
  );

describe('dataDigest', () => {
  it('is equal for equal data under any envelope, and differs whenever the data text differs', () => {
    fc.assert(
      fc.property(header, header, fc.jsonValue(), fc.jsonValue(), fc.boolean(), (h1, h2, d1, d2, pretty) => {
        const a = dataDigest(body(h1, d1, pretty));
        const b = dataDigest(body(h2, d2, pretty));
        expect(a).toBeDefined();
        expect(a === b).toBe(
          JSON.stringify(d1, null, pretty ? 2 : undefined).replace(/\n/g, '\n  ') ===
            JSON.stringify(d2, null, pretty ? 2 : undefined).replace(/\n/g, '\n  '),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('sees a change in the real payload that is one character long', () => {
    const json = JSON.parse(real);
    const before = dataDigest(real);
    json.header.generated_time = '2025-07-17T11:17:05.000000001Z';
    expect(dataDigest(JSON.stringify(json))).toBe(before);
    json.data.runners[3].odds.fixed_win += 0.1;
    expect(dataDigest(JSON.stringify(json))).not.toBe(before);
  });

  it('counts members after data, so a later duplicate data (the one JSON.parse keeps) is seen', () => {
    const first = dataDigest('{"data":{"a":1},"data":{"a":2}}');
    expect(first).not.toBe(dataDigest('{"data":{"a":1},"data":{"a":3}}'));
  });

  it('gives nothing for a body without a top-level data member, or that is not an object', () => {
    for (const text of [
      '{"header":{"data":1}}',
      '[{"data":1}]',
      '',
      '{"header":"unterminated',
      '{"dat\\u0061":1}',
    ]) {
      expect(dataDigest(text)).toBeUndefined();
    }
  });
});
