/**
 * Log entries as wire messages, per audience. A batch from the bus is serialised at most once for public
 * subscribers (redacted) and once for partners, whatever the number of subscribers.
 */

import type { EventMessage, PatchMessage, SnapshotMessage } from '@racewire/client/protocol';
import type { LogEntry } from '../../events/envelope.js';
import type { Scope } from './auth.js';
import { type Outgoing, outgoing } from './frame.js';
import { redactOps, redactValue } from './redact.js';

export function entryMessage(entry: LogEntry, scope: Scope): SnapshotMessage | PatchMessage | EventMessage {
  const pub = scope === 'public';
  switch (entry.kind) {
    case 'snapshot':
      return {
        type: 'snapshot',
        stream: entry.stream,
        seq: entry.seq,
        documentSeq: entry.seq,
        document: pub ? redactValue(entry.document ?? null) : (entry.document ?? null),
      };
    case 'patch':
      return {
        type: 'patch',
        stream: entry.stream,
        seq: entry.seq,
        base: entry.base,
        ops: pub ? redactOps(entry.ops) : entry.ops,
        timestamp: entry.timestamp,
      };
    case 'event':
      return {
        type: 'event',
        stream: entry.stream,
        seq: entry.seq,
        event: pub ? redactValue(entry.event) : entry.event,
      };
  }
}

/** An entry's message for one audience, serialised and framed, labelled with its stream and seq. */
export function entryOutgoing(entry: LogEntry, scope: Scope): Outgoing {
  return {
    ...outgoing(entryMessage(entry, scope)),
    entry: { type: entry.kind, stream: entry.stream, seq: entry.seq },
  };
}

/** Lazily serialised messages of one bus batch, shared by every connection of the same audience. */
export class BatchFrames {
  private readonly cache: { public: (Outgoing | undefined)[]; partner: (Outgoing | undefined)[] } = {
    public: [],
    partner: [],
  };

  constructor(readonly entries: readonly LogEntry[]) {}

  get(index: number, scope: Scope): Outgoing {
    const slot = this.cache[scope];
    let o = slot[index];
    if (!o) {
      o = entryOutgoing(this.entries[index]!, scope);
      slot[index] = o;
    }
    return o;
  }
}
