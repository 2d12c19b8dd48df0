/**
 * The takeover contract: in multi-node mode only the lease holder dispatches; when it dies mid-attempt, the
 * next holder makes its in-flight deliveries owed again once their claims expire (timeoutMs + CLAIM_MARGIN_MS
 * after they were made) and sends them (at least once, same webhook-id); an old leader that finishes within
 * the deadline has its result recorded and nothing is sent twice (the nemesis saw 216 repeats in 323 while
 * takeovers recovered live claims). A claim is matched by its claim number: a node that lost its claim can
 * neither record over nor release the new holder's (reproduced in issue 14: a late failure overwrote the new
 * leader's success, and the delivery was sent again).
 */
import { expect, it } from 'vitest';
import type { ManualClock } from '../../../src/clock.js';
import { CLAIM_MARGIN_MS } from '../../../src/delivery/webhooks/dispatch/dispatcher.js';
import type { AttemptResult } from '../../../src/delivery/webhooks/dispatch/retry-policy.js';
import type { SendRequest } from '../../../src/delivery/webhooks/dispatch/sender.js';
import type { BackendFactory, BackendUnderTest } from './backends.js';
import { startHarness } from './harness.js';
import { eventEntry, until } from './helpers.js';

/** The harness's send timeout (2 s) plus the margin: how long a claim holds. */
const CLAIM_TTL_MS = 2_000 + CLAIM_MARGIN_MS;

/** Both nodes' loops asleep on their shared clock, none attempting: nothing more happens until it moves. */
const asleep = (clock: ManualClock, backend: BackendUnderTest) =>
  until(() => clock.pending() === 2 * backend.loops, 'both nodes asleep');

/** An attempt's answer, held until the test gives it. */
function held() {
  let answer: (r: AttemptResult) => void = () => {};
  const result = new Promise<AttemptResult>((r) => {
    answer = r;
  });
  return { result, answer: (r: AttemptResult) => answer(r) };
}

const ok = async (): Promise<AttemptResult> => ({ status: 200, headers: {}, body: 'ok' });

/**
 * Two nodes on one backend and clock: `a` dispatches in its term (token 1) until `handOver`, which ends it and
 * starts `b` dispatching in the next (token 2). Each node's sends are kept.
 */
async function twoNodes(
  backend: BackendUnderTest,
  opts: {
    aSend: () => Promise<AttemptResult>;
    bSend: () => Promise<AttemptResult>;
    aConfig?: Parameters<typeof startHarness>[0]['config'];
  },
) {
  const sentByA: SendRequest[] = [];
  const sentByB: SendRequest[] = [];
  let aLeads = true;
  // These cases read deliveries back a day later: keep them past the default retention (24 h).
  const retentionMs = 7 * 24 * 3_600_000;
  const a = await startHarness({
    backend,
    fence: () => (aLeads ? 1 : undefined),
    config: { retentionMs, ...opts.aConfig },
    send: async (req) => {
      sentByA.push(req);
      return opts.aSend();
    },
  });
  const b = await startHarness({
    backend,
    keepSeqs: true,
    dispatch: false,
    fence: () => 2,
    clock: a.clock,
    config: { retentionMs },
    send: async (req) => {
      sentByB.push(req);
      return opts.bSend();
    },
  });
  const handOver = () => {
    aLeads = false;
    return b.service.setDispatching(true);
  };
  return { a, b, sentByA, sentByB, handOver };
}

