/**
 * Orders payloads by `header.generated_time`, which has nanosecond precision upstream
 * (`2025-07-17T11:16:59.18904298Z`): more than a JavaScript Date holds, and a variable number of digits,
 * so neither Date.parse nor comparing strings orders it. Pure.
 */

const ISO = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)$/;

/** Nanoseconds since the epoch, or undefined when `value` is not an ISO 8601 time. */
export function generatedNanos(value: unknown): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  const m = ISO.exec(value.trim());
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (!Number.isFinite(ms)) return undefined;
  return BigInt(ms) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

/** Whether `candidate` was generated before `applied` (unknown times order by arrival: never older). */
export function generatedBefore(candidate: unknown, applied: unknown): boolean {
  const a = generatedNanos(candidate);
  const b = generatedNanos(applied);
  return a !== undefined && b !== undefined && a < b;
}
