/**
 * One HTTP attempt and the reading of its outcome. `sendOnce` is the I/O (fetch with a timeout on the injected
 * wall clock, the whole body read inside the timeout: the provider sees real seconds, whatever race time does); `interpret` is pure: status + body -> a validated payload or
 * a typed error. Retrying and rate limiting live in the client and the limiter, not here.
 */
import type { z } from 'zod';
import type { Clock } from '../clock.js';
import { linkSignals } from '../linked-signal.js';
import {
  BadRequestError,
  HttpError,
  InvalidJsonError,
  NetworkError,
  NotFoundError,
  parseErrorBody,
  RateLimitedError,
  ServerError,
  TimeoutError,
  type UpstreamError,
  ValidationError,
  type ValidationIssue,
} from './errors.js';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  latencyMs: number;
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Why an attempt's timeout timer is stopped: the attempt ended first. A reason given saves the DOMException
 * `abort()` would build (and its stack) on every request (1 % of the soak's CPU); nothing reads it.
 */
const ANSWERED = Symbol('answered');

export async function sendOnce(args: {
  fetch: FetchLike;
  url: string;
  path: string;
  headers: Record<string, string>;
  wall: Clock;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<RawResponse> {
  const { wall, timeoutMs, path } = args;
  const started = wall.now();
  const abort = new AbortController();
  const stopTimer = new AbortController();
  let timedOut = false;
  wall.sleep(timeoutMs, stopTimer.signal).then(
    () => {
      timedOut = true;
      abort.abort(new TimeoutError(path, timeoutMs));
    },
    () => {}, // the attempt finished first
  );
  const linked = args.signal ? linkSignals(abort.signal, args.signal) : undefined;
  const signal = linked?.signal ?? abort.signal;
  try {
    const res = await args.fetch(args.url, { method: 'GET', headers: args.headers, signal });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, latencyMs: wall.now() - started };
  } catch (err) {
    if (timedOut) throw new TimeoutError(path, timeoutMs);
    if (args.signal?.aborted) throw args.signal.reason;
    throw new NetworkError(path, err);
  } finally {
    stopTimer.abort(ANSWERED);
    linked?.dispose();
  }
}

/** `data.runners[0].name` from zod's path segments. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out || '(root)';
}

export function validationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: formatPath(issue.path),
    message: issue.message.replace(/^Invalid input: /, ''),
  }));
}

/**
 * Turns a response into a validated body or a typed error (returned, not thrown, so the caller decides).
 * `retryAfterMs` is only consulted for a 429: it receives the body's `retry_after` and returns the wait.
 */
export function interpret<S extends z.ZodType>(
  raw: RawResponse,
  path: string,
  schema: S,
  retryAfterMs: (bodySeconds: number | undefined) => number,
): { ok: true; value: z.infer<S> } | { ok: false; error: UpstreamError } {
  const { status } = raw;
  if (status >= 200 && status < 300) {
    let body: unknown;
    try {
      body = JSON.parse(raw.text);
    } catch (err) {
      return { ok: false, error: new InvalidJsonError(path, status, err) };
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success)
      return { ok: false, error: new ValidationError(path, status, validationIssues(parsed.error)) };
    return { ok: true, value: parsed.data };
  }
  const body = parseErrorBody(raw.text);
  if (status === 429)
    return { ok: false, error: new RateLimitedError(path, body, retryAfterMs(body.retryAfterSeconds)) };
  if (status === 400) return { ok: false, error: new BadRequestError(status, path, body) };
  if (status === 404) return { ok: false, error: new NotFoundError(status, path, body) };
  if (status >= 500) return { ok: false, error: new ServerError(status, path, body) };
  return { ok: false, error: new HttpError(status, path, body) };
}
