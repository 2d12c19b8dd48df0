/**
 * What a chat endpoint (Slack, Discord) gets for an event: the SDK's text of it (`describeEvent`, the wording
 * the board and racewire-tail share) as a title and lines, the race first so a message reads on its own. Only
 * which events make a message is decided here; slack.ts and discord.ts mark it up.
 */
import { describeEvent, type Tone } from '@racewire/client/event-text';
import type { RaceEvent } from '../../../events/envelope.js';

/** Event types that chat endpoints get by default. */
export const CHAT_ALERT_TYPES = [
  'runner.scratched',
  'race.results',
  'race.dividends',
  'race.abandoned',
  'odds.changed',
  'odds.pools_changed',
  'odds.plunge',
  'market.big_bet',
];

export interface ChatMessage {
  title: string;
  lines: string[];
  tone: Tone;
}

/** An `odds.changed` event's data, or one change of an `odds.pools_changed`, marked significant. */
const isSignificant = (value: unknown) =>
  value !== null && typeof value === 'object' && (value as { significant?: unknown }).significant === true;

/** A tote batch cut to its significant moves, or undefined when it has none. */
function significantPools(event: RaceEvent): RaceEvent | undefined {
  const data = event.data as { changes?: unknown };
  const changes = Array.isArray(data?.changes) ? data.changes.filter(isSignificant) : [];
  return changes.length > 0 ? { ...event, data: { ...data, changes } } : undefined;
}

/** A chat headline and lines for an event, or undefined when it is not worth a message. */
export function chatMessage(event: RaceEvent): ChatMessage | undefined {
  // Every price tick of a busy day would flood a channel: only the moves detection marks significant.
  if (event.type === 'odds.changed' && !isSignificant(event.data)) return undefined;
  if (event.type === 'odds.pools_changed') {
    const cut = significantPools(event);
    return cut && message(cut);
  }
  // The admin API's test send (`POST /endpoints/{id}/test`) is no racing event.
  if (event.type === 'webhook.test')
    return { title: 'racewire test message', lines: ['This endpoint is set up correctly.'], tone: 'info' };
  return message(event);
}

function message(event: RaceEvent): ChatMessage {
  const text = describeEvent(event);
  return { title: text.title, lines: [text.race, ...text.facts, ...text.details], tone: text.tone };
}
