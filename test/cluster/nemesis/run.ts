/**
 * The nemesis: three racewire nodes (child processes) on a Redis of its own, polling one simulator, with
 * WebSocket subscribers to two races on every node and a webhook receiver, while a seeded schedule
 * (schedule.ts) SIGKILLs the leader, SIGSTOPs it past its lease and resumes it, restarts Redis with and
 * without its data and drops bus messages. Runners are scratched throughout so the races keep changing, and a
 * crowd client on every node subscribes to ~200 Final races, so that every new leader has that many
 * subscribed races without a document (issue 27: the races at the jump must not wait behind them).
 * Then the checker asserts the invariants of issues 14 and 27 (checks.ts, fence-audit.ts) and answers each
 * check.
 */
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pollerLeaseKey } from '../../../src/backend/redis.js';
import { redisLogKeys } from '../../../src/store/redis/log-keys.js';
import { valueText } from '../../../src/store/redis/redis-event-log.js';
import { clusterClock, clusterNow } from '../cluster-clock.js';
import {
  clusterEnv,
  freePort,
  type NodeProcess,
  raceListed,
  spawnNode,
  startClusterSimulator,
  startWebhookReceiver,
} from '../cluster-harness.js';
import { recordRace } from '../ws-recorder.js';
import {
  type Check,
  fencedClaimPasses,
  gapIn,
  peakPerMinute,
  requestMix,
  requestTrace,
  reusedIds,
  segmentsOf,
  starvedRaces,
  type Takeover,
} from './checks.js';
import { type Crowd, startCrowd } from './crowd.js';
import { keepEvidence } from './evidence.js';
import { startFenceAudit } from './fence-audit.js';
import { startOwnRedis } from './redis-server.js';
import { faultSchedule, seeded } from './schedule.js';

// Every node runs through the nemesis's own entry, which injects the lease trust it asks for.
const NODE_ENTRY = fileURLToPath(new URL('./node.ts', import.meta.url));
const BUDGET = 60;
const LEASE_TTL_MS = 1_500;
const PREFIX = 'racewire:';
/** Final races the crowd subscribes to on every node (issue 27's takeover had 189). */
const CROWD_RACES = 200;
/** A race starting within this long (or past its start and not over) is near its jump. */
const NEAR_JUMP_MS = 10 * 60_000;
/**
 * After a takeover every race near its jump must be fetched within this many upstream requests: issue 27's
 * 30 s at the budget of 60 a minute. Judged in requests, not seconds: the simulator stamps arrivals on this
 * process's event loop, which stalled 9-14 s at load ~20 and failed a judgement in seconds in 3 runs of 3
 * (docs/benchmarks.md), while the order of the requests is exact whatever the load, and a request is what
 * the budget spends.
 */
const STARVATION_LIMIT = 30;
const FINISHED = new Set(['Final', 'Abandoned']);

export interface NemesisOptions {
  minutes: number;
  seed: number;
  /**
   * The unsafe lease trust, in ms, on every node (node.ts injects ../unsafe-trust.ts): a paused leader resumes
   * still trusting its lease, so it appends and claims with a stale token until its renew fails, and only the
   * fence stops it. 0: the production lease,
   * whose local validity stops a paused leader before it writes (the fence then goes unexercised).
   */
  unsafeTrustMs: number;
  log?: (line: string) => void;
}

export interface NemesisResult {
  checks: Check[];
  passed: number;
  failed: number;
}

