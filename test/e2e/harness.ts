/** racewire in-process for end-to-end tests: memory store, embedded fast simulator, the board, a real port. */
import { type ChildProcess, spawn } from 'node:child_process';
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
  const racewire = await startRacewire({ config, listen: false });
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

/** An Open race whose jump is at least `minLeadMs` away on the server's clock, soonest first. */
export async function pickOpenRace(
  e2e: E2eRacewire,
  minLeadMs = 20 * 60_000,
): Promise<{ raceId: string; meetingId: string }> {
  return until(
    async () => {
      const res = await fetch(`${e2e.url}/v1/meetings`);
      const body = (await res.json()) as MeetingsBody;
      const now = e2e.racewire.clock.now();
      const open = body.meetings
        .flatMap((m) => m.races.map((r) => ({ ...r, meetingId: m.meetingId })))
        .filter((r) => r.status === 'Open' && Date.parse(r.startTime) - now > minLeadMs)
        .sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
      const race = open[0];
      return race ? { raceId: race.raceId, meetingId: race.meetingId } : undefined;
    },
    'an open race in /v1/meetings',
    15_000,
  );
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
