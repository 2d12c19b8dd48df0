/**
 * Log entries as wire messages, per variant (audience, and field projection if any). A batch from the bus
 * is serialised at most once per variant, whatever the number of subscribers.
 */

import type { EventMessage, PatchMessage, SnapshotMessage } from '@racewire/client/protocol';
import type { LogEntry } from '../../events/envelope.js';
import type { Scope } from './auth.js';
import { type Outgoing, outgoing } from './outgoing.js';
import { project, projectOps } from './projection.js';
import { redactOps, redactValue } from './redact.js';
import { type StreamOptions, variantKey } from './stream-options.js';

/** A document as one variant sees it. */
export function documentFor(document: unknown, scope: Scope, options: StreamOptions): unknown {
  const visible = scope === 'public' ? redactValue(document) : document;
  return options.projection ? project(visible, options.projection) : visible;
}

/** A patch's operations as one variant sees them; undefined when the projection needs a fresh snapshot. */
export function opsFor(entry: LogEntry & { kind: 'patch' }, scope: Scope, options: StreamOptions) {
  const visible = scope === 'public' ? redactOps(entry.ops) : entry.ops;
  return options.projection ? projectOps(visible, options.projection) : visible;
}

export function entryMessage(
  entry: LogEntry,
  scope: Scope,
  options: StreamOptions,
): SnapshotMessage | PatchMessage | EventMessage | undefined {
  switch (entry.kind) {
    case 'snapshot':
      return {
        type: 'snapshot',
        stream: entry.stream,
        seq: entry.seq,
        documentSeq: entry.seq,
        // A snapshot starts the client's copy afresh: it names its epoch when the entry knows it.
        ...(entry.epoch === undefined ? {} : { epoch: entry.epoch }),
        document: documentFor(entry.document ?? null, scope, options),
      };
    case 'patch': {
      const ops = opsFor(entry, scope, options);
      if (!ops) return undefined;
      return {
        type: 'patch',
        stream: entry.stream,
        seq: entry.seq,
        base: entry.base,
        ops,
        timestamp: entry.timestamp,
      };
    }
    case 'event':
      return {
        type: 'event',
        stream: entry.stream,
        seq: entry.seq,
        event: scope === 'public' ? redactValue(entry.event) : entry.event,
      };
  }
}

/** An entry's message for one variant, serialised; undefined when the variant needs a snapshot instead. */
export function entryOutgoing(entry: LogEntry, scope: Scope, options: StreamOptions): Outgoing | undefined {
  const message = entryMessage(entry, scope, options);
  if (!message) return undefined;
  return outgoing(message, { type: entry.kind, stream: entry.stream, seq: entry.seq });
}

/** Lazily serialised messages of one bus batch, shared by every connection of the same variant. */
export class BatchFrames {
  private readonly cache = new Map<string, (Outgoing | null)[]>();

  constructor(readonly entries: readonly LogEntry[]) {}

  /** null: this variant cannot take the entry as a patch (send it a snapshot). */
  get(index: number, scope: Scope, options: StreamOptions): Outgoing | null {
    const key = variantKey(scope, options);
    let slot = this.cache.get(key);
    if (!slot) {
      slot = [];
      this.cache.set(key, slot);
    }
    let o = slot[index];
    if (o === undefined) {
      o = entryOutgoing(this.entries[index]!, scope, options) ?? null;
      slot[index] = o;
    }
    return o;
  }
}
