/**
 * The server's time as the board should show it. racewire's clock can run faster than real time
 * (`clockSpeed` in /v1/ops), so a countdown cannot use the browser's clock: it extrapolates from the last
 * server sample at the server's speed. Pure apart from the injected `now`.
 */
export interface ServerClock {
  /** Records a server reading (ms since the epoch) and the clock's speed. */
  sample(serverTime: number, speed: number): void;
  /** Estimated server time now, or undefined before the first sample. */
  now(): number | undefined;
  speed(): number;
}

export function createServerClock(localNow: () => number = () => performance.now()): ServerClock {
  let base: { server: number; local: number } | undefined;
  let speed = 1;
  return {
    sample(serverTime, s) {
      if (!Number.isFinite(serverTime)) return;
      speed = Number.isFinite(s) && s > 0 ? s : 1;
      base = { server: serverTime, local: localNow() };
    },
    now: () => (base ? base.server + (localNow() - base.local) * speed : undefined),
    speed: () => speed,
  };
}

/** `5:07`, `1:02:03`: a duration (ms) in server-clock time. */
export function formatCountdown(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** What an open race's header says about its jump: the time left, or how late it is once past. */
export function jumpLabel(msToStart: number): { text: string; late: boolean } {
  return msToStart >= 0
    ? { text: formatCountdown(msToStart), late: false }
    : { text: `late ${formatCountdown(-msToStart)}`, late: true };
}

/** `fresh`, `12s`, `4m`, `never` for a staleness in ms (null: never fetched). */
export function formatStaleness(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return 'never';
  if (ms < 1000) return 'fresh';
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)}m`;
  return `${Math.round(ms / 3_600_000)}h`;
}
