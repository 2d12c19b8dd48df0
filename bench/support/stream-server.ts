/**
 * A streaming server in a child process, so its memory and CPU are measured apart from the clients: racewire
 * (the subscription core behind the WebSocket gateway) or a plain `ws` baseline that answers a subscribe with
 * the same pre-serialised messages, without pacing (optionally with permessage-deflate on messages over
 * 16 KiB). The log holds `races` real-sized documents (the captured Awapuni event, ~197 KB) of one meeting,
 * each followed by `patches` price moves.
 *
 * Parent messages: {cmd:'stats'} -> {rss, cpuUs}; {cmd:'drive', perSecond, seconds} appends price moves at
 * that rate and answers {cpuUs}; {cmd:'exit'}.
 */

import { monitorEventLoopDelay } from 'node:perf_hooks';
import Fastify from 'fastify';
import { WebSocketServer } from 'ws';
import { createMemoryBus } from '../../src/bus/bus.js';
import type { CatalogRace, RaceCatalog } from '../../src/delivery/core/catalog.js';
import { entryOutgoing } from '../../src/delivery/core/entry-messages.js';
import { joined } from '../../src/delivery/core/outgoing.js';
import type { LogEntry } from '../../src/events/envelope.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { diffDocuments } from '../../src/watch/track/diff.js';
import { realDoc } from '../../test/delivery/support/real-doc.js';
import { unboundedGateway } from '../unbounded-gateway.js';

export type Impl = 'racewire' | 'ws' | 'ws-deflate';
const impl = (process.env.IMPL ?? 'racewire') as Impl;
const races = Number(process.env.RACES ?? 15);
const patches = Number(process.env.PATCHES ?? 5);

const log = createMemoryEventLog({ window: 5000 });
const bus = createMemoryBus();
const ids = Array.from({ length: races }, (_, i) => `R${i + 1}`);
const docs = new Map<string, unknown>();
const entries = new Map<string, LogEntry[]>();
let tick = 0;

/**
 * The next version of a race: every runner's price moves (with its fluc list sliding, as in the real data)
 * and the money tracker's shares shift, as between two polls of a busy market.
 */
function nextDoc(raceId: string) {
  const doc = realDoc(raceId, ++tick) as unknown as Record<string, unknown> & {
    runners: Record<string, { flucs?: unknown[]; odds: { fixed_win: number } }>;
    money_tracker?: { entrants?: Record<string, Array<{ hold_percentage?: number }>> };
  };
  for (const r of Object.values(doc.runners))
    if (Array.isArray(r.flucs)) r.flucs = [...r.flucs.slice(1), r.odds.fixed_win];
  for (const rows of Object.values(doc.money_tracker?.entrants ?? {})) {
    if (rows[0]) rows[0].hold_percentage = tick % 17;
  }
  return doc;
}

async function change(raceId: string) {
  const prev = docs.get(raceId);
  const next = nextDoc(raceId);
  const stored = prev
    ? await log.append(raceId, {
        entries: [{ kind: 'patch', ops: diffDocuments(prev, next) }],
        document: next,
        now: new Date(),
      })
    : await log.append(raceId, {
        entries: [{ kind: 'snapshot', document: next }],
        document: next,
        now: new Date(),
      });
  docs.set(raceId, next);
  entries.get(raceId)!.push(...stored);
  bus.publish(stored);
}

for (const id of ids) {
  entries.set(id, []);
  await change(id);
  for (let p = 0; p < patches; p++) await change(id);
}

const catalogRaces = new Map<string, CatalogRace>(
  ids.map((raceId) => [
    raceId,
    { raceId, meetingId: 'M1', country: 'AUS', category: 'T', status: 'Open', startTime: 0 },
  ]),
);
const catalog: RaceCatalog = {
  race: (id) => catalogRaces.get(id),
  racesOfMeeting: (m) => (m === 'M1' ? ids : []),
  staleness: () => undefined,
};

let port: number;
if (impl === 'racewire') {
  const app = Fastify();
  // Partner scope (`?token=bench`): whole documents, as the baseline sends them.
  const keys = new Map([['bench', { name: 'bench', scope: 'partner' as const }]]);
  await unboundedGateway(app, { log, bus, catalog, auth: { allowAnonymous: true, keys } });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
} else {
  // The baseline: every stored entry serialised once, sent to each subscriber at once, no flow control.
  const frames = new Map<string, Buffer[]>();
  for (const [id, list] of entries)
    frames.set(
      id,
      list.map((e) => joined(entryOutgoing(e, 'partner', {})!)),
    );
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    perMessageDeflate: impl === 'ws-deflate' ? { threshold: 16 * 1024 } : false,
  });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  wss.on('connection', (ws) => {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { op: string; reqId?: string; channel?: string };
      if (msg.op === 'ping') ws.send(JSON.stringify({ type: 'pong', time: Date.now(), reqId: msg.reqId }));
      if (msg.op === 'subscribe' && msg.channel === 'meeting:M1')
        for (const id of ids) for (const f of frames.get(id)!) ws.send(f, { binary: false });
    });
  });
  port = (wss.address() as { port: number }).port;
}

const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();

const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

process.on('message', async (m: { cmd: string; perSecond?: number; seconds?: number }) => {
  if (m.cmd === 'stats')
    process.send?.({
      cmd: 'stats',
      rss: process.memoryUsage().rss,
      cpuUs: cpu(),
      loopMaxMs: loopDelay.max / 1e6,
      loopP99Ms: loopDelay.percentile(99) / 1e6,
    });
  if (m.cmd === 'reset-loop') loopDelay.reset();
  if (m.cmd === 'drive') {
    const start = cpu();
    const total = m.perSecond! * m.seconds!;
    const every = 1000 / m.perSecond!;
    const t0 = performance.now();
    for (let n = 0; n < total; n++) {
      const wait = t0 + n * every - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await change(ids[n % ids.length]!);
    }
    process.send?.({ cmd: 'drive', cpuUs: cpu() - start });
  }
  if (m.cmd === 'exit') process.exit(0);
});
process.send?.({
  cmd: 'up',
  url: `ws://127.0.0.1:${port}${impl === 'racewire' ? '/ws' : '/'}?token=bench`,
  epoch: (await log.head('R1')).epoch,
});
