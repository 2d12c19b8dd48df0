/**
 * Debian's Chromium for the browser tests. Without it (and outside CI, which installs it) they are skipped,
 * each with one line on stderr naming what is missing, so a skip is never silent.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

/** True (after a warning naming `what`) when the browser tests of that suite must be skipped. */
export function browserMissing(what: string): boolean {
  const missing = !existsSync(CHROMIUM) && !process.env.CI;
  if (missing) console.warn(`${what} skipped: ${CHROMIUM} is absent (install chromium; CI must)`);
  return missing;
}
