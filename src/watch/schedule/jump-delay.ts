/**
 * When a race really jumps. The advertised start is a promise, not the jump: in the real races list
 * (fixtures/real/races-list.json, 2025-07-17 00:00-03:19 UTC, 99 races) the actual start is later by a
 * median of 66 s, a 90th percentile of 275 s and a tail to 24 minutes, and North American races run later
 * than the rest. The scheduler follows the status (Open until Closed) and weighs each instant by this
 * distribution, conditioned on the race not having jumped yet. Pure.
 */

/** Seconds from advertised to actual start, every race of the real list, sorted, by region. */
export const JUMP_DELAYS_S = {
  northAmerica: [
    5, 16, 18, 22, 26, 26, 27, 44, 71, 74, 77, 83, 86, 86, 96, 104, 106, 114, 116, 126, 127, 128, 132, 136,
    150, 151, 152, 154, 157, 169, 176, 178, 192, 200, 204, 220, 252, 275, 277, 293, 300, 333, 346, 407, 1423,
  ],
  elsewhere: [
    18, 22, 22, 24, 25, 26, 31, 31, 32, 32, 34, 35, 36, 36, 38, 38, 38, 38, 40, 40, 42, 42, 43, 44, 45, 46,
    48, 48, 48, 49, 49, 51, 51, 54, 56, 58, 58, 60, 61, 62, 65, 68, 87, 90, 98, 134, 162, 166, 169, 174, 193,
    199, 299, 339,
  ],
} as const;

const NORTH_AMERICA: ReadonlySet<string> = new Set(['USA', 'CA']);

/** Past the longest delay ever measured, a race still Open is assumed to jump within this long. */
const BEYOND_MEASURED_S = 60;

/**
 * The delays (s after the advertised start) at which a race still not jumped `elapsedS` after its advertised
 * start may yet jump, equally likely: the measured delays beyond `elapsedS`, or, past all of them, one
 * a minute ahead (the race is late beyond anything measured and will go soon).
 *
 * Once a race is later than some measured delay, the next one may lie far off (North America: 407 s, then
 * 1,423 s): 45 races say nothing of when in that gap it goes, and a race held at the start goes when it is
 * ready. So the share of the gap it is in counts as jumping within a minute, or at the next measured delay
 * if that is sooner, as past the longest one. Without this, a race 7 to 23 minutes late had only 1,423 s
 * left and was treated as a quarter of an hour from its jump (fetched every 30 s and more while at it).
 */
export function remainingJumpDelays(country: string, elapsedS: number): readonly number[] {
  const sample = NORTH_AMERICA.has(country) ? JUMP_DELAYS_S.northAmerica : JUMP_DELAYS_S.elsewhere;
  const next = sample.findIndex((d) => d > elapsedS);
  if (next === -1) return [elapsedS + BEYOND_MEASURED_S];
  const ahead = sample.slice(next);
  if (next === 0) return ahead;
  return [Math.min(ahead[0]!, elapsedS + BEYOND_MEASURED_S), ...ahead.slice(1)];
}
