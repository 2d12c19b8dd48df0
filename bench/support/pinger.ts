/**
 * Another client, in its own process so the storm's clients cannot delay it: pings every 20 ms and reports
 * the round trips when told to stop. Env: URL.
 */
import WebSocket from 'ws';

const ws = new WebSocket(process.env.URL!);
const rtts: number[] = [];
const at: number[] = [];
const sent = new Map<string, number>();
let n = 0;
let timer: ReturnType<typeof setInterval> | undefined;
ws.on('message', (data) => {
  const m = JSON.parse(data.toString()) as { type: string; reqId?: string };
  if (m.type === 'pong' && m.reqId && sent.has(m.reqId)) {
    rtts.push(performance.now() - sent.get(m.reqId)!);
    at.push(sent.get(m.reqId)! + performance.timeOrigin);
  }
});
ws.once('open', () => {
  timer = setInterval(() => {
    const id = `p${n++}`;
    sent.set(id, performance.now());
    ws.send(JSON.stringify({ op: 'ping', reqId: id }));
  }, 20);
  process.send?.({ cmd: 'up' });
});
process.on('message', (m: { cmd: string }) => {
  if (m.cmd !== 'stop') return;
  clearInterval(timer);
  ws.close();
  process.send?.({ cmd: 'rtts', rtts, at }, () => process.exit(0));
});
