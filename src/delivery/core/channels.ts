/** Channel names (`race:<id>`, `meeting:<id>`, `firehose`), shared by every transport. */
export type ParsedChannel =
  | { kind: 'race'; raceId: string }
  | { kind: 'meeting'; meetingId: string }
  | { kind: 'firehose' };

export type { FirehoseFilter } from '@racewire/client/protocol';

export function parseChannel(channel: string): ParsedChannel | undefined {
  if (channel === 'firehose') return { kind: 'firehose' };
  const m = /^(race|meeting):([^\s]{1,128})$/.exec(channel);
  if (!m) return undefined;
  return m[1] === 'race' ? { kind: 'race', raceId: m[2]! } : { kind: 'meeting', meetingId: m[2]! };
}

/** The streams a race or meeting channel covers now (a meeting's races can grow later). */
export function channelStreams(
  ch: ParsedChannel & { kind: 'race' | 'meeting' },
  racesOfMeeting: (meetingId: string) => string[],
): string[] {
  return ch.kind === 'race' ? [ch.raceId] : [`meeting:${ch.meetingId}`, ...racesOfMeeting(ch.meetingId)];
}
