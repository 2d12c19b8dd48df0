import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ERROR_CODES,
  HttpError,
  NetworkError,
  NotFoundError,
  parseErrorBody,
  RateLimitedError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../../src/upstream/errors.js';
import { parseRateLimitHeaders, parseRetryAfter } from '../../src/upstream/response-meta.js';

describe('error bodies', () => {
  it('reads the flat shape {error, message}', () => {
    expect(parseErrorBody('{"error":"bad_request","message":"date_from must be YYYY-MM-DD"}')).toEqual({
      error: 'bad_request',
      message: 'date_from must be YYYY-MM-DD',
    });
  });

  it('reads the nested shape {error: {code, message}}', () => {
    expect(parseErrorBody('{"error":{"code":"INTERNAL","message":"oops"}}')).toEqual({
      error: 'INTERNAL',
      message: 'oops',
    });
  });

  it('reads the official shape {header: {error, error_code}} of main_ErrorResponse', () => {
    const header = { title: 'Event Details', generated_time: '2025-07-17T11:16:59.18904298Z', url: '/x' };
    expect(
      parseErrorBody(
        JSON.stringify({ header: { ...header, error: 'event not found', error_code: 'NOT_FOUND' } }),
      ),
    ).toEqual({ error: 'NOT_FOUND', message: 'event not found' });
    expect(parseErrorBody(JSON.stringify({ header: { ...header, error: 'invalid date' } }))).toEqual({
      error: 'invalid date',
    });
    expect(parseErrorBody(JSON.stringify({ header }))).toEqual({});
  });

  it('reads retry_after from a 429 body', () => {
    expect(parseErrorBody('{"error":"rate_limited","retry_after":12}')).toEqual({
      error: 'rate_limited',
      retryAfterSeconds: 12,
    });
  });

  it('survives bodies that are not JSON, not objects, or hold wrong types', () => {
    expect(parseErrorBody('<html>Bad Gateway</html>')).toEqual({ message: '<html>Bad Gateway</html>' });
    expect(parseErrorBody('')).toEqual({});
    expect(parseErrorBody('null')).toEqual({});
    expect(parseErrorBody('[1,2]')).toEqual({});
    expect(parseErrorBody('{"error":5,"message":[],"retry_after":-1}')).toEqual({});
  });
});

describe('error classes', () => {
  it('carry a code, a status, their class name and a message naming the path and the upstream reason', () => {
    const e = new NotFoundError(404, '/events/x', { error: 'not_found', message: 'no such event' });
    expect(e).toBeInstanceOf(HttpError);
    expect(e).toMatchObject({
      name: 'NotFoundError',
      code: 'UPSTREAM_NOT_FOUND',
      status: 404,
      retryable: false,
      upstreamError: 'not_found',
      message: 'upstream 404 on /events/x (not_found: no such event)',
    });
    expect(new BadRequestError(400, '/meetings', {})).toMatchObject({
      code: 'UPSTREAM_BAD_REQUEST',
      retryable: false,
    });
    expect(new ServerError(503, '/meetings', {})).toMatchObject({
      code: 'UPSTREAM_SERVER_ERROR',
      retryable: true,
    });
    expect(new RateLimitedError('/meetings', {}, 3_000)).toMatchObject({ status: 429, retryAfterMs: 3_000 });
    expect(new TimeoutError('/events/x', 50)).toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      status: undefined,
      message: 'upstream timed out after 50 ms on /events/x',
    });
  });

  it('names the underlying reason of a connection failure', () => {
    const cause = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
    expect(new NetworkError('/meetings', cause).message).toBe(
      'upstream connection failed on /meetings: fetch failed (connect ECONNREFUSED 127.0.0.1:1)',
    );
  });

  it('lists at most three validation issues in the message', () => {
    const issues = ['a', 'b', 'c', 'd', 'e'].map((p) => ({ path: `data.${p}`, message: 'expected string' }));
    expect(new ValidationError('/x', 200, issues).message).toBe(
      'upstream payload on /x failed validation: data.a: expected string; data.b: expected string; data.c: expected string (+2 more)',
    );
  });

  it('are all documented in docs/upstream-client.md', () => {
    const doc = readFileSync(new URL('../../docs/upstream-client.md', import.meta.url), 'utf8');
    for (const code of Object.keys(ERROR_CODES)) expect(doc).toContain(`\`${code}\``);
  });
});

describe('rate-limit headers', () => {
  const h = (o: Record<string, string>) => new Headers(o);

  it('reads limit, remaining, reset in seconds and Retry-After', () => {
    expect(
      parseRateLimitHeaders(
        h({
          'X-RateLimit-Limit': '100',
          'X-RateLimit-Remaining': '7',
          'X-RateLimit-Reset': '30',
          'Retry-After': '4',
        }),
        0,
      ),
    ).toEqual({ limit: 100, remaining: 7, resetMs: 30_000, retryAfterMs: 4_000 });
  });

  it('reads a reset given as an epoch in seconds or in milliseconds', () => {
    const now = 1_700_000_000_000;
    expect(parseRateLimitHeaders(h({ 'x-ratelimit-reset': '1700000045' }), now).resetMs).toBe(45_000);
    expect(parseRateLimitHeaders(h({ 'x-ratelimit-reset': '1700000002500' }), now).resetMs).toBe(2_500);
  });

  it('drops values that are not non-negative numbers', () => {
    expect(
      parseRateLimitHeaders(
        h({ 'x-ratelimit-limit': 'lots', 'x-ratelimit-remaining': '-1', 'retry-after': '' }),
        0,
      ),
    ).toEqual({});
  });

  it('reads Retry-After as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:09 GMT', now)).toBe(9_000);
    expect(parseRetryAfter('whenever', now)).toBeUndefined();
  });
});