type Recorder = Awaited<ReturnType<typeof recordRace>>;
interface Subscriber {
  node: NodeProcess;
  raceId: string;
  rec: Recorder;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (n: NodeProcess) => n.child.exitCode === null && n.child.signalCode === null;

/** A GET that gives up after 2 s (a paused node never answers). */
async function getJson(
  node: NodeProcess,
  path: string,
): Promise<{ status: number; body: { cluster?: { leader?: boolean } } } | undefined> {
  try {
    const res = await fetch(`${node.url}${path}`, { signal: AbortSignal.timeout(2_000) });
    return { status: res.status, body: await res.json() };
  } catch {
    return undefined;
  }
}

async function waitFor<T>(what: string, timeoutMs: number, cond: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await cond();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

export async function runNemesis(opts: NemesisOptions): Promise<NemesisResult> {
  const log = opts.log ?? (() => {});
  let t0 = clusterNow();
  const stamp = () => `${((clusterNow() - t0) / 1000).toFixed(1).padStart(7)}s`;
  const note = (line: string) => log(`${stamp()} ${line}`);
  const durationMs = Math.round(opts.minutes * 60_000);
  const random = seeded(opts.seed ^ 0x5eed);

  const redis = await startOwnRedis(await freePort());
  const fenceKey = redisLogKeys(PREFIX).fence;
  const audit = await startFenceAudit(redis.url, fenceKey);
  const upstream = await startClusterSimulator(BUDGET, clusterClock);
  const receiver = await startWebhookReceiver();
  const env = {
    ...clusterEnv({ prefix: PREFIX, upstream: upstream.url, budget: BUDGET }),
    REDIS_URL: redis.url,
    LEASE_TTL_MS: String(LEASE_TTL_MS),
    NEMESIS_UNSAFE_TRUST_MS: String(opts.unsafeTrustMs),
    EVENT_LOG_WINDOW: '1000000',
    // Traced: the leases taken and lost (info) show which node polled when.
    ...(process.env.NEMESIS_TRACE ? { LOG_LEVEL: 'info' } : {}),
  };
  const nodes: NodeProcess[] = [];
  const killed = new Set<NodeProcess>();
  const subscribers: Subscriber[] = [];
  const crowds: Crowd[] = [];
  /**
   * Leader kills, pauses and wipes: the instants after which a node without the documents leads. Every instant
   * here is on the cluster clock, as the simulator's stamps and the nodes' event times are.
   */
  const takeovers: { label: string; at: number }[] = [];
  const wipes: number[] = [];
  /** Deliveries received when each wipe happened: some before and some after show the id check bit. */
  const receivedAtWipe: number[] = [];
  let registeredAt = 0;
  let spawned = 0;
  const checks: Check[] = [];
  // Whatever happens to this process, no node outlives it.
  const killAll = () => {
    for (const n of nodes) n.child.kill('SIGKILL');
  };
  process.once('exit', killAll);

  const spawn = async () => {
    const name = `n${++spawned}`;
    // Each node's requests name it (the simulator records the From header), for the request trace.
    const node = await spawnNode(name, { ...env, RACING_API_FROM: name }, 180_000, NODE_ENTRY);
    nodes.push(node);
    return node;
  };
  const leader = async () => {
    for (const node of nodes.filter(alive))
      if ((await getJson(node, '/v1/ops'))?.body.cluster?.leader) return node;
    return undefined;
  };

  try {
    await spawn();
    await waitFor('a leader', 20_000, leader);
    await spawn();
    await spawn();

    // Two Open races far enough from their jumps to stay open for the whole run.
    const now = clusterNow();
    const races = upstream.sim.world.races
      .map((r) => ({ id: r.id, view: upstream.sim.world.raceView(r.id, now) }))
      .filter(
        (r) =>
          r.view.status === 'Open' &&
          Date.parse(r.view.startTime) > now + durationMs + 20 * 60_000 &&
          r.view.runners.filter((x) => !x.scratched).length >= 8,
      )
      .slice(0, 2)
      .map((r) => ({
        id: r.id,
        runners: r.view.runners.filter((x) => !x.scratched).map((x) => x.entrantId),
      }));
    if (races.length < 2) throw new Error('fewer than two suitable races in the simulated day');
    for (const race of races) await raceListed(nodes[0]!, race.id);

    // One endpoint per race (every event type), registered again after Redis lost its data.
    const register = async () => {
      for (const race of races) {
        await waitFor('an endpoint registered', 30_000, async () => {
          for (const node of nodes.filter(alive)) {
            const res = await fetch(`${node.url}/v1/webhooks/endpoints`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ url: receiver.url, eventTypes: ['*'], filters: { raceId: race.id } }),
              signal: AbortSignal.timeout(2_000),
            }).catch(() => undefined);
            if (res?.status === 201) return true;
          }
          return undefined;
        });
      }
      registeredAt = clusterNow();
    };
    await register();
    // The most recent Final races: a new leader refills their documents on refill turns only.
    const finals = upstream.sim.world.races
      .map((r) => ({ id: r.id, view: upstream.sim.world.raceView(r.id, now) }))
      .filter((r) => r.view.status === 'Final')
      .sort((a, b) => Date.parse(b.view.startTime) - Date.parse(a.view.startTime))
      .slice(0, CROWD_RACES)
      .map((r) => r.id);
    const subscribe = async (node: NodeProcess) => {
      for (const race of races)
        subscribers.push({ node, raceId: race.id, rec: await recordRace(node.url, race.id) });
      crowds.push(await startCrowd(node.url, finals, `127.0.0.${10 + crowds.length}`));
    };
    for (const node of [...nodes]) await subscribe(node);
    await waitFor('the crowd subscribed', 60_000, async () =>
      crowds.every((c) => c.subscribed() >= finals.length) ? true : undefined,
    );

