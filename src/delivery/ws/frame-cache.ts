/**
 * Serialised replay messages, shared across connections: in a resume storm many clients ask for the same
 * entries, and each would otherwise serialise them again. Bounded, oldest evicted first; the key includes
 * the entry's timestamp so a reset log (same stream and seq, other content) never hits a stale frame.
 */
import type { LogEntry } from '../../events/envelope.js';
import type { Scope } from './auth.js';
import { entryOutgoing } from './entry-messages.js';
import type { Outgoing } from './frame.js';

export class FrameCache {
  private readonly map = new Map<string, Outgoing>();

  constructor(private readonly capacity: number) {}

  get(entry: LogEntry, scope: Scope): Outgoing {
    const key = `${scope}|${entry.stream}|${entry.seq}|${entry.timestamp}`;
    let o = this.map.get(key);
    if (!o) {
      o = entryOutgoing(entry, scope);
      if (this.capacity <= 0) return o;
      if (this.map.size >= this.capacity) this.map.delete(this.map.keys().next().value!);
      this.map.set(key, o);
    }
    return o;
  }
}
