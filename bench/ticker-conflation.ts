/**
 * Tickers on slow links: what field projection and conflation save per subscriber. A meeting of 12 real-sized
 * races has every runner's price move 20 times a second across the meeting for 10 s (200 patches, as a busy
 * market near the jump); N subscribers follow the meeting whole, projected to status and prices, conflated to
 * one merged patch a second, or both. Measured: bytes and messages each subscriber received during the moves,
 * and the server's CPU (in a child process; the first row, without subscribers, is the pipeline's own cost).
 *
 *   npx tsx bench/ticker-conflation.ts [--subscribers 50] [--rounds 2]
 */
import { setPriority } from 'node:os';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { median, startServerChild } from './support/child.js';

const { values } = parseArgs({
  options: { subscribers: { type: 'string', default: '50' }, rounds: { type: 'string', default: '2' } },
});
const N = Number(values.subscribers);
const RACES = 12;
setPriority(process.pid, 19); // the subscribers stand for other machines

const modes: Record<string, object | null> = {
  'no subscribers': null,
  whole: {},
  'fields (status, prices)': { fields: ['/race/status', '/runners/*/odds'] },
  'conflateMs 1000': { conflateMs: 1000 },
  'fields + conflateMs 1000': { fields: ['/race/status', '/runners/*/odds'], conflateMs: 1000 },
  'conflateMs 5000': { conflateMs: 5000 },
};

async function subscriber(url: string, options: object) {
  const ws = new WebSocket(url, { skipUTF8Validation: true });
  let bytes = 0;
  let messages = 0;
  let snapshots = 0;
  let counting = false;
  const ready = new Promise<void>((resolve) => {
    ws.on('message', (data: Buffer) => {
      if (counting) {
        bytes += data.length;
        messages++;
      } else if (data.subarray(0, 48).includes('"snapshot","stream":"R') && ++snapshots === RACES) resolve();
    });
  });
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ op: 'subscribe', channel: 'meeting:M1', ...options }));
  await ready;
  return {
    start: () => {
      counting = true;
    },
    stop: () => {
      ws.terminate();
      return { bytes, messages };
    },
  };
}

const rows = new Map<string, { bytes: number[]; messages: number[]; cpuMs: number[] }>();
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, options] of Object.entries(modes)) {
    const server = await startServerChild({ IMPL: 'racewire', RACES: String(RACES), PATCHES: '0' });
    const subs = options
      ? await Promise.all(Array.from({ length: N }, () => subscriber(server.url, options)))
      : [];
    for (const s of subs) s.start();
    const { cpuUs } = await server.ask<{ cpuUs: number }>(
      { cmd: 'drive', perSecond: 20, seconds: 10 },
      'drive',
    );
    await new Promise((r) => setTimeout(r, 5500)); // the last conflated flush
    const got = subs.map((s) => s.stop());
    server.stop();
    const row = rows.get(name) ?? { bytes: [], messages: [], cpuMs: [] };
    row.bytes.push(got.length ? median(got.map((g) => g.bytes)) : 0);
    row.messages.push(got.length ? median(got.map((g) => g.messages)) : 0);
    row.cpuMs.push(cpuUs / 1000);
    rows.set(name, row);
  }
}
console.log(
  `${N} subscribers, meeting of ${RACES} real-sized races, 200 price moves in 10 s (medians of ${values.rounds} rounds)`,
);
console.log(
  'mode                     | bytes per subscriber | messages per subscriber | server CPU (ms) | CPU per subscriber (ms)',
);
const base = median(rows.get('no subscribers')!.cpuMs);
for (const [name, r] of rows) {
  const cpu = median(r.cpuMs);
  console.log(
    `${name.padEnd(24)} | ${median(r.bytes).toLocaleString('en').padStart(20)} | ${String(median(r.messages)).padStart(23)} | ${cpu.toFixed(0).padStart(15)} | ${name === 'no subscribers' ? '-' : ((cpu - base) / N).toFixed(2)}`,
  );
}
process.exit(0);
