/** What the port contract suites share: one backend's outbox on a settable clock, endpoints and events. */

import type { NewEndpoint } from '../../../src/delivery/webhooks/model.js';
import type { RaceEvent } from '../../../src/events/envelope.js';
import type { BackendFactory } from './backends.js';

export const newEndpoint = (id: string, e: Partial<NewEndpoint> = {}): NewEndpoint => ({
  id,
  url: `https://hooks.example.com/${id}`,
  kind: 'standard',
  description: '',
  eventTypes: ['*'],
  filters: {},
  enabled: true,
  secret: 'whsec_x',
  ...e,
});

export const raceEvent = (id: string, stream = 'race-1'): RaceEvent => ({
  id,
  type: 'race.results',
  timestamp: '2026-11-26T10:00:00.000Z',
  stream,
  seq: 1,
  meetingId: 'm1',
  data: {},
});

/** The outbox of a fresh backend, its stamps at `clock.at` (settable). */
export async function openOutbox(factory: BackendFactory) {
  const backend = await factory();
  const clock = { at: 1_000 };
  const outbox = backend.store(() => clock.at).outbox;
  /** Enqueues one event for the endpoint with the body `body:<event id>`. */
  const enqueue = (endpointId: string, id: string, stream = 'race-1') =>
    outbox.queue.enqueue({ endpointId, event: raceEvent(id, stream), body: `body:${id}` });
  return { backend, clock, outbox, enqueue };
}

export const claimOptions = { chatMinIntervalMs: 1_000, perEndpoint: 2 };
