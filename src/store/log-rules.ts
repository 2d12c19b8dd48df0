/**
 * The event log's rules, shared by every adapter so that they cannot drift apart: how a change is validated
 * and numbered, and when a read position is answered not-ok. Pure: adapters do the storing.
 */
import type { LogEntry, NewEntry, StreamId } from '../events/envelope.js';
import { EventLogError } from './errors.js';
import type { ReadResult, StreamHead } from './ports.js';

export interface Change {
  entries: NewEntry[];
  document?: unknown;
  now: Date;
}

export interface StampedChange {
  /** The entries as they will be stored, numbered from head.seq + 1. */
  entries: LogEntry[];
  /** The seq of the snapshot or patch among them, when the change carries a new document. */
  documentSeq?: number;
}

/**
 * An event's id, unique for ever: `<stream>:<seq>@<epoch>`. The seq alone repeats when a log is reset (a
 * wiped Redis or DATA_DIR starts every stream at 1 again), and consumers dedupe by this id (it is the
 * webhook-id), so the epoch, new with every reset, is part of it (protocol version 2, docs/protocol.md).
 */
export function eventId(stream: StreamId, seq: number, epoch: string): string {
  return `${stream}:${seq}@${epoch}`;
}

/**
 * Validates a change against the head it will be appended to and numbers it. Throws EventLogError on a
 * change that would leave the head and the entries out of step (a bug in the caller, not bad data).
 */
export function stampChange(
  stream: StreamId,
  head: Pick<StreamHead, 'seq' | 'documentSeq' | 'epoch'>,
  change: Change,
): StampedChange {
  const { now } = change;
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
    throw new EventLogError('invalid_timestamp', `append to ${stream}: now must be a valid Date`);
  }
  const documentEntries = change.entries.filter((e) => e.kind === 'snapshot' || e.kind === 'patch');
  if (documentEntries.length > 1) {
    throw new EventLogError(
      'multiple_document_entries',
      `append to ${stream}: ${documentEntries.length} snapshot/patch entries in one change, at most 1 allowed`,
    );
  }
  const hasDocument = change.document !== undefined;
  if (hasDocument && documentEntries.length === 0) {
    throw new EventLogError(
      'missing_document_entry',
      `append to ${stream}: a document was given without a snapshot or patch entry`,
    );
  }
  if (!hasDocument && documentEntries.length === 1) {
    throw new EventLogError(
      'missing_document',
      `append to ${stream}: a ${documentEntries[0]!.kind} entry was given without its document`,
    );
  }
  if (documentEntries[0]?.kind === 'patch' && head.documentSeq === 0) {
    throw new EventLogError(
      'patch_without_base',
      `append to ${stream}: a patch on a stream with no document yet`,
    );
  }

  const timestamp = now.toISOString();
  let documentSeq: number | undefined;
  const entries = change.entries.map((entry, i): LogEntry => {
    const seq = head.seq + 1 + i;
    switch (entry.kind) {
      case 'snapshot':
        documentSeq = seq;
        return { kind: 'snapshot', stream, seq, timestamp, document: entry.document };
      case 'patch':
        documentSeq = seq;
        return { kind: 'patch', stream, seq, timestamp, base: head.documentSeq, ops: entry.ops };
      case 'event':
        return {
          kind: 'event',
          stream,
          seq,
          timestamp,
          event: { ...entry.event, id: eventId(stream, seq, head.epoch), stream, seq, timestamp },
        };
    }
    const unknown: never = entry;
    throw new EventLogError(
      'invalid_argument',
      `append to ${stream}: unknown entry kind ${String((unknown as { kind?: unknown }).kind)}`,
    );
  });
  return documentSeq === undefined ? { entries } : { entries, documentSeq };
}

/**
 * Decides a read before any entry is fetched. `oldestSeq` is the seq of the oldest retained entry, or
 * undefined when none is retained. Returns the not-ok answer, or undefined when the read may proceed.
 *
 * A position ahead of the head cannot come from this log: it comes from a log that was reset (a wiped
 * DATA_DIR, another node's log), so it is answered like a different epoch.
 */
export function checkRead(
  head: StreamHead,
  oldestSeq: number | undefined,
  afterSeq: number,
  opts: { epoch?: string } = {},
): Extract<ReadResult, { ok: false }> | undefined {
  if (opts.epoch !== undefined && opts.epoch !== head.epoch)
    return { ok: false, reason: 'epoch_mismatch', head };
  if (afterSeq > head.seq) return { ok: false, reason: 'epoch_mismatch', head };
  const oldest = oldestSeq ?? head.seq + 1;
  if (afterSeq < oldest - 1) return { ok: false, reason: 'too_old', head };
  return undefined;
}

/** Throws on a seq, limit or keep that is not a non-negative integer (a caller bug, not a client's). */
export function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new EventLogError(
      'invalid_argument',
      `${name} must be a non-negative integer, got ${String(value)}`,
    );
  }
}
