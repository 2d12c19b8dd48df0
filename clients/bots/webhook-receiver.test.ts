import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { generateSecret, signDelivery } from '../../src/delivery/webhooks/dispatch/signer.js';
import { createWebhookReceiver, type RacewireEvent } from './webhook-receiver.js';

const servers: import('node:http').Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function start(secret: string, events: RacewireEvent[]) {
  const server = createWebhookReceiver({ secret, onEvent: (e) => void events.push(e) });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

it('accepts signed deliveries once per webhook-id and refuses bad signatures', async () => {
  const secret = generateSecret();
  const events: RacewireEvent[] = [];
  const url = await start(secret, events);
  const event = {
    id: 'r1:1',
    type: 'race.results',
    timestamp: new Date().toISOString(),
    stream: 'r1',
    seq: 1,
    meetingId: 'm',
    raceId: 'r1',
    data: {},
  };
  const body = JSON.stringify(event);
  const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers, body });
  expect((await post({ ...signDelivery([secret], event.id, Date.now(), body) })).status).toBe(204);
  expect((await post({ ...signDelivery([secret], event.id, Date.now() + 1000, body) })).status).toBe(204);
  expect((await post({ ...signDelivery([generateSecret()], event.id, Date.now(), body) })).status).toBe(401);
  expect(events).toEqual([event]);
});
