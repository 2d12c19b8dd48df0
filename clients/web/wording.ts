/** Durations and jumps in words a punter reads at a glance: `5 min 35 s`, `jumped 5 min 35 s late`. */

/** `40 s`, `5 min 35 s`, `2 min`, `1 h 5 min` for a number of seconds (its sign ignored). */
export function formatDuration(seconds: number): string {
  const total = Math.round(Math.abs(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return m > 0 ? `${h} h ${m} min` : `${h} h`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}

/** How a race jumped against its advertised start (`delaySeconds` > 0: late). */
export function jumpWording(delaySeconds: number | undefined): string {
  if (delaySeconds === undefined) return 'jumped';
  if (Math.round(delaySeconds) === 0) return 'jumped on time';
  return `jumped ${formatDuration(delaySeconds)} ${delaySeconds > 0 ? 'late' : 'early'}`;
}
