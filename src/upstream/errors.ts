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
  UPSTREAM_PARAMS_MISMATCH: {
    status: null,
    retried: false,
    description: 'the echoed params do not match the request (a page of another query is not data)',
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

/**
 * What an error body said, from any of its three shapes: the spec's `{error, message}`, the nested
 * `{error: {code, message}}`, and the official description's `{header: {error, error_code}}`
 * (`main_ErrorResponse`, whose header is the REST envelope's).
 */
export interface ErrorBody {
  /** `error` (string), `error.code`, or `header.error_code` (else `header.error`). */
  error?: string;
  /** `message`, `error.message`, or `header.error` when `header.error_code` names the code. */
  message?: string;
  /** Body `retry_after`, in seconds (429). */
  retryAfterSeconds?: number;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** Reads an error body defensively: any shape, any garbage, never throws. */
export function parseErrorBody(raw: string): ErrorBody {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return raw.trim() ? { message: raw.trim().slice(0, 200) } : {};
  }
  if (!body || typeof body !== 'object') return {};
  const b = body as Record<string, unknown>;
  const [error, nestedMessage] = errorAndMessage(b);
  const message = nestedMessage ?? text(b.message);
  const out: ErrorBody = {};
  if (error !== undefined) out.error = error;
  if (message !== undefined) out.message = message;
  if (typeof b.retry_after === 'number' && Number.isFinite(b.retry_after) && b.retry_after >= 0)
    out.retryAfterSeconds = b.retry_after;
  return out;
}

function errorAndMessage(b: Record<string, unknown>): [string | undefined, string | undefined] {
  if (typeof b.error === 'string') return [b.error, undefined];
  if (b.error && typeof b.error === 'object') {
    const nested = b.error as Record<string, unknown>;
    return [text(nested.code), text(nested.message)];
  }
  if (b.header && typeof b.header === 'object') {
    const header = b.header as Record<string, unknown>;
    const code = text(header.error_code);
    return code ? [code, text(header.error)] : [text(header.error), undefined];
  }
  return [undefined, undefined];
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

/** A 2xx answer whose echoed `params` say it answers another request (other dates, limit or offset). */
export class ParamsMismatchError extends UpstreamError {
  readonly code = 'UPSTREAM_PARAMS_MISMATCH' as const;
  /** Each parameter that differs: what was asked and what the response echoed. */
  readonly mismatches: { name: string; asked: unknown; echoed: unknown }[];
  constructor(path: string, status: number, mismatches: { name: string; asked: unknown; echoed: unknown }[]) {
    const shown = mismatches
      .map((m) => `${m.name} asked ${JSON.stringify(m.asked)}, echoed ${JSON.stringify(m.echoed)}`)
      .join('; ');
    super(`upstream response on ${path} answers another request: ${shown}`, { status, retryable: false });
    this.mismatches = mismatches;
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
