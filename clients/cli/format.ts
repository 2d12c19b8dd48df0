/** One line per event for the terminal, coloured (node:util styleText) by what kind of news it is. Pure. */
import { styleText } from 'node:util';
import { EVENT_TYPES, type RaceEvent } from '@racewire/client';
import { describeEvent, summaryLine, type Tone } from '@racewire/client/event-text';
import type { FoldedOdds } from './odds-fold.js';

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

/** The place column's width: longer names are cut with an ellipsis so the columns never shift. */
export const WHERE_WIDTH = 20;
/** The type column's width: the longest event type racewire sends. */
const TYPE_WIDTH = Math.max(...EVENT_TYPES.map((t) => t.length));

// Control characters from upstream names must not reach the terminal as escape sequences.
const clean = (s: string) => s.replace(/\p{Cc}/gu, ' ');
const fit = (s: string, width: number) => (s.length > width ? `${s.slice(0, width - 1)}…` : s.padEnd(width));

function columns(
  event: RaceEvent,
  where: string,
  type: string,
  what: string,
  tone: Tone,
  colour: boolean,
): string {
  const time = typeof event.timestamp === 'string' ? event.timestamp.slice(11, 19) : '--:--:--';
  const parts = [time, fit(clean(where), WHERE_WIDTH), fit(type, TYPE_WIDTH), clean(what)];
  if (!colour) return parts.join('  ');
  const [t, place, kind, news] = parts as [string, string, string, string];
  return [paint('dim', t), paint('bold', place), paint('dim', kind), paint(TONE[tone], news)].join('  ');
}

/** `21:04:05  Awapuni R3  runner.scratched  #4 Tickford scratched (late)`; no newline. */
export function formatLine(event: RaceEvent, colour: boolean): string {
  const text = describeEvent(event);
  return columns(event, text.where, clean(event.type), summaryLine(text), text.tone, colour);
}

/** A race's folded odds moves (compact mode): `21:04:05  Awapuni R3  odds  7 odds moves: #4 $5.00→$4.40, …`. */
export function formatFolded({ event, summary }: FoldedOdds, colour: boolean): string {
  return columns(event, describeEvent(event).where, 'odds', summary, 'info', colour);
}
