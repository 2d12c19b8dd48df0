/**
 * The takeover contract: in multi-node mode only the lease holder dispatches; when it dies mid-attempt, the
 * next holder makes its in-flight deliveries owed again and sends them (at least once, same webhook-id).
 */
import { expect, it } from 'vitest';
import type { SendRequest } from '../../../src/delivery/webhooks/http-sender.js';
import type { AttemptResult } from '../../../src/delivery/webhooks/retry-policy.js';
import type { BackendFactory } from './backends.js';
import { startHarness } from './harness.js';
import { eventEntry, until } from './helpers.js';

export function takeoverContract(name: string, factory: BackendFactory): void {
  it(`${name}: a second instance takes over the first one's deliveries in flight, same webhook-id and bytes`, async () => {
    const backend = await factory();
    let answerFirst: (r: AttemptResult) => void = () => {};
    const hung = new Promise<AttemptResult>((r) => {
      answerFirst = r;
    });
    const sentByA: SendRequest[] = [];
    const sentByB: SendRequest[] = [];
    const a = await startHarness({
      backend,
      send: async (req) => {
        sentByA.push(req);
        return hung;
      },
    });
    const b = await startHarness({
      backend,
      keepSeqs: true,
      dispatch: false,
      send: async (req) => {
        sentByB.push(req);
        return { status: 200, headers: {}, body: 'ok' };
      },
    });
    const { endpoint } = await a.createEndpoint();
    const entry = eventEntry('race.results', { results: [] });
    await a.enqueue([entry]);
    await until(() => sentByA.length === 1, 'first node attempting');
    expect(await b.service.stats()).toMatchObject({ deliveries: { in_flight: 1 } });

    // The first node hangs (as good as dead); the second wins the lease.
    await b.service.setDispatching(true);
    await until(() => sentByB.length === 1, 'taken over');
    expect([sentByB[0]?.headers['webhook-id'], sentByB[0]?.body]).toEqual([entry.event.id, sentByA[0]?.body]);
    await b.untilStats(
      (s) => s.deliveries.delivered === 1 && s.inFlight === 0,
      'delivered by the second node',
    );

    // The first node's late answer is logged, but does not undo what the second recorded.
    answerFirst({ status: 500, headers: {}, body: 'late' });
    await a.untilStats((s) => s.inFlight === 0 && s.outcomes.retry === 1, 'late answer recorded');
    const [d] = await b.deliveries(endpoint.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 1 });
    const attempts = await b.attempts(d?.id ?? 0);
    expect(attempts.map((x) => `${x.statusCode} ${x.outcome}`).sort()).toEqual([
      '200 delivered',
      '500 retry',
    ]);
    expect(await b.service.stats()).toMatchObject({
      pending: 0,
      deliveries: { pending: 0, in_flight: 0, delivered: 1, failed: 0 },
    });

    // Dispatching stops and starts again on one node as its lease comes and goes.
    await b.service.setDispatching(false);
    await b.enqueue([eventEntry('race.results', {})]);
    await b.service.setDispatching(true);
    await until(() => sentByB.length === 2, 'sent after dispatching resumed');
    await a.close();
    await b.close();
    await backend.close();
  });
}
