/**
 * Resume storm at real sizes: 1,000 clients resume from seq 0 on the 20 real-sized races of a meeting
 * (a ~197 KB document and 5 price moves each: 120 messages, ~4 MB per client, ~4 GB in all) while another
 * client, in a process of its own, pings every 20 ms. Measures the server's RSS growth during the storm and 60 s after the clients left,
 * the time until every client has every entry, and the other client's ping round trip. racewire against a plain
 * `ws` server sending the same pre-serialised messages at once; the server runs in a child process, rounds
 * interleave.
 *
 *   npx tsx bench/resume-storm.ts [--clients 1000] [--rounds 2] [--release-wait 60]
 */
import { fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { percentile, type ServerChild, startServerChild } from './support/child.js';
import type { Impl } from './support/stream-server.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '2' },
    'release-wait': { type: 'string', default: '60' },
  },
});
const CLIENTS = Number(values.clients);
// The storm's 1,000 clients would be on other machines: here they share 2 cores with the server, so they run
// at the lowest priority and skip UTF-8 validation, leaving the CPU to the server and the pinging client.
setPriority(process.pid, 19);
const RACES = 20;
const PATCHES = 5;
const PER_CLIENT = RACES * (1 + PATCHES);
const MB = 1024 * 1024;

let stormStart = 0;
const rss = async (s: ServerChild) => (await s.ask<{ rss: number }>({ cmd: 'stats' }, 'stats')).rss;

/** The other client, in a process of its own (see support/pinger.ts). */
async function pinger(url: string) {
  const child = fork(new URL('./support/pinger.ts', import.meta.url).pathname, [], {
    env: { ...process.env, URL: url },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  if (child.pid) setPriority(child.pid, 0);
  await new Promise<void>((resolve) => child.once('message', () => resolve()));
  return {
    stop: () =>
      new Promise<number[]>((resolve) => {
        child.on('message', (m: { cmd: string; rtts: number[]; at: number[] }) => {
          if (process.env.BENCH_DEBUG) {
            const worst = m.rtts
              .map((r, i) => [r, m.at[i]! - stormStart] as const)
              .sort((a, b) => b[0] - a[0]);
            console.log(
              'worst pings [rtt ms, sent at ms after the storm began]',
              JSON.stringify(worst.slice(0, 12).map(([r, t]) => [Math.round(r), Math.round(t)])),
            );
          }
          if (m.cmd === 'rtts') resolve(m.rtts);
        });
        child.send({ cmd: 'stop' });
      }),
  };
}

async function storm(server: ServerChild) {
  const from = Object.fromEntries(
    Array.from({ length: RACES }, (_, i) => [`R${i + 1}`, { seq: 0, epoch: server.epoch }]),
  );
  const subscribe = JSON.stringify({ op: 'subscribe', channel: 'meeting:M1', from });
  const sockets: WebSocket[] = [];
  let complete = 0;
  let closedEarly = 0;
  const allDone = new Promise<void>((resolve) => {
    for (let i = 0; i < CLIENTS; i++) {
      const ws = new WebSocket(server.url, { skipUTF8Validation: true });
      sockets.push(ws);
      let got = 0;
      ws.on('message', (data: Buffer) => {
        // Count race entries without parsing the documents: `{"type":"…","stream":"R…`.
        if (data.subarray(0, 48).includes('"stream":"R') && !data.subarray(0, 20).includes('resumed')) {
          if (++got === PER_CLIENT && ++complete + closedEarly === CLIENTS) resolve();
        }
      });
      ws.on('close', () => {
        if (got < PER_CLIENT && ++closedEarly + complete === CLIENTS) resolve();
      });
      ws.on('error', () => {});
      ws.once('open', () => ws.send(subscribe));
    }
  });
  return { sockets, allDone, counts: () => ({ complete, closedEarly }) };
}

type Row = {
  impl: Impl;
  complete: number;
  seconds: number;
  start: number;
  peak: number;
  after: number;
  p50: number;
  p99: number;
};
const rows: Row[] = [];
for (let round = 0; round < Number(values.rounds); round++) {
  for (const impl of (process.env.BENCH_IMPLS?.split(',') ?? ['ws', 'racewire']) as Impl[]) {
    const server = await startServerChild({ IMPL: impl, RACES: String(RACES), PATCHES: String(PATCHES) });
    await new Promise((r) => setTimeout(r, 1000));
    const start = await rss(server);
    const ping = await pinger(server.url);
    let peak = start;
    const sampler = setInterval(async () => {
      peak = Math.max(peak, await rss(server));
    }, 200);
    const t0 = performance.now();
    stormStart = performance.timeOrigin + t0;
    const s = await storm(server);
    await s.allDone;
    const seconds = (performance.now() - t0) / 1000;
    const loop = await server.ask<{ loopMaxMs: number; loopP99Ms: number }>({ cmd: 'stats' }, 'stats');
    console.log(
      `${impl}: server event-loop delay p99 ${loop.loopP99Ms.toFixed(1)} ms, max ${loop.loopMaxMs.toFixed(1)} ms`,
    );
    clearInterval(sampler);
    peak = Math.max(peak, await rss(server));
    const rtts = await ping.stop();
    for (const ws of s.sockets) ws.terminate();
    await new Promise((r) => setTimeout(r, Number(values['release-wait']) * 1000));
    const after = await rss(server);
    server.stop();
    const row: Row = {
      impl,
      complete: s.counts().complete,
      seconds,
      start,
      peak,
      after,
      p50: percentile(rtts, 50),
      p99: percentile(rtts, 99),
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}
console.log(
  `\n${CLIENTS} clients resume from seq 0 on ${RACES} real-sized races (${PER_CLIENT} messages each)`,
);
console.log(
  'impl     | complete | time (s) | RSS start (MB) | growth at peak (MB) | after release (MB vs start) | ping p50 / p99 (ms)',
);
for (const r of rows) {
  console.log(
    `${r.impl.padEnd(8)} | ${String(r.complete).padStart(8)} | ${r.seconds.toFixed(1).padStart(8)} | ${(r.start / MB).toFixed(0).padStart(14)} | ${((r.peak - r.start) / MB).toFixed(0).padStart(19)} | ${((r.after - r.start) / MB).toFixed(0).padStart(27)} | ${r.p50.toFixed(1)} / ${r.p99.toFixed(1)}`,
  );
}
process.exit(0);
