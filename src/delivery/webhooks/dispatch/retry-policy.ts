/**
 * What one attempt's outcome means for the delivery and its endpoint: pure, so the schedule, Retry-After and
 * disabling rules are tested without a network.
 */

export type EndpointKind = 'standard' | 'slack' | 'discord';

/** What the sender observed. `status` is absent when no response came (timeout, refused, DNS, SSRF). */
export interface AttemptResult {
  status?: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  error?: string;
}

export type Decision =
  | { kind: 'delivered' }
  /** Try again at `at`. `pauseEndpointUntil` holds every delivery of the endpoint (rate limits). */
  | { kind: 'retry'; at: number; pauseEndpointUntil?: number }
  /** The schedule is used up. */
  | { kind: 'failed' }
  /** The endpoint is gone: disable it; the delivery stays pending for a replay after re-enabling. */
  | { kind: 'disable'; reason: string };

export interface PolicyInput {
  kind: EndpointKind;
  /** Attempts made so far, including this one. */
  attempts: number;
  now: number;
  schedule: number[];
  jitter: number;
  maxRetryAfterMs: number;
  /** In [0, 1). */
  random: number;
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; Discord also puts `retry_after` (s) in the body. */
export function retryAfterMs(result: AttemptResult, now: number, kind: EndpointKind): number | undefined {
  const header = result.headers['retry-after'];
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined) {
    const seconds = Number(value);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  if (kind === 'discord') {
    try {
      const parsed: unknown = JSON.parse(result.body);
      const s = (parsed as { retry_after?: unknown } | null)?.retry_after;
      if (typeof s === 'number' && Number.isFinite(s) && s >= 0) return Math.ceil(s * 1000);
    } catch {
      // Not JSON: no hint.
    }
  }
  return undefined;
}

/** Delay before the retry that follows attempt number `attempts` (1-based), with jitter; undefined when used up. */
export function backoffMs(
  attempts: number,
  schedule: number[],
  jitter: number,
  random: number,
): number | undefined {
  const base = schedule[attempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - jitter + 2 * jitter * random));
}

function isPermanentFailure(kind: EndpointKind, status: number): boolean {
  if (status === 410) return true;
  // Slack answers 404 (no_service / channel_not_found) for removed hooks; Discord 404 Unknown Webhook.
  if (kind === 'slack') return status === 404;
  if (kind === 'discord') return status === 404 || status === 401;
  return false;
}

export function decide(result: AttemptResult, input: PolicyInput): Decision {
  const { status } = result;
  if (status !== undefined && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status !== undefined && isPermanentFailure(input.kind, status)) {
    return { kind: 'disable', reason: `the endpoint answered ${status}` };
  }
  if (status === 429 || status === 503) {
    const hint = retryAfterMs(result, input.now, input.kind);
    if (hint !== undefined) {
      const wait = Math.min(hint, input.maxRetryAfterMs);
      // A rate limit is the receiver asking us to wait, not a failure of this message: it does not use up
      // the schedule, but a receiver that keeps asking is bounded by the schedule's length all the same.
      if (input.attempts <= input.schedule.length * 2) {
        return { kind: 'retry', at: input.now + wait, pauseEndpointUntil: input.now + wait };
      }
    }
  }
  // 3xx (redirects are not followed), other 4xx/5xx and network errors: retry on the schedule.
  const delay = backoffMs(input.attempts, input.schedule, input.jitter, input.random);
  return delay === undefined ? { kind: 'failed' } : { kind: 'retry', at: input.now + delay };
}

/** Whether an outcome counts as a failure of the endpoint (for disable-after-days). */
export const isFailure = (d: Decision) =>
  d.kind !== 'delivered' && !(d.kind === 'retry' && d.pauseEndpointUntil);
