/**
 * The fan-out benchmark's load generator, in its own process: N WebSocket or SSE clients of one race, each
 * noting for every message the time from its `t` (stamped when the server published it) to its receipt.
 *
 * Parent messages: {cmd:'connect', url, n, kind, subscribe} -> {connected}; {cmd:'wait', expected, timeoutMs}
 * -> {count, p50, p99, max} once `expected` messages arrived (or the time ran out), then counts restart;
 * {cmd:'exit'}.
 */
import http from 'node:http';
import WebSocket from 'ws';

type Msg =
  | { cmd: 'connect'; url: string; n: number; kind: 'ws' | 'sse'; subscribe: boolean }
  | { cmd: 'wait'; expected: number; timeoutMs: number }
  | { cmd: 'exit' };

const nowMs = () => performance.timeOrigin + performance.now();
let latencies = new Float64Array(1 << 23);
let count = 0;
const closers: Array<() => void> = [];

/** Notes every `"t":<ms>` in a piece of text. */
function note(text: string) {
  for (let i = text.indexOf('"t":'); i >= 0; i = text.indexOf('"t":', i + 4)) {
    const t = Number.parseFloat(text.slice(i + 4, i + 24));
    if (count < latencies.length) latencies[count] = nowMs() - t;
    count++;
  }
}

function wsClient(url: string, subscribe: boolean) {
  return new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url, ['racewire.v1']);
    ws.on('error', reject);
    ws.on('open', () => {
      closers.push(() => ws.terminate());
      if (!subscribe) return resolve();
      ws.send(JSON.stringify({ op: 'subscribe', channel: 'race:R1' }));
    });
    ws.on('message', (data: Buffer) => {
      const text = data.toString('latin1');
      if (subscribe && text.startsWith('{"type":"snapshot"')) resolve();
      else note(text);
    });
  });
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

function sseClient(url: string) {
  return new Promise<void>((resolve, reject) => {
    const req = http.get(url, { agent }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE status ${res.statusCode}`));
      res.setEncoding('latin1');
      let carry = '';
      let ready = false;
      res.on('data', (chunk: string) => {
        // A message may span chunks: keep the text after the last complete block.
        const text = carry + chunk;
        const end = text.lastIndexOf('\n\n');
        carry = end < 0 ? text : text.slice(end + 2);
        const complete = end < 0 ? '' : text.slice(0, end);
        if (!ready && complete.includes('event: snapshot')) {
          ready = true;
          resolve();
          return;
        }
        note(complete);
      });
    });
    req.on('error', reject);
    closers.push(() => req.destroy());
  });
}

async function handle(msg: Msg) {
  if (msg.cmd === 'connect') {
    const step = 250;
    for (let i = 0; i < msg.n; i += step) {
      await Promise.all(
        Array.from({ length: Math.min(step, msg.n - i) }, () =>
          msg.kind === 'sse' ? sseClient(msg.url) : wsClient(msg.url, msg.subscribe),
        ),
      );
    }
    count = 0;
    process.send?.({ cmd: 'connected' });
  } else if (msg.cmd === 'wait') {
    const deadline = Date.now() + msg.timeoutMs;
    while (count < msg.expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const n = Math.min(count, latencies.length);
    const sorted = latencies.slice(0, n).sort();
    const q = (p: number) => sorted[Math.min(n - 1, Math.floor(p * n))] ?? Number.NaN;
    process.send?.({ cmd: 'waited', count, p50: q(0.5), p99: q(0.99), max: sorted[n - 1] ?? Number.NaN });
    count = 0;
    latencies = new Float64Array(1 << 23);
  } else {
    for (const close of closers) close();
    process.exit(0);
  }
}

process.on('message', (msg: Msg) => {
  handle(msg).catch((err) => {
    console.error('load generator failed', err);
    process.exit(1);
  });
});
process.send?.({ cmd: 'up' });
