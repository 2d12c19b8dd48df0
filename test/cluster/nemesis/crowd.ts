/**
 * The nemesis's crowd: one WebSocket client per node subscribed to many races (issue 27's ~200 Final ones),
 * so that a new leader has that many subscribed races without a document, as after a takeover in
 * production. Each client connects from an address of its own on the loopback (127.0.0.0/8), since
 * anonymous clients share their address's message budget (docs/protocol.md): the crowd's subscriptions
 * must not spend the recorders'.
 */
import WebSocket from 'ws';

/** Below the anonymous 20 messages a second, so no subscription is refused as rate-limited. */
const SUBSCRIBES_PER_SECOND = 15;

export interface Crowd {
  /** Subscriptions the node confirmed so far. */
  subscribed(): number;
  /** Error replies received (a refused subscription shows here). */
  errors(): string[];
  close(): void;
}

/** Connects from `localAddress` and subscribes to every race of `raceIds`, paced, without waiting for it. */
export async function startCrowd(
  baseUrl: string,
  raceIds: readonly string[],
  localAddress: string,
): Promise<Crowd> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws`, { localAddress });
  let subscribed = 0;
  const errors: string[] = [];
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { type: string; code?: string };
    if (msg.type === 'subscribed') subscribed++;
    if (msg.type === 'error') errors.push(msg.code ?? 'error');
  });
  // A node killed by the nemesis takes its crowd with it: that is expected, not an error of the run.
  ws.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let next = 0;
  const pacer = setInterval(() => {
    if (ws.readyState !== WebSocket.OPEN || next >= raceIds.length) {
      clearInterval(pacer);
      return;
    }
    ws.send(JSON.stringify({ op: 'subscribe', channel: `race:${raceIds[next++]}` }));
  }, 1000 / SUBSCRIBES_PER_SECOND);
  return {
    subscribed: () => subscribed,
    errors: () => errors,
    close: () => {
      clearInterval(pacer);
      ws.close();
    },
  };
}
