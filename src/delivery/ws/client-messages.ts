/**
 * Strict validation of what clients send (DESIGN principle 5): every bad input becomes an error value
 * with a protocol code, never an exception that could reach the socket handler.
 */

import type { ClientMessage, ErrorCode } from '@racewire/client/protocol';
import { z } from 'zod';

const id = z.string().min(1).max(128);
const reqId = z.string().max(64).optional();
const position = z.strictObject({ seq: z.number().int().min(0), epoch: z.string().min(1).max(128) });
const names = z.array(z.string().min(1).max(64)).max(64).optional();

const schemas = {
  subscribe: z.strictObject({
    op: z.literal('subscribe'),
    channel: z.string().min(1).max(140),
    from: z
      .record(id, position)
      .refine((r) => Object.keys(r).length <= 256, 'at most 256 positions')
      .optional(),
    filter: z.strictObject({ countries: names, codes: names, types: names }).optional(),
    reqId,
  }),
  unsubscribe: z.strictObject({ op: z.literal('unsubscribe'), channel: z.string().min(1).max(140), reqId }),
  resync: z.strictObject({ op: z.literal('resync'), stream: id, reqId }),
  ping: z.strictObject({ op: z.literal('ping'), reqId }),
} as const;

export type ParseResult =
  | { ok: true; message: ClientMessage }
  | { ok: false; code: ErrorCode; message: string; reqId?: string };

/** Parses one text frame already known to be within the size limit. */
export function parseClientMessage(text: string): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, code: 'bad_json', message: 'message is not valid JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, code: 'bad_request', message: 'message must be a JSON object' };
  }
  const obj = raw as Record<string, unknown>;
  const rid = typeof obj.reqId === 'string' && obj.reqId.length <= 64 ? obj.reqId : undefined;
  const op = obj.op;
  if (typeof op !== 'string' || !Object.hasOwn(schemas, op)) {
    return {
      ok: false,
      code: 'unknown_op',
      message: `unknown op ${JSON.stringify(String(op)).slice(0, 40)}; expected one of ${Object.keys(schemas).join(', ')}`,
      reqId: rid,
    };
  }
  const parsed = schemas[op as keyof typeof schemas].safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : op;
    return {
      ok: false,
      code: 'bad_request',
      message: `${where}: ${issue?.message ?? 'invalid'}`,
      reqId: rid,
    };
  }
  return { ok: true, message: parsed.data as ClientMessage };
}

export type ParsedChannel =
  | { kind: 'race'; raceId: string }
  | { kind: 'meeting'; meetingId: string }
  | { kind: 'firehose' };

export function parseChannel(channel: string): ParsedChannel | undefined {
  if (channel === 'firehose') return { kind: 'firehose' };
  const m = /^(race|meeting):([^\s]{1,128})$/.exec(channel);
  if (!m) return undefined;
  return m[1] === 'race' ? { kind: 'race', raceId: m[2]! } : { kind: 'meeting', meetingId: m[2]! };
}
