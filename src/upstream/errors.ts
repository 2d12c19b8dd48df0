/**
 * Every way an upstream call can fail, as typed errors. The racing client's methods resolve with a validated
 * payload or reject with exactly one of these (never a bare Error, never a zod error), so callers can switch
 * on `code`. `ERROR_CODES` is the one registry: docs/upstream-client.md must list every code in it (a test
 * checks).
 */
import type { ResponseMeta } from './response-meta.js';

export const ERROR_CODES = {
  UPSTREAM_BAD_REQUEST: { status: 400, retried: false, description: 'invalid parameter (e.g. a bad date)' },
  UPSTREAM_NOT_FOUND: { status: 404, retried: false, description: 'unknown meeting, race or event id' },
  UPSTREAM_RATE_LIMITED: {
    status: 429,
    retried: true,
    description: 'server budget exceeded; the limiter pauses for Retry-After, then retries',
  },
  UPSTREAM_SERVER_ERROR: { status: 500, retried: true, description: '5xx; retried with back-off' },
  UPSTREAM_HTTP_ERROR: {
    status: null,
    retried: false,
    description: 'any other non-2xx status (401, 403, ...)',
  },
  UPSTREAM_TIMEOUT: { status: null, retried: true, description: 'no complete response within timeoutMs' },
  UPSTREAM_NETWORK_ERROR: { status: null, retried: true, description: 'connection refused, reset, DNS, ...' },
  UPSTREAM_INVALID_JSON: { status: null, retried: false, description: 'a 2xx body that is not JSON' },
  UPSTREAM_INVALID_PAYLOAD: {
    status: null,
    retried: false,
    description: 'JSON that does not match the schema; the message names the path',
  },
} as const;

export type UpstreamErrorCode = keyof typeof ERROR_CODES;

export abstract class UpstreamError extends Error {
  abstract readonly code: UpstreamErrorCode;
  /** HTTP status when a response arrived, else undefined. */
  readonly status: number | undefined;
  /** Whether the client retries this failure (when attempts are left). */
  readonly retryable: boolean;
  /** Metadata of the response (or attempt) that failed, when known. */
  meta?: ResponseMeta;

  constructor(message: string, opts: { status?: number; retryable: boolean; cause?: unknown }) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = this.constructor.name;
    this.status = opts.status;
    this.retryable = opts.retryable;
  }
}

/** What an error body said, from either shape: `{error, message}` or `{error: {code, message}}`. */
export interface ErrorBody {
  /** `error` (string) or `error.code`. */
  error?: string;
  message?: string;
  /** Body `retry_after`, in seconds (429). */
  retryAfterSeconds?: number;
}

/** Reads an error body defensively: any shape, any garbage, never throws. */
export function parseErrorBody(text: string): ErrorBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim() ? { message: text.trim().slice(0, 200) } : {};
  }
  if (!body || typeof body !== 'object') return {};
  const b = body as Record<string, unknown>;
  const out: ErrorBody = {};
  if (typeof b.error === 'string') out.error = b.error;
  else if (b.error && typeof b.error === 'object') {
    const nested = b.error as Record<string, unknown>;
    if (typeof nested.code === 'string') out.error = nested.code;
    if (typeof nested.message === 'string') out.message = nested.message;
  }
  if (typeof b.message === 'string' && out.message === undefined) out.message = b.message;
  if (typeof b.retry_after === 'number' && Number.isFinite(b.retry_after) && b.retry_after >= 0)
    out.retryAfterSeconds = b.retry_after;
  return out;
}

function describe(status: number, path: string, body: ErrorBody): string {
  const detail = [body.error, body.message].filter(Boolean).join(': ');
  return `upstream ${status} on ${path}${detail ? ` (${detail})` : ''}`;
}

/** A non-2xx response. Subclasses name the statuses callers act on. */
export class HttpError extends UpstreamError {
  readonly code: UpstreamErrorCode = 'UPSTREAM_HTTP_ERROR';
  /** The body's `error` string or `error.code`. */
  readonly upstreamError: string | undefined;
  readonly upstreamMessage: string | undefined;
  constructor(status: number, path: string, body: ErrorBody, retryable = false) {
    super(describe(status, path, body), { status, retryable });
    this.upstreamError = body.error;
    this.upstreamMessage = body.message;
  }
}

export class BadRequestError extends HttpError {
  override readonly code = 'UPSTREAM_BAD_REQUEST' as const;
}

export class NotFoundError extends HttpError {
  override readonly code = 'UPSTREAM_NOT_FOUND' as const;
}

export class ServerError extends HttpError {
  override readonly code = 'UPSTREAM_SERVER_ERROR' as const;
  constructor(status: number, path: string, body: ErrorBody) {
    super(status, path, body, true);
  }
}

export class RateLimitedError extends HttpError {
  override readonly code = 'UPSTREAM_RATE_LIMITED' as const;
  /** How long the server asked us to wait (Retry-After header, else body retry_after, else the default). */
  readonly retryAfterMs: number;
  constructor(path: string, body: ErrorBody, retryAfterMs: number) {
    super(429, path, body, true);
    this.retryAfterMs = retryAfterMs;
  }
}

export class TimeoutError extends UpstreamError {
  readonly code = 'UPSTREAM_TIMEOUT' as const;
  constructor(path: string, timeoutMs: number) {
    super(`upstream timed out after ${timeoutMs} ms on ${path}`, { retryable: true });
  }
}

export class NetworkError extends UpstreamError {
  readonly code = 'UPSTREAM_NETWORK_ERROR' as const;
  constructor(path: string, cause: unknown) {
    super(`upstream connection failed on ${path}: ${causeMessage(cause)}`, { retryable: true, cause });
  }
}

export class InvalidJsonError extends UpstreamError {
  readonly code = 'UPSTREAM_INVALID_JSON' as const;
  constructor(path: string, status: number, cause: unknown) {
    super(`upstream sent invalid JSON on ${path}: ${causeMessage(cause)}`, {
      status,
      retryable: false,
      cause,
    });
  }
}

export interface ValidationIssue {
  /** Dotted path into the body, e.g. `data.race.event_id` or `data.runners[0].name`. */
  path: string;
  message: string;
}

export class ValidationError extends UpstreamError {
  readonly code = 'UPSTREAM_INVALID_PAYLOAD' as const;
  readonly issues: ValidationIssue[];
  constructor(path: string, status: number, issues: ValidationIssue[]) {
    const shown = issues
      .slice(0, 3)
      .map((i) => `${i.path}: ${i.message}`)
      .join('; ');
    const more = issues.length > 3 ? ` (+${issues.length - 3} more)` : '';
    super(`upstream payload on ${path} failed validation: ${shown}${more}`, { status, retryable: false });
    this.issues = issues;
  }
}

function causeMessage(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    // undici wraps the real reason (ECONNREFUSED, ...) in `cause`.
    if (inner instanceof Error) return `${cause.message} (${inner.message})`;
    return cause.message;
  }
  return String(cause);
}