export function takeoverContract(name: string, factory: BackendFactory): void {
  it(`${name}: a hand-over while a send is in flight: the old leader finishing within its deadline delivers exactly once`, async () => {
    const backend = await factory();
    const first = held();
    const { a, b, sentByA, sentByB, handOver } = await twoNodes(backend, {
      aSend: () => first.result,
      bSend: ok,
    });
    const { endpoint } = await a.createEndpoint();
    await a.enqueue([eventEntry('race.results', { results: [] })]);
    await until(() => sentByA.length === 1, 'the old leader attempting');

    // The new leader takes over while the old one's send is in flight and still within its deadline.
    await handOver();
    await a.clock.advance(CLAIM_TTL_MS - 1);
    await asleep(a.clock, backend);
    expect(sentByB).toHaveLength(0);
    first.answer({ status: 200, headers: {}, body: 'ok' });
    await b.untilStats((s) => s.deliveries.delivered === 1, 'the old leader recorded its success');
    await a.clock.advance(24 * 3_600_000);
    await asleep(a.clock, backend);
    expect([sentByA.length, sentByB.length]).toEqual([1, 0]);
    const [d] = await b.deliveries(endpoint.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 1 });
    await a.close();
    await b.close();
    await backend.close();
  });

  it(`${name}: a second instance takes over the first one's deliveries in flight once their claims expire, same webhook-id and bytes`, async () => {
    const backend = await factory();
    // The first node hangs (as good as dead).
    const first = held();
    const { a, b, sentByA, sentByB, handOver } = await twoNodes(backend, {
      aSend: () => first.result,
      bSend: ok,
    });
    const { endpoint } = await a.createEndpoint();
    const entry = eventEntry('race.results', { results: [] });
    await a.enqueue([entry]);
    await until(() => sentByA.length === 1, 'first node attempting');
    expect(await b.service.stats()).toMatchObject({ deliveries: { in_flight: 1 } });

    // The second node wins the lease and waits out the claim.
    await handOver();
    await a.clock.advance(CLAIM_TTL_MS - 1);
    await asleep(a.clock, backend);
    expect(sentByB).toHaveLength(0);
    await a.clock.advance(1);
    await until(() => sentByB.length === 1, 'taken over');
    expect([sentByB[0]?.headers['webhook-id'], sentByB[0]?.body]).toEqual([entry.event.id, sentByA[0]?.body]);
    await b.untilStats(
      (s) => s.deliveries.delivered === 1 && s.inFlight === 0,
      'delivered by the second node',
    );

    // The first node's late answer is logged, but does not undo what the second recorded.
    first.answer({ status: 500, headers: {}, body: 'late' });
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

    // Exactly one redelivery: nothing more is sent once the late answer is in.
    await a.clock.advance(24 * 3_600_000);
    await asleep(a.clock, backend);
    expect([sentByA.length, sentByB.length]).toEqual([1, 1]);

    // Dispatching stops and starts again on one node as its lease comes and goes.
    await b.service.setDispatching(false);
    await b.enqueue([eventEntry('race.results', {})]);
    await handOver();
    await until(() => sentByB.length === 2, 'sent after dispatching resumed');
    await a.close();
    await b.close();
    await backend.close();
  });

  it(`${name}: a late failure from the old leader, and its release at stop, leave the new leader's claim alone`, async () => {
    const backend = await factory();
    const first = held();
    const second = held();
    const { a, b, sentByA, sentByB, handOver } = await twoNodes(backend, {
      aSend: () => first.result,
      bSend: () => second.result,
      // A short timeout: its stop gives attempts in flight 1.1 s before releasing their claims.
      aConfig: { timeoutMs: 100 },
    });
    const { endpoint } = await a.createEndpoint();
    await a.enqueue([eventEntry('race.results', { results: [] })]);
    await until(() => sentByA.length === 1, 'the old leader attempting');

    // The old leader overruns its deadline: the new leader recovers the claim and sends the delivery again,
    // under a claim of its own.
    await handOver();
    await a.clock.advance(CLAIM_TTL_MS);
    await until(() => sentByB.length === 1, 'the new leader attempting');
    // The old leader stops: its claim is no longer held, so releasing it releases nothing.
    await a.service.setDispatching(false);
    expect(await b.service.stats()).toMatchObject({ deliveries: { in_flight: 1, pending: 0 } });
    // Its late failure arrives before the new leader's success: logged, not recorded over the new claim.
    first.answer({ status: 500, headers: {}, body: 'late' });
    await until(
      async () => (await b.attempts((await b.deliveries(endpoint.id))[0]!.id)).length === 1,
      'late failure logged',
    );
    second.answer({ status: 200, headers: {}, body: 'ok' });
    await b.untilStats(
      (s) => s.deliveries.delivered === 1 && s.inFlight === 0,
      'delivered by the new leader',
    );

    const [d] = await b.deliveries(endpoint.id);
    expect(d).toMatchObject({ status: 'delivered', attempts: 1 });
    expect((await b.attempts(d!.id)).map((x) => `${x.statusCode} ${x.outcome}`)).toEqual([
      '500 retry',
      '200 delivered',
    ]);
    // Past every retry the old leader's failure would have scheduled: nothing is sent again.
    await a.clock.advance(24 * 3_600_000);
    await b.idle();
    expect([sentByA.length, sentByB.length]).toEqual([1, 1]);
    await a.close();
    await b.close();
    await backend.close();
  });
}
