/** racewire in-process for end-to-end tests: memory store, embedded fast simulator, the board, a real port. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createScaledClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { registerBoard } from '../../src/http/board.js';
import { type Racewire, startRacewire } from '../../src/runtime.js';
import type { Simulator } from '../../src/simulator/index.js';

export interface E2eRacewire {
  racewire: Racewire;
  simulator: Simulator;
  /** http://127.0.0.1:<port> */
  url: string;
  stop(): Promise<void>;
}

/**
 * The race clock starts at 12:00 UTC of today's date, whatever the wall clock's time of day: the simulated
 * world is laid on its day's timetable, and from 14:15 to 17:02 UTC the end of one demo day and the start of
 * the next overlap, about twice the races near their jump. Tests waiting seconds for a race's first document
 * or a scratching failed there (four in one run at 14:37 UTC, none at other hours); at noon they see the
 * same hour of racing whenever they run.
 */
function e2eRaceOrigin(wallNow: number): number {
  const noon = new Date(wallNow);
  noon.setUTCHours(12, 0, 0, 0);
  return noon.getTime();
}

export async function startE2e(env: Record<string, string> = {}): Promise<E2eRacewire> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    STORE: 'memory',
    SIMULATOR_SPEED: '10',
    LOG_LEVEL: 'silent',
    DISCOVERY_INTERVAL_MS: '1000',
    ...env,
  });
  const racewire = await startRacewire({
    config,
    listen: false,
    clockFrom: (origin) =>
      createScaledClock({ origin: e2eRaceOrigin(origin), speed: config.SIMULATOR_SPEED }),
  });
  // The composition root may already serve the board; register it here only when it does not.
  if (!racewire.app.hasRoute({ method: 'GET', url: '/' })) await registerBoard(racewire.app);
  const url = await racewire.app.listen({ port: 0, host: '127.0.0.1' });
  if (!racewire.simulator) throw new Error('expected the embedded simulator');
  return { racewire, simulator: racewire.simulator, url, stop: () => racewire.stop() };
}

/** Polls `cond` until it holds (no fixed sleeps in assertions); throws naming `what` on timeout. */
export async function until<T>(
  cond: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await cond();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface MeetingsBody {
  meetings: {
    meetingId: string;
    name: string;
    races: { raceId: string; status: string; startTime: string }[];
  }[];
}

/** The Open races whose jump is at least `minLeadMs` away on the server's clock, soonest first. */
async function openRaces(
  e2e: E2eRacewire,
  minLeadMs: number,
): Promise<{ raceId: string; meetingId: string }[]> {
  const res = await fetch(`${e2e.url}/v1/meetings`);
  if (!res.ok) return []; // not listed yet, or the REST limit: the callers poll again
  const body = (await res.json()) as MeetingsBody;
  const now = e2e.racewire.clock.now();
  return body.meetings
    .flatMap((m) => m.races.map((r) => ({ ...r, meetingId: m.meetingId })))
    .filter((r) => r.status === 'Open' && Date.parse(r.startTime) - now > minLeadMs)
    .sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime))
    .map((r) => ({ raceId: r.raceId, meetingId: r.meetingId }));
}

/** An Open race whose jump is at least `minLeadMs` away on the server's clock, soonest first. */
export async function pickOpenRace(
  e2e: E2eRacewire,
  minLeadMs = 20 * 60_000,
): Promise<{ raceId: string; meetingId: string }> {
  return until(async () => (await openRaces(e2e, minLeadMs))[0], 'an open race in /v1/meetings', 15_000);
}

/**
 * An Open race at least `minLeadMs` away that racewire has already fetched (`/v1/ops` plans an interval for
 * each race with data). Which races get their first fetch first is the scheduler's choice (its budget slices):
 * within the hour each is due within the late-scratching deadline (225 s of race time: 22.5 s at this
 * harness's x10, docs/operations.md), and the bound leaves room for a busy machine. Two requests a round,
 * twice a second: well inside the REST limit (`RATE_LIMIT_REST`) that the caller's own requests share.
 */
export async function pickFetchedOpenRace(
  e2e: E2eRacewire,
  minLeadMs = 20 * 60_000,
): Promise<{ raceId: string; meetingId: string }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ops = await fetch(`${e2e.url}/v1/ops`);
    const fetched = ops.ok
      ? Object.keys(((await ops.json()) as { plannedMs: Record<string, number> }).plannedMs)
      : [];
    const race = (await openRaces(e2e, minLeadMs)).find((r) => fetched.includes(r.raceId));
    if (race) return race;
    if (Date.now() > deadline)
      throw new Error('timed out after 60000 ms waiting for an open race with its document');
    await new Promise((r) => setTimeout(r, 500));
  }
}

export interface NodeRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `node <args>` directly (not through npx or npm), so a signal reaches it and not a wrapper. */
export function runNode(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): NodeRun {
  const child = spawn(process.execPath, args, {
    cwd: opts.cwd,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exit };
}