    // Scratchings keep the races changing: one every 6-15 s while a race has runners to spare.
    let scratching = true;
    const scratcher = (async () => {
      while (scratching) {
        await sleep(6_000 + random() * 9_000);
        const race = races[Math.floor(random() * races.length)]!;
        if (race.runners.length > 3) {
          const entrant = race.runners.splice(Math.floor(random() * race.runners.length), 1)[0]!;
          upstream.sim.world.scratch(race.id, entrant);
          note(`scratch ${entrant} in ${race.id}`);
        }
      }
    })();

    // The schedule's clock starts once the cluster is up and subscribed (start-up is slow on a busy machine).
    t0 = clusterNow();
    note(
      `cluster up: ${nodes.map((n) => n.name).join(', ')}; races ${races.map((r) => r.id).join(', ')}; crowd of ${finals.length} Final races on every node`,
    );
    // The id check needs deliveries on both sides of a wipe. A wipe drawn before the first scratching was
    // delivered left it unexercised (seed 1959825000; seed 108609 in one .ci/run of 2026-11-26), so a wipe waits,
    // at most 60 s while the scratcher goes on, for a delivery since the last wipe.
    const deliveryBeforeWipe = async () => {
      const before = receivedAtWipe.at(-1) ?? 0;
      if (receiver.received.length > before) return;
      note('waiting for a webhook delivery before the wipe');
      await waitFor('a delivery before a wipe', 60_000, async () =>
        receiver.received.length > before ? true : undefined,
      ).catch(() => {});
    };
    const bus = new Redis(redis.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    bus.on('error', () => {});
    // The node Redis names as the lease's holder, once it also says it leads. Any node that says it leads is
    // not enough: on the unsafe trust an ex-leader says so for seconds after it lost the lease (a wipe takes
    // the lease with it), and pausing one whose trust ends while it is stopped exercises no fence (seed
    // 700628375: n1, leading on trust since the wipe 8.7 s before, resumed with its trust over, wrote nothing).
    const leaseReader = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    leaseReader.on('error', () => {});
    const holderOfLease = async () => {
      const name = (await leaseReader.get(pollerLeaseKey(PREFIX)).catch(() => null))?.split('|')[0];
      const named = nodes.find((n) => alive(n) && n.name === name);
      return named && (await getJson(named, '/v1/ops'))?.body.cluster?.leader ? named : undefined;
    };
    for (const step of faultSchedule(opts.seed, durationMs)) {
      const wait = t0 + step.at - clusterNow();
      if (wait > 0) await sleep(wait);
      const holder = step.fault.endsWith('-leader')
        ? await waitFor('the lease holder', 20_000, holderOfLease).catch(() => undefined)
        : undefined;
      note(`${step.fault}${holder ? ` ${holder.name}` : ''} (hold ${step.holdMs} ms)`);
      switch (step.fault) {
        case 'kill-leader': {
          if (!holder) break;
          takeovers.push({ label: `kill ${holder.name} at ${stamp()}`, at: clusterNow() });
          killed.add(holder);
          holder.child.kill('SIGKILL');
          await holder.exited;
          await sleep(step.holdMs);
          await subscribe(await spawn());
          break;
        }
        case 'pause-leader': {
          if (!holder) break;
          takeovers.push({ label: `pause ${holder.name} at ${stamp()}`, at: clusterNow() });
          holder.child.kill('SIGSTOP');
          await sleep(LEASE_TTL_MS * 2 + step.holdMs);
          holder.child.kill('SIGCONT');
          break;
        }
        case 'redis-restart':
        case 'redis-wipe': {
          const keep = step.fault === 'redis-restart';
          if (!keep) await deliveryBeforeWipe();
          if (!keep) takeovers.push({ label: `wipe at ${stamp()}`, at: clusterNow() });
          await redis.restart(keep, step.holdMs);
          if (!keep) {
            wipes.push(clusterNow());
            receivedAtWipe.push(receiver.received.length);
            audit.serverWiped();
          }
          await audit.reconnect();
          if (!keep) await register();
          break;
        }
        case 'drop-bus': {
          if (bus.status === 'wait' || bus.status === 'end') await bus.connect().catch(() => {});
          await bus.client('KILL', 'TYPE', 'pubsub').catch(() => {});
          break;
        }
        case 'calm':
          break;
      }
    }
    // The id check needs a delivery after a wipe as well as before it. After the wipe the races near their
    // jump go first (issue 27) and the crowd's Final races take refill turns, so the endpoints' races are
    // fetched again some 25 s later at this budget, which in a one-minute run can leave no scratching after
    // it: the scratcher goes on, for at most 90 s, until one is delivered.
    const bitten = () => receivedAtWipe.some((n) => n > 0 && receiver.received.length > n);
    if (wipes.length > 0 && !bitten()) {
      note('waiting for a webhook delivery after a wipe');
      await waitFor('a delivery after a wipe', 90_000, async () => (bitten() ? true : undefined)).catch(
        () => {},
      );
    }
    scratching = false;
    await scratcher;
    bus.disconnect();
    leaseReader.disconnect();
    note('schedule over: checking');

    // The log's heads; every live subscriber must reach them. Read again at every look: the leader still
    // polls, and after a late wipe a race has no head until its next fetch makes one in the new epoch (read
    // once, before that fetch, its head was "/0" and its subscribers, then at seq 3 of that epoch, were
    // judged behind it: seed 108609 on 3e88249, seed 651925524 on c496f6b).
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    const keys = redisLogKeys(PREFIX);
    const heads = new Map<string, { epoch: string; seq: number }>();
    const readHeads = async () => {
      for (const race of races) {
        const [epoch, seq] = await admin.hmget(keys.head(race.id), 'epoch', 'seq');
        heads.set(race.id, { epoch: epoch ?? '', seq: Number(seq ?? 0) });
      }
    };
    const live = subscribers.filter((s) => alive(s.node) && !s.rec.closed());
    const reached = (s: Subscriber) => {
      const head = heads.get(s.raceId)!;
      const last = segmentsOf(s.rec.messages).at(-1);
      return last !== undefined && last.epoch === head.epoch && (last.seqs.at(-1) ?? last.from) >= head.seq;
    };
    await waitFor('every live subscriber at the head', 60_000, async () => {
      await readHeads();
      return live.every(reached) ? true : undefined;
    }).catch(() => {});

    // 1. Gap-free: within each segment every seq once, in order, on every subscriber (dead nodes' too).
    const gaps: string[] = [];
    let resyncs = 0;
    for (const s of subscribers) {
      const segments = segmentsOf(s.rec.messages);
      resyncs += Math.max(0, segments.length - 1);
      for (const seg of segments) {
        const gap = gapIn(seg);
        if (gap) gaps.push(`${s.node.name}/${s.raceId}: ${gap}`);
      }
    }
    checks.push({
      name: 'every subscriber gap-free within each segment',
      ok: gaps.length === 0,
      detail: gaps.length
        ? gaps.slice(0, 5).join('; ')
        : `${subscribers.length} subscribers, ${resyncs} resyncs`,
    });

    // 2. Every event the log holds reached every live subscriber of its stream.
    const logEvents = new Map<string, { id: string; seq: number; at: number }[]>();
    for (const race of races) {
      const raw = await admin.xrangeBuffer(keys.entries(race.id), '-', '+');
      logEvents.set(
        race.id,
        raw.flatMap(([, fields]) => {
          const e = JSON.parse(valueText(fields[1]!)) as {
            kind: string;
            seq: number;
            timestamp: string;
            event?: { id: string };
          };
          return e.kind === 'event' && e.event
            ? [{ id: e.event.id, seq: e.seq, at: Date.parse(e.timestamp) }]
            : [];
        }),
      );
    }
    const missing: string[] = [];
    for (const s of live) {
      const last = segmentsOf(s.rec.messages).at(-1);
      const head = heads.get(s.raceId)!;
      if (!last || last.epoch !== head.epoch || !reached(s)) {
        const at = last ? `${last.epoch}/${last.seqs.at(-1) ?? last.from}` : 'nothing';
        const closedNote = s.rec.closed() ? ' (connection closed)' : '';
        missing.push(
          `${s.node.name}/${s.raceId}: at ${at}${closedNote}, not at the head ${head.epoch}/${head.seq}`,
        );
        continue;
      }
      const got = new Set(last.eventIds);
      for (const e of logEvents.get(s.raceId)!)
        if (e.seq > last.from && e.seq <= head.seq && !got.has(e.id)) missing.push(`${s.node.name}: ${e.id}`);
    }
    checks.push({
      name: 'every event the log holds reached every live subscriber',
      ok: missing.length === 0,
      detail: missing.length
        ? missing.slice(0, 5).join('; ')
        : `${live.length} live subscribers, ${[...logEvents.values()].flat().length} events in the log`,
    });

    // 3. Webhooks: every delivery the outbox holds delivered, with the event id as webhook-id; every event
    // appended after the endpoints' (last) registration owed and received.
    const received = new Set(receiver.received.map((r) => r.id));
    const wrongIds = receiver.received.filter((r) => r.id !== r.eventId);
    const openDeliveries = async () => {
      for (const r of receiver.received) received.add(r.id);
      const open: string[] = [];
      // Each endpoint's deliveries are one hash, id -> JSON (src/delivery/webhooks/redis/keys.ts).
      for (const key of await admin.keys(`${PREFIX}webhooks:{ep:*}:d`)) {
        for (const json of await admin.hvals(key)) {
          const { status, event_id: eventId } = JSON.parse(json) as { status: string; event_id: string };
          if (status !== 'delivered' || !received.has(eventId)) open.push(`${eventId} ${status}`);
        }
      }
      return open;
    };
    const undelivered = await waitFor('the outbox drained', 60_000, async () =>
      (await openDeliveries()).length === 0 ? [] : undefined,
    ).catch(openDeliveries);
    const unsent = [...logEvents.values()]
      .flat()
      .filter((e) => e.at > registeredAt + 1_000 && !received.has(e.id))
      .map((e) => e.id);
    const copies = receiver.received.length - new Set(receiver.received.map((r) => r.id)).size;
    checks.push({
      name: 'every webhook delivery at least once, same webhook-id',
      ok: undelivered.length === 0 && unsent.length === 0 && wrongIds.length === 0,
      detail:
        undelivered.length || unsent.length || wrongIds.length
          ? `undelivered ${undelivered.slice(0, 3).join(', ')}; unsent ${unsent.slice(0, 3).join(', ')}; wrong ids ${wrongIds.length}`
          : `${receiver.received.length} received, ${copies} repeats (same webhook-id)`,
    });

    // 4. Fencing, audited from the server's own command stream. With the knob, stale-token writes must have
    // been attempted (the fence exercised) and every one refused.
    const fenced = audit.stats();
    const staleWrites = fenced.stale.append + fenced.stale.claim;
    // Claim passes refused at their read of the mark, before any script (the audit sees only the scripts).
    const passes = fencedClaimPasses(nodes.map((n) => n.output.join('')));
    const knob = `unsafe lease trust ${opts.unsafeTrustMs} ms`;
    const exercised =
      opts.unsafeTrustMs === 0
        ? `knob off (${knob}): the local lease validity stops paused leaders first, so ${staleWrites} stale-token writes were attempted`
        : `knob ${knob} on every node: ${staleWrites} stale-token writes attempted (${fenced.stale.append} appends, ${fenced.stale.claim} claims), ${staleWrites - fenced.violations.length} refused by Redis; ${passes} claim passes the nodes logged as fenced (refused at their read of the mark or by the script)${staleWrites + passes === 0 ? ': the fence was not exercised' : ''}`;
    // Every run appends (the leaders fetch races); an audit that saw none no longer knows the append script.
    const blind = fenced.appends === 0 ? ': the audit recognised no append, so it judged none' : '';
    checks.push({
      name: 'no append and no outbox claim from a node that lost the lease',
      ok: fenced.violations.length === 0 && !blind && (opts.unsafeTrustMs === 0 || staleWrites + passes > 0),
      detail: `${exercised}; ${fenced.appends} fenced appends${blind} and ${fenced.claims} claims audited (${fenced.window} in the window between a claim pass's check and its endpoint's script)${fenced.violations.length ? `; violations: ${fenced.violations.slice(0, 5).join('; ')}` : ''}`,
    });

    // 5. The upstream budget, as the simulator counted it, across every hand-over.
    const { peak, skipped } = peakPerMinute(upstream.requests, wipes);
    const trusted = peakPerMinute(upstream.requests, [...wipes, ...upstream.stalls]);
    checks.push({
      name: 'the upstream budget held across hand-overs',
      ok: trusted.peak <= BUDGET,
      detail: `peak ${trusted.peak} of ${BUDGET} in any 60 s of arrivals, leaving out ${trusted.skipped} windows holding a Redis wipe (the shared window is lost) or a stall of the simulator's event loop over 1 s (its stamps then lag arrivals by more than the margin; worst stall ${upstream.worstStallMs()} ms, ${upstream.stalls.length} stalls); with only the wipes left out (${skipped} windows): peak ${peak}`,
    });

    // 6. Issue 27: no webhook-id came twice with other content, across every wipe (the log restarts each stream
    // at seq 1 in a new epoch); exercised when deliveries came both before and after a wipe.
    const reused = reusedIds(receiver.received);
    checks.push({
      name: 'no webhook-id reused with other content across Redis wipes',
      ok: reused.length === 0 && bitten(),
      detail: `${receiver.received.length} deliveries, ${wipes.length} wipes (deliveries before each: ${receivedAtWipe.join(', ') || 'none'})${bitten() ? '' : ': no wipe had deliveries on both sides, not exercised'}; ${reused.length} ids reused${reused.length ? `: ${reused.slice(0, 3).join(', ')}` : ''}`,
    });

    // 7. Issue 27: after every takeover, every race near its jump fetched within STARVATION_LIMIT requests
    // (the last takeover may need the checks' own time for that many).
    await waitFor('requests after every takeover', 60_000, async () =>
      takeovers.every((t) => upstream.calls.filter((c) => c.at >= t.at).length >= STARVATION_LIMIT)
        ? true
        : undefined,
    ).catch(() => {});
    checks.push(
      judgeStarvation(upstream, takeovers, crowds, finals, process.env.NEMESIS_TRACE ? log : undefined),
    );

    // 8. No node died but those the nemesis killed, and none logged a rejection nothing handled (a node
    // survives one, src/last-resort.ts, but it is the same bug).
    const crashed = nodes.filter((n) => !killed.has(n) && !alive(n));
    const unhandled = nodes.filter((n) => n.output.join('').includes('"code":"unhandled_rejection"'));
    checks.push({
      name: 'no node crashed',
      ok: crashed.length === 0 && unhandled.length === 0,
      detail:
        crashed.length + unhandled.length > 0
          ? [...crashed, ...unhandled].map((n) => `${n.name}: ${n.output.join('').slice(-500)}`).join('; ')
          : `${nodes.length} nodes, ${killed.size} killed by the nemesis, no unhandled rejection logged`,
    });
    admin.disconnect();
    if (checks.some((c) => !c.ok)) {
      const subs = subscribers.map((s) => ({ node: s.node, raceId: s.raceId, messages: s.rec.messages }));
      log(`evidence of the failed run: ${keepEvidence({ nodes, subscribers: subs })}`);
    }
    if (process.env.NEMESIS_TRACE) for (const line of leaseTrace(nodes, t0)) log(line);
  } finally {
    for (const s of subscribers) s.rec.close();
    for (const c of crowds) c.close();
    await Promise.all(
      nodes.filter(alive).map(async (n) => {
        n.child.kill('SIGCONT');
        n.child.kill('SIGTERM');
        await Promise.race([n.exited, sleep(10_000).then(() => n.child.kill('SIGKILL'))]);
      }),
    );
    process.off('exit', killAll);
    audit.close();
    await upstream.close();
    await receiver.close();
    await redis.close();
  }
  const passed = checks.filter((c) => c.ok).length;
  return { checks, passed, failed: checks.length - passed };
}

