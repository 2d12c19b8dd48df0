import { describe, expect, it } from 'vitest';
import { refusedForGood } from './handshake.js';

describe('a failed handshake', () => {
  it('is final for a 4xx answer to the upgrade (a wrong path or key)', () => {
    expect(refusedForGood('Unexpected server response: 404')).toBe(404);
    expect(refusedForGood('Unexpected server response: 401')).toBe(401);
  });

  it('is retried for 408, 429, 5xx and network errors', () => {
    for (const message of [
      'Unexpected server response: 408',
      'Unexpected server response: 429',
      'Unexpected server response: 503',
      'connect ECONNREFUSED 127.0.0.1:8080',
      undefined,
    ]) {
      expect(refusedForGood(message)).toBeUndefined();
    }
  });
});
