/**
 * The soak's race followers: one WebSocket client and one SSE client that follow the next races to jump,
 * as people watching the day do. `refresh` (every few race minutes) reads `/v1/meetings`, picks the
 * `count` unfinished races with the soonest start (from a few minutes back: a race at the jump is the
 * busiest), and moves both clients onto them: the WebSocket client unsubscribes and subscribes, the SSE
 * client reconnects with the new channels. They count what they receive.
 *
 * The SSE client uses node:http, not fetch: the soak counts fetches in flight to know when time may move,
 * and an event stream never ends.
 */
import { type ClientRequest, request } from 'node:http';
import WebSocket from 'ws';

const FINISHED = new Set(['Final', 'Abandoned']);
/** A race that started this long ago and is not finished is still followed (it is jumping or running). */
const RECENT_START_MS = 10 * 60_000;

interface MeetingsBody {
  meetings: { races: { raceId: string; startTime: string; status: string }[] }[];
}

export interface Followers {
  refresh(now: number): Promise<void>;
  /** Messages received by the WebSocket client and SSE `data:` lines received by the SSE client. */
  counts(): { ws: number; sse: number; races: number };
  close(): void;
}

export function followBusiestRaces(base: string, count: number): Followers {
  let ws = 0;
  let sse = 0;
  let following: string[] = [];
  const socket = new WebSocket(`${base.replace('http', 'ws')}/ws`);
  socket.on('message', () => {
    ws++;
  });
  socket.on('error', () => {});
  const opened = new Promise<void>((resolve) => socket.once('open', () => resolve()));
  let stream: ClientRequest | undefined;

  const openSse = (raceIds: string[]) => {
    stream?.destroy();
    const query = raceIds.map((id) => `channel=race:${encodeURIComponent(id)}`).join('&');
    stream = request(`${base}/v1/sse?${query}`, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) if (line.startsWith('data:')) sse++;
      });
      res.on('error', () => {});
    });
    stream.on('error', () => {});
    stream.end();
  };

  return {
    async refresh(now) {
      const body = (await (await fetch(`${base}/v1/meetings`)).json()) as MeetingsBody;
      const next = body.meetings
        .flatMap((m) => m.races)
        .filter((r) => !FINISHED.has(r.status) && Date.parse(r.startTime) >= now - RECENT_START_MS)
        .sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime))
        .slice(0, count)
        .map((r) => r.raceId);
      if (next.length === 0 || next.join() === following.join()) return;
      await opened;
      for (const id of following) socket.send(JSON.stringify({ op: 'unsubscribe', channel: `race:${id}` }));
      for (const id of next) socket.send(JSON.stringify({ op: 'subscribe', channel: `race:${id}` }));
      openSse(next);
      following = next;
    },
    counts: () => ({ ws, sse, races: following.length }),
    close() {
      stream?.destroy();
      socket.terminate();
    },
  };
}
