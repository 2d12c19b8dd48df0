/**
 * Fan-out of appended log entries to in-process consumers (WebSocket gateway, webhook dispatcher, logs).
 * The embedded adapter is a plain synchronous emitter; a Redis adapter will carry entries between nodes.
 */
import type { LogEntry } from '../events/envelope.js';

export type EntriesListener = (entries: LogEntry[]) => void;

export interface Bus {
  /** Delivers entries (all of one stream, in seq order) to every listener. */
  publish(entries: LogEntry[]): void;
  /** Returns a function that removes the listener. */
  subscribe(listener: EntriesListener): () => void;
}

/** In-process bus. A throwing listener is reported and does not stop delivery to the others. */
export function createMemoryBus(onListenerError: (err: unknown) => void = () => {}): Bus {
  const listeners = new Set<EntriesListener>();
  return {
    publish(entries) {
      for (const listener of listeners) {
        try {
          listener(entries);
        } catch (err) {
          onListenerError(err);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
