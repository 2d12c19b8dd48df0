/**
 * A reader that keeps up subscribes to the largest meeting of the real day (15 races in
 * test/fixtures/real/meetings-day.json) at real document size: does every snapshot arrive, and how long until
 * the last? racewire (paced, cached, shared buffers) against a plain `ws` server sending the same messages at
 * once, with and without permessage-deflate on messages over 16 KiB; interleaved rounds, medians.
 *
 *   npx tsx bench/meeting-snapshots.ts [--rounds 5]
 */
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { median, startServerChild } from './support/child.js';
import type { Impl } from './support/stream-server.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const RACES = 15;

async function readMeeting(url: string, deflate: boolean) {
  const ws = new WebSocket(url, { perMessageDeflate: deflate });
  await new Promise((r) => ws.once('open', r));
  let snapshots = 0;
  let wireBytes = 0;
  const socket = (ws as unknown as { _socket: { on(e: string, f: (b: Buffer) => void): void } })._socket;
  socket.on('data', (b) => {
    wireBytes += b.length;
  });
  const t0 = performance.now();
  const done = new Promise<number>((resolve) => {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { type: string; stream: string };
      if (m.type === 'snapshot' && m.stream.startsWith('R') && ++snapshots === RACES)
        resolve(performance.now() - t0);
    });
  });
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  ws.send(JSON.stringify({ op: 'subscribe', channel: 'meeting:M1' }));
  const outcome = await Promise.race([done, closed.then((code) => -code)]);
  ws.close();
  return { ms: outcome, snapshots, wireBytes };
}

const impls: Impl[] = ['ws', 'ws-deflate', 'racewire'];
type Row = { ms: number[]; wire: number[]; cpu: number[]; snapshots: number[] };
const results = new Map<string, Row>();
const record = (name: string, r: Awaited<ReturnType<typeof readMeeting>>, cpuMs: number) => {
  const slot = results.get(name) ?? { ms: [], wire: [], cpu: [], snapshots: [] };
  slot.ms.push(r.ms);
  slot.wire.push(r.wireBytes);
  slot.cpu.push(cpuMs);
  slot.snapshots.push(r.snapshots);
  results.set(name, slot);
};
for (let round = 0; round < Number(values.rounds); round++) {
  for (const impl of impls) {
    const server = await startServerChild({ IMPL: impl, RACES: String(RACES), PATCHES: '0' });
    // Twice: racewire's first reader reads and serialises the documents (cold), the second finds them cached.
    for (const pass of ['cold', 'warm']) {
      const before = await server.ask<{ cpuUs: number }>({ cmd: 'stats' }, 'stats');
      const r = await readMeeting(server.url, impl === 'ws-deflate');
      const after = await server.ask<{ cpuUs: number }>({ cmd: 'stats' }, 'stats');
      record(
        impl === 'racewire' ? `racewire ${pass}` : `${impl} ${pass}`,
        r,
        (after.cpuUs - before.cpuUs) / 1000,
      );
    }
    server.stop();
  }
}
console.log(`largest meeting: ${RACES} real-sized races; ${values.rounds} interleaved rounds (medians)`);
console.log('impl            | snapshots | time to last (ms) | bytes on the wire | server CPU (ms)');
for (const [impl, r] of results) {
  console.log(
    `${impl.padEnd(15)} | ${Math.min(...r.snapshots)}/${RACES}     | ${median(r.ms).toFixed(1).padStart(17)} | ${median(r.wire).toLocaleString('en').padStart(17)} | ${median(r.cpu).toFixed(1)}`,
  );
}
