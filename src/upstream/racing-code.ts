/**
 * One racing code everywhere: `T`, `H` or `G`. The real API sends the codes, the seed spec spells out
 * `thoroughbreds` / `harness` / `greyhounds`, and `category_name` has `Thoroughbred Horse Racing`; every
 * spelling maps to its code, so webhook filters, the firehose filter and documents agree.
 */
export const RACING_CODES = ['T', 'H', 'G'] as const;
export type RacingCode = (typeof RACING_CODES)[number];

const SPELLINGS: Record<string, RacingCode> = {
  t: 'T',
  thoroughbred: 'T',
  thoroughbreds: 'T',
  'thoroughbred horse racing': 'T',
  gallops: 'T',
  h: 'H',
  harness: 'H',
  'harness horse racing': 'H',
  trots: 'H',
  g: 'G',
  greyhound: 'G',
  greyhounds: 'G',
  'greyhound racing': 'G',
};

/** The code for an upstream spelling, or undefined when it is none we know. */
export function racingCode(value: unknown): RacingCode | undefined {
  return typeof value === 'string' ? SPELLINGS[value.trim().toLowerCase()] : undefined;
}

/**
 * `record` with `record[key]` replaced by its code; the upstream spelling is kept beside it as
 * `<key>_upstream` when it differs. Unknown spellings stay as they are (data, not a crash).
 */
export function withRacingCode<T extends Record<string, unknown>>(record: T, key: string): T {
  const raw = record[key];
  const code = racingCode(raw);
  if (code === undefined || code === raw) return record;
  return { ...record, [key]: code, [`${key}_upstream`]: raw };
}