/**
 * Which races were near their jump at each takeover, by the simulator's truth: starting within NEAR_JUMP_MS
 * or past the start, and not over then nor by the request that ends the judgement (a race that went Final
 * meanwhile is no longer wanted at the jump). Then the check of `starvedRaces`.
 */
function judgeStarvation(
  upstream: Awaited<ReturnType<typeof startClusterSimulator>>,
  takeovers: readonly { label: string; at: number }[],
  crowds: readonly Crowd[],
  finals: readonly string[],
  /** Given: each takeover's near-jump races and first requests are printed through it (NEMESIS_TRACE=1). */
  trace?: (line: string) => void,
): Check {
  const { world } = upstream.sim;
  const judged: Takeover[] = takeovers.map((t) => {
    const after = upstream.calls.filter((c) => c.at >= t.at);
    const end = after[STARVATION_LIMIT - 1]?.at ?? after.at(-1)?.at ?? t.at;
    const nearJump = world.races
      // A delay only moves a start later, and a race two hours past its start is long over: the views
      // (slow to build, ~1 ms each) are read for those between only.
      .filter((r) => r.advertisedStart <= t.at + NEAR_JUMP_MS && r.advertisedStart > t.at - 2 * 3_600_000)
      .filter((r) => {
        const then = world.raceView(r.id, t.at);
        return (
          Date.parse(then.startTime) - t.at <= NEAR_JUMP_MS &&
          !FINISHED.has(then.status) &&
          !FINISHED.has(world.raceView(r.id, end).status)
        );
      })
      .map((r) => r.id);
    return { ...t, nearJump };
  });
  for (const t of trace ? judged : []) {
    const races = t.nearJump.map((id) => {
      const view = world.raceView(id, t.at);
      return `${id} ${view.status} ${Math.round((Date.parse(view.startTime) - t.at) / 1000)}s`;
    });
    trace?.(`trace ${t.label}: near jump ${races.join(', ')}`);
    const groups = { nearJump: new Set(t.nearJump), crowd: new Set(finals) };
    for (const line of requestTrace(upstream.calls, t.at, STARVATION_LIMIT + 15, groups))
      trace?.(`  ${line}`);
  }
  const { late, worst, judged: count } = starvedRaces(judged, upstream.calls, STARVATION_LIMIT);
  // Where the requests before a late race went, for each takeover with one (the cause is in the mix).
  const mixes = judged
    .filter((t) => late.some((l) => l.startsWith(`${t.label} `)))
    .map((t) => {
      const groups = { nearJump: new Set(t.nearJump), crowd: new Set(finals) };
      return `${t.label}: first ${worst} requests ${JSON.stringify(requestMix(upstream.calls, t.at, worst, groups))}`;
    });
  const crowd = `crowd: ${crowds.length} clients, ${crowds.map((c) => c.subscribed()).join('/')} races subscribed, ${crowds.flatMap((c) => c.errors()).length} refused`;
  return {
    name: 'every race near its jump fetched within 30 requests of each takeover',
    ok: takeovers.length > 0 && late.length === 0,
    detail: `${takeovers.length} takeovers (kills, pauses, wipes), ${count} near-jump races judged (${judged.map((t) => t.nearJump.length).join(', ') || 'none'} each), latest first fetch at request ${worst} of ${STARVATION_LIMIT}${late.length ? `; late: ${late.slice(0, 5).join('; ')}; ${mixes.slice(0, 3).join('; ')}` : ''}; ${crowd}`,
  };
}

/** Each node's lease and fence log lines, with their instant on the schedule's clock (NEMESIS_TRACE=1). */
function leaseTrace(nodes: readonly NodeProcess[], t0: number): string[] {
  const lines: { at: number; text: string }[] = [];
  for (const node of nodes) {
    for (const raw of node.output.join('').split('\n')) {
      const entry = (() => {
        try {
          return JSON.parse(raw) as { time?: number; msg?: string; token?: number };
        } catch {
          return undefined;
        }
      })();
      if (entry?.time === undefined || !/lease|fenced|generation|polls/.test(entry.msg ?? '')) continue;
      const at = ((entry.time - t0) / 1000).toFixed(1);
      lines.push({
        at: entry.time,
        text: `lease ${at}s ${node.name}: ${entry.msg}${entry.token ? ` (token ${entry.token})` : ''}`,
      });
    }
  }
  return lines.sort((a, b) => a.at - b.at).map((l) => l.text);
}
