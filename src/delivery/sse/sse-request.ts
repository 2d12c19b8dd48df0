/**
 * Strict validation of an SSE request (DESIGN principle 5): the channels to follow and the positions to
 * resume from. Every refusal is a value with a code, answered as 400 `{error:{code,message}}`.
 */

import type { StreamPosition } from '@racewire/client/protocol';
import type { StreamId } from '../../events/envelope.js';
import { type ParsedChannel, parseChannel } from '../ws/client-messages.js';
import { parseEventId } from './event-id.js';

export type SseErrorCode =
  | 'bad_request'
  | 'missing_channel'
  | 'too_many_channels'
  | 'unknown_channel'
  | 'bad_last_event_id'
  | 'unauthorized';

export interface SseRequest {
  channels: Array<{ channel: string; parsed: ParsedChannel & { kind: 'race' | 'meeting' } }>;
  /** Positions to resume from; empty for a fresh start. */
  from: Record<StreamId, StreamPosition>;
}

export type SseRequestResult =
  | { ok: true; request: SseRequest }
  | { ok: false; code: SseErrorCode; message: string };

/** Querystring schema for the route (and the OpenAPI document). */
export const sseQuerySchema = {
  type: 'object',
  properties: {
    channel: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 140 },
      description: '`race:<raceId>` or `meeting:<meetingId>`; repeat for several',
    },
    lastEventId: {
      type: 'string',
      maxLength: 16384,
      description: 'Resume positions (the last SSE `id:` received); the `Last-Event-ID` header wins',
    },
    token: { type: 'string', description: 'API key when an Authorization header cannot be sent' },
  },
  additionalProperties: false,
} as const;

/** Spaces and control characters (which could break an SSE line) are never part of an id. */
const hasControlOrSpace = (s: string) => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return true;
  }
  return false;
};

export function parseSseRequest(
  query: { channel?: readonly string[]; lastEventId?: string },
  lastEventIdHeader: string | undefined,
  maxChannels: number,
): SseRequestResult {
  const list = [...new Set(query.channel ?? [])];
  if (list.length === 0) {
    return {
      ok: false,
      code: 'missing_channel',
      message: 'give at least one channel=race:<id> or meeting:<id>',
    };
  }
  if (list.length > maxChannels) {
    return {
      ok: false,
      code: 'too_many_channels',
      message: `at most ${maxChannels} channels per connection`,
    };
  }
  const channels: SseRequest['channels'] = [];
  for (const channel of list) {
    const parsed = hasControlOrSpace(channel) ? undefined : parseChannel(channel);
    if (!parsed || parsed.kind === 'firehose') {
      return {
        ok: false,
        code: 'unknown_channel',
        message: `channel ${JSON.stringify(channel.slice(0, 40))} is not race:<id> or meeting:<id>`,
      };
    }
    channels.push({ channel, parsed });
  }
  // EventSource keeps its URL on reconnect, so a fresher header beats a lastEventId in the query.
  const idText = lastEventIdHeader ?? query.lastEventId;
  let from: Record<StreamId, StreamPosition> = Object.create(null);
  if (idText !== undefined) {
    const r = parseEventId(idText);
    if (!r.ok) return { ok: false, code: 'bad_last_event_id', message: `Last-Event-ID ${r.message}` };
    from = r.positions;
  }
  return { ok: true, request: { channels, from } };
}
