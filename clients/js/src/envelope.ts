/**
 * The public event envelope (DESIGN principle 2): what WebSocket and SSE subscribers and webhook consumers
 * receive around each event payload of `event-types.ts`. The server's event log stores it as is.
 */

/**
 * A stream is the unit of ordering: one per race (its race id) and one per meeting (`meeting:<meeting id>`)
 * for meeting-level events such as races added or removed.
 */
export type StreamId = string;

export const meetingStreamId = (meetingId: string): StreamId => `meeting:${meetingId}`;

/** A typed event as delivered to every consumer. `id` is stable across restarts and nodes. */
export interface RaceEvent<T extends string = string, D = unknown> {
  /** `<stream>:<seq>@<epoch>` (protocol 2; `<stream>:<seq>` in 1): unique for ever, stable, the dedupe key for
   * consumers (and the webhook-id). Opaque: resume from positions, never from an id. */
  id: string;
  type: T;
  /** ISO 8601 time at which racewire detected the change. */
  timestamp: string;
  stream: StreamId;
  seq: number;
  meetingId: string;
  /** Absent for meeting-level events. */
  raceId?: string;
  data: D;
}
