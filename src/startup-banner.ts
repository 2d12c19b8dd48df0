/**
 * The lines a person sees at `npm start` in a terminal: where the board is, and whether the data is real.
 * The same facts are in the JSON log line, but after npm's banners and inside JSON they are easy to miss;
 * the banner is printed only when stdout is a terminal, so log collectors see JSON alone.
 */
import type { UpstreamKind } from './embedded/upstream.js';

export interface BannerFacts {
  /** The listening URL, as fastify reports it (`http://0.0.0.0:8080`). */
  url: string;
  upstream: UpstreamKind;
  /** Race time against real time, beside the simulator or a replay. */
  speed: number;
}

/** `http://0.0.0.0:8080` as a person can open it: `http://localhost:8080`. */
export const openableUrl = (url: string): string =>
  url.replace('0.0.0.0', 'localhost').replace('[::]', 'localhost');

export function startupBanner({ url, upstream, speed }: BannerFacts): string {
  const base = openableUrl(url);
  const source =
    upstream === 'racing API'
      ? 'the racing API (RACING_API_URL)'
      : `${upstream === 'replay' ? 'a replayed recording' : 'the embedded simulator: simulated data'}, x${speed} real time`;
  return [
    '',
    `  racewire is running   board    ${base}/`,
    `                        API      ${base}/docs   WebSocket ${base.replace(/^http/, 'ws')}/ws`,
    `                        upstream ${source}`,
    '',
    '',
  ].join('\n');
}
