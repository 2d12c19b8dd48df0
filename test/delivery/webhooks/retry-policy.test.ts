import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE } from '../../../src/delivery/webhooks/config.js';
import {
  type AttemptResult,
  backoffMs,
  decide,
  retryAfterMs,
} from '../../../src/delivery/webhooks/dispatch/retry-policy.js';

const base = {
  kind: 'standard' as const,
  now: 1_000_000,
  schedule: DEFAULT_RETRY_SCHEDULE,
  jitter: 0.1,
  maxRetryAfterMs: 86_400_000,
  random: 0.5,
};
const res = (status?: number, headers: AttemptResult['headers'] = {}, body = ''): AttemptResult => ({
  status,
  headers,
  body,
});

describe('retry policy', () => {
  it('follows 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h and then gives up', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n, DEFAULT_RETRY_SCHEDULE, 0.1, 0.5));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(decide(res(500), { ...base, attempts: 8 })).toEqual({ kind: 'failed' });
  });

  it('spreads retries by up to the jitter fraction either way', () => {
    expect(backoffMs(1, DEFAULT_RETRY_SCHEDULE, 0.1, 0)).toBe(4_500);
    expect(backoffMs(1, DEFAULT_RETRY_SCHEDULE, 0.1, 0.999999)).toBe(5_500);
  });

  it('treats 2xx as delivered and 3xx, 4xx, 5xx and network errors as retryable', () => {
    expect(decide(res(204), { ...base, attempts: 1 })).toEqual({ kind: 'delivered' });
    for (const r of [
      res(302, { location: 'http://elsewhere' }),
      res(400),
      res(500),
      { headers: {}, body: '', error: 'ECONNREFUSED' },
    ]) {
      expect(decide(r, { ...base, attempts: 1 })).toEqual({ kind: 'retry', at: base.now + 5_000 });
    }
  });

  it('honours Retry-After in seconds or as an HTTP date on 429 and 503', () => {
    expect(decide(res(429, { 'retry-after': '120' }), { ...base, attempts: 1 })).toEqual({
      kind: 'retry',
      at: base.now + 120_000,
      pauseEndpointUntil: base.now + 120_000,
    });
    const date = new Date(base.now + 60_000).toUTCString();
    expect(retryAfterMs(res(503, { 'retry-after': date }), base.now, 'standard')).toBe(60_000);
    expect(decide(res(429), { ...base, attempts: 1 })).toEqual({ kind: 'retry', at: base.now + 5_000 });
  });

  it('reads Discord retry_after (seconds) from the body', () => {
    expect(retryAfterMs(res(429, {}, '{"message":"rate limited","retry_after":1.5}'), 0, 'discord')).toBe(
      1_500,
    );
    expect(retryAfterMs(res(429, {}, 'not json'), 0, 'discord')).toBeUndefined();
  });

  it('disables on 410, and on Slack 404 and Discord 404', () => {
    expect(decide(res(410), { ...base, attempts: 1 })).toEqual({
      kind: 'disable',
      reason: 'the endpoint answered 410',
    });
    expect(decide(res(404), { ...base, kind: 'slack', attempts: 1 }).kind).toBe('disable');
    expect(decide(res(404), { ...base, kind: 'discord', attempts: 1 }).kind).toBe('disable');
    expect(decide(res(404), { ...base, attempts: 1 }).kind).toBe('retry');
  });
});
