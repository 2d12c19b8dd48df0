/**
 * What a subscription asks for beyond its channel: a field projection and conflation. Options belong to
 * the channel and apply to the streams it attaches.
 */
import type { Scope } from './auth.js';
import { type Projection, parseProjection } from './projection.js';

export interface StreamOptions {
  projection?: Projection;
  /** At most one merged patch per stream per this many wall-clock milliseconds. */
  conflateMs?: number;
}

export const MIN_CONFLATE_MS = 100;
export const MAX_CONFLATE_MS = 60_000;

export type OptionsResult = { ok: true; options: StreamOptions } | { ok: false; message: string };

export function parseStreamOptions(raw: { fields?: readonly string[]; conflateMs?: number }): OptionsResult {
  const options: StreamOptions = {};
  if (raw.fields !== undefined) {
    const p = parseProjection(raw.fields);
    if (!p.ok) return p;
    options.projection = p.projection;
  }
  if (raw.conflateMs !== undefined) {
    const ms = raw.conflateMs;
    if (!Number.isInteger(ms) || ms < MIN_CONFLATE_MS || ms > MAX_CONFLATE_MS)
      return {
        ok: false,
        message: `conflateMs: an integer from ${MIN_CONFLATE_MS} to ${MAX_CONFLATE_MS}`,
      };
    options.conflateMs = ms;
  }
  return { ok: true, options };
}

/** Subscribers with the same variant receive byte-identical stream messages. */
export const variantKey = (scope: Scope, options: StreamOptions) =>
  options.projection ? `${scope}|${options.projection.key}` : scope;
