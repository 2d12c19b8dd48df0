/** One line per event for the terminal, coloured by what kind of news it is. Pure. */
import type { RaceEvent } from '@racewire/client';
import { describeEvent, type Tone } from '../web/describe-event.js';

const ANSI = {
  reset: '\x1b[0m',
  dim: '\x1b[2m',
  bold: '\x1b[1m',
  green: '\x1b[32m',
  red: '\x1b[31m',
  yellow: '\x1b[33m',
  magenta: '\x1b[35m',
  cyan: '\x1b[36m',
} as const;

const TONE: Record<Tone, string> = {
  up: ANSI.green,
  down: ANSI.red,
  alert: ANSI.yellow + ANSI.bold,
  result: ANSI.magenta + ANSI.bold,
  info: ANSI.cyan,
};

/** Colour only on a terminal, and never when NO_COLOR is set (no-color.org) or TERM is dumb. */
export function useColour(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** `21:04:05  Awapuni R3  runner.scratched  #4 Tickford scratched (late)`; no newline. */
export function formatLine(event: RaceEvent, colour: boolean): string {
  const line = describeEvent(event);
  const time = typeof event.timestamp === 'string' ? event.timestamp.slice(11, 19) : '--:--:--';
  // Control characters from upstream names must not reach the terminal as escape sequences.
  const clean = (s: string) => s.replace(/\p{Cc}/gu, ' ');
  const parts = [time, clean(line.where).padEnd(18), clean(event.type).padEnd(24), clean(line.what)];
  if (!colour) return parts.join('  ');
  const [t, where, type, what] = parts as [string, string, string, string];
  return `${ANSI.dim}${t}${ANSI.reset}  ${ANSI.bold}${where}${ANSI.reset}  ${ANSI.dim}${type}${ANSI.reset}  ${TONE[line.tone]}${what}${ANSI.reset}`;
}
