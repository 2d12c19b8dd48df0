/**
 * The dispatcher: claims due deliveries from the outbox and sends them with bounded concurrency. Correctness
 * rests on the outbox alone (it polls on the clock); `kick()` (after an append, after an attempt) only
 * makes it look sooner. It can be started and stopped repeatedly (a node gaining and losing the poller
 * lease). A claim expires `timeoutMs` + CLAIM_MARGIN_MS after it was made (wall clock); each turn makes the
 * expired ones owed again, a dead node's included. Claims not yet expired are left alone: their claimer may be
 * a live old leader still sending, whose result is then recorded rather than sent a second time.
 */
import { performance } from 'node:perf_hooks';
import PQueue from 'p-queue';
import { type Clock, systemClock } from '../../../clock.js';
import { throttledLog } from '../../../log-throttle.js';
import type { Logger } from '../../../logger.js';
import { createWakeLoop } from '../../../wake-loop.js';
import type { ResolvedWebhookConfig } from '../config.js';
import { discordUrl } from '../formatters/discord.js';
import type { EndpointWithSecrets } from '../model.js';
import type { ClaimedDelivery, NextState, Outbox } from '../ports.js';
import { type Decision, decide, isFailure } from './retry-policy.js';
import type { Sender } from './sender.js';
import { signDelivery } from './signer.js';

const PRUNE_EVERY_MS = 3_600_000;
/** Past the send timeout, the time a claimer may take to read the delivery before and record it after. */
export const CLAIM_MARGIN_MS = 5_000;

export type Outcome = 'delivered' | 'retry' | 'failed' | 'disable';

