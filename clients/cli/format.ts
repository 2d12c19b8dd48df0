/** One line per event for the terminal, coloured (node:util styleText) by what kind of news it is. Pure. */
import { styleText } from 'node:util';
import type { RaceEvent } from '@racewire/client';
import { describeEvent, type Tone } from '../web/describe-event.js';

type Style = Parameters<typeof styleText>[0];

const TONE: Record<Tone, Style> = {
  up: 'green',
  down: 'red',
  alert: ['yellow', 'bold'],
  result: ['magenta', 'bold'],
  info: 'cyan',
};

/** Colour only on a terminal, and never when NO_COLOR is set (no-color.org) or TERM is dumb. */
export function useColour(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/**
 * Styles `text`, or not: the decision is `useColour`'s, made once, so `validateStream: false` (newer Node
 * lines would otherwise decide again from the environment; Node 20 ignores the option and always styles).
 */
const paint = (style: Style, text: string) => styleText(style, text, { validateStream: false });

/** `21:04:05  Awapuni R3  runner.scratched  #4 Tickford scratched (late)`; no newline. */
export function formatLine(event: RaceEvent, colour: boolean): string {
  const line = describeEvent(event);
  const time = typeof event.timestamp === 'string' ? event.timestamp.slice(11, 19) : '--:--:--';
  // Control characters from upstream names must not reach the terminal as escape sequences.
  const clean = (s: string) => s.replace(/\p{Cc}/gu, ' ');
  const parts = [time, clean(line.where).padEnd(18), clean(event.type).padEnd(24), clean(line.what)];
  if (!colour) return parts.join('  ');
  const [t, where, type, what] = parts as [string, string, string, string];
  return [paint('dim', t), paint('bold', where), paint('dim', type), paint(TONE[line.tone], what)].join('  ');
}