export interface DispatcherDeps {
  outbox: Outbox;
  clock: Clock;
  /** Time of `webhook-timestamp`: wall-clock time, since receivers reject timestamps 5 min from their own
   * now; it differs from `clock` when racewire runs on a scaled (simulated) clock. @default systemClock */
  signingClock?: Clock;
  logger: Logger;
  config: ResolvedWebhookConfig;
  send: Sender;
  /** In [0, 1): jitter source. @default Math.random */
  random?: () => number;
  onAttempt?: (outcome: Outcome, latencyMs: number) => void;
  /** The fencing token of this node's lease term, undefined when it does not lead (nothing is claimed then).
   * Absent: a single node, which always may claim. */
  fence?: () => number | undefined;
  /** A claim was refused as fenced: another node has acquired the lease since (leadership resigns). */
  onFenced?: () => void;
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the dispatcher's loop, claims in flight and per-endpoint pauses are one closure's state; its steps are the named functions inside
export function createDispatcher(deps: DispatcherDeps) {
  const { clock, logger, config, send } = deps;
  const { queue, endpoints, history } = deps.outbox;
  const signingClock = deps.signingClock ?? systemClock;
  const random = deps.random ?? Math.random;
  const sending = new PQueue({ concurrency: config.concurrency });
  const outcomes: Record<Outcome, number> = { delivered: 0, retry: 0, failed: 0, disable: 0 };
  /** This node's claims in flight, by delivery id. */
  const inFlight = new Map<number, number>();
  const claimTtlMs = config.timeoutMs + CLAIM_MARGIN_MS;
  let running = false;

  /** Secrets that sign now: the current one, and the previous one during its rotation overlap. */
  const liveSecrets = (ep: EndpointWithSecrets, now: number) =>
    ep.previousSecret && (ep.previousSecretExpiresAt ?? 0) > now
      ? [ep.secret, ep.previousSecret]
      : [ep.secret];

  async function attempt(d: ClaimedDelivery): Promise<void> {
    const [ep, body] = await Promise.all([endpoints.endpoint(d.endpointId), history.body(d.id)]);
    if (!ep || body === undefined) return; // Deleted meanwhile: nothing is owed any more.
    const at = clock.now();
    const headers =
      ep.kind === 'standard'
        ? { ...signDelivery(liveSecrets(ep, at), d.eventId, signingClock.now(), body) }
        : ({} as Record<string, string>);
    let url = ep.url;
    if (ep.kind === 'discord') url = discordUrl(url);
    const t0 = performance.now();
    const result = await send({ url, headers, body });
    const latencyMs = performance.now() - t0;
    const now = clock.now();
    const decision = decide(result, {
      kind: ep.kind,
      attempts: d.attempts + 1,
      now,
      schedule: config.retrySchedule,
      jitter: config.jitter,
      maxRetryAfterMs: config.maxRetryAfterMs,
      random: random(),
    });
    const next = nextState(decision, now);
    const held = await queue.recordAttempt(
      d,
      {
        at,
        statusCode: result.status,
        latencyMs,
        error: result.error,
        responseBody: result.body,
        outcome: decision.kind,
      },
      next,
    );
    outcomes[decision.kind]++;
    deps.onAttempt?.(decision.kind, latencyMs);
    if (!held) {
      // Another node recovered the claim (this node lost the lease meanwhile): what it does with the delivery
      // and the endpoint stands; this result is only logged.
      logger.info(
        { deliveryId: d.id, claim: d.claim, outcome: decision.kind },
        'webhook claim lost before its result',
      );
      return;
    }
    if (decision.kind === 'retry' && decision.pauseEndpointUntil)
      await queue.pauseEndpoint(ep.id, decision.pauseEndpointUntil);
    if (decision.kind === 'disable') {
      await endpoints.disableEndpoint(ep.id, decision.reason);
      logger.warn({ endpointId: ep.id, reason: decision.reason }, 'webhook endpoint disabled');
    }
    const failingSince = await endpoints.markEndpointHealth(ep.id, isFailure(decision), now);
    if (failingSince !== null && decision.kind !== 'disable' && now - failingSince >= config.disableAfterMs) {
      const reason = `failing since ${new Date(failingSince).toISOString()} without a success`;
      await endpoints.disableEndpoint(ep.id, reason);
      logger.warn({ endpointId: ep.id, reason }, 'webhook endpoint disabled');
    }
    logger.debug(
      { deliveryId: d.id, endpointId: ep.id, status: result.status, outcome: decision.kind, latencyMs },
      'webhook attempt',
    );
  }

  function nextState(decision: Decision, now: number): NextState {
    switch (decision.kind) {
      case 'delivered':
        return { status: 'delivered', nextAttemptAt: now };
      case 'retry':
        return { status: 'pending', nextAttemptAt: decision.at };
      case 'failed':
        return { status: 'failed', nextAttemptAt: now };
      case 'disable':
        // Kept pending: re-enabling the endpoint (or a replay) sends it.
        return { status: 'pending', nextAttemptAt: now };
    }
  }

  async function dispatchDue(now: number): Promise<void> {
    const free = config.concurrency - inFlight.size;
    // Under load, claim in batches rather than once per finished attempt: a claim reads every active chain.
    if (free <= 0 || (inFlight.size > 0 && free < Math.ceil(config.concurrency / 4))) return;
    const fence = deps.fence?.();
    if (deps.fence && fence === undefined) return; // The lease ran out locally: claim nothing.
    const claimed = await queue.claimDue(now, free, {
      chatMinIntervalMs: config.chatMinIntervalMs,
      perEndpoint: config.perEndpointConcurrency,
      fence,
    });
    if (claimed === 'fenced') {
      logger.warn({ fence }, 'webhook claim fenced: another node holds a newer lease term');
      deps.onFenced?.();
      return;
    }
    for (const d of claimed) {
      inFlight.set(d.id, d.claim);
      void sending
        .add(() => attempt(d))
        .catch((err: unknown) => {
          // Storage failed while recording: the row stays in flight until restart recovery; log loudly.
          logger.error({ err, deliveryId: d.id }, 'webhook attempt could not be recorded');
        })
        .finally(() => {
          inFlight.delete(d.id);
          loop.kick();
        });
    }
  }

  let lastPrune = clock.now();
  /** Hourly (on the clock): forget finished deliveries past the retention. */
  async function pruneIfDue(): Promise<void> {
    const now = clock.now();
    if (now - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now;
    const pruned = await history.prune(now - config.retentionMs);
    if (pruned > 0) logger.debug({ pruned }, 'finished webhook deliveries pruned');
  }

  /** Claims past their deadline, whoever made them, are owed again (at least once). */
  async function recoverExpired(now: number): Promise<void> {
    if (deps.fence && deps.fence() === undefined) return; // Not leading: another node recovers them.
    const recovered = await queue.recoverInFlight({ claimedBefore: now - claimTtlMs });
    if (recovered > 0) logger.info({ recovered }, 'webhook claims past their deadline are owed again');
  }

  // Every poll interval while the store fails (SQLITE_IOERR, Redis away): one line a minute, with a count.
  const outboxUnreadable = throttledLog({
    logger,
    level: 'error',
    message: 'webhook dispatcher could not read the outbox',
    wall: clock,
  });

  /** One turn: prune, recover expired claims, claim what is due, and answer how long to sleep. */
  async function step(): Promise<number> {
    let due: number | null = null;
    const claimedAt = clock.now();
    try {
      await pruneIfDue();
      await recoverExpired(claimedAt);
      await dispatchDue(claimedAt);
      const { nextDueAt: next, oldestClaimAt: oldestClaim } = await queue.wakeTimes();
      // Wake for the earliest head due or the first claim to expire (just past it: recovery takes <=).
      const expires = oldestClaim === null ? null : oldestClaim + claimTtlMs;
      due = next === null ? expires : expires === null ? next : Math.min(next, expires);
    } catch (err) {
      outboxUnreadable(err);
    }
    const now = clock.now();
    const poll = Math.max(0, Math.min(config.pollIntervalMs, lastPrune + PRUNE_EVERY_MS - now));
    // Due at the claim but not claimed (caps full): a finishing attempt kicks. Due since (time moved during
    // the reads): look again at once.
    return due !== null && due > claimedAt ? Math.min(Math.max(0, due - now), poll) : poll;
  }
  const loop = createWakeLoop(clock, step);

  return {
    /** Dispatches, first making owed again the claims already expired (this node's last run's, or a dead
     * node's). Call it only when no other dispatcher starts claiming on the outbox (the poller lease). */
    async start(): Promise<void> {
      if (running) return;
      running = true;
      loop.start();
    },
    kick: () => loop.kick(),
    outcomes: () => ({ ...outcomes }),
    inFlight: () => inFlight.size,
    /** Stops claiming; waits up to `graceMs` for attempts in flight, and releases the rest as still owed. */
    async stop(graceMs = config.timeoutMs + 1000): Promise<void> {
      running = false;
      await loop.stop();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        sending.onIdle(),
        new Promise<void>((r) => {
          timer = setTimeout(r, graceMs);
        }),
      ]);
      clearTimeout(timer);
      if (inFlight.size > 0) await queue.recoverInFlight([...inFlight].map(([id, claim]) => ({ id, claim })));
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
