/**
 * Row-level tolerance for upstream payloads: one bad row (a null dividend, a result without `entrant_id`, a
 * meeting summary without `status`) is dropped and named, and the rest of the payload is used. Without it,
 * one bad row fails the whole payload and blinds racewire to a race, or in /meetings to the whole day.
 * Pure: the payload is copied along the screened paths, never changed in place.
 */
import type { z } from 'zod';

/** A row dropped from a payload: where it was (`data.dividends[3]`) and why. */
export interface DroppedRow {
  path: string;
  code: 'bad_row';
  reason: string;
}

/** An array of rows to screen: its path from the envelope (`*` = every item of an array) and its row schema. */
export interface RowRule {
  path: readonly string[];
  schema: z.ZodType;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid row';
  const where = issue.path.map(String).join('.');
  return (where ? `${where}: ${issue.message}` : issue.message).slice(0, 200);
}

function screenAt(node: unknown, rule: RowRule, depth: number, at: string, dropped: DroppedRow[]): unknown {
  if (depth === rule.path.length) {
    // Not an array: the payload's own schema judges it (a null list is data; a string is a bad payload).
    if (!Array.isArray(node)) return node;
    const kept: unknown[] = [];
    node.forEach((row, i) => {
      const parsed = rule.schema.safeParse(row);
      if (parsed.success) kept.push(parsed.data);
      else dropped.push({ path: `${at}[${i}]`, code: 'bad_row', reason: firstIssue(parsed.error) });
    });
    return kept;
  }
  const key = rule.path[depth] as string;
  if (key === '*') {
    return Array.isArray(node)
      ? node.map((item, i) => screenAt(item, rule, depth + 1, `${at}[${i}]`, dropped))
      : node;
  }
  if (!isRecord(node) || !Object.hasOwn(node, key)) return node;
  const child = screenAt(node[key], rule, depth + 1, at === '' ? key : `${at}.${key}`, dropped);
  return child === node[key] ? node : { ...node, [key]: child };
}

/**
 * `payload` with every invalid row of `rules` (applied in order) removed; when any was, `droppedRows` lists
 * them (set by racewire, replacing any member of that name upstream sent).
 */
export function screenRows(payload: unknown, rules: readonly RowRule[]): unknown {
  if (!isRecord(payload)) return payload;
  const dropped: DroppedRow[] = [];
  let out: unknown = payload;
  for (const rule of rules) out = screenAt(out, rule, 0, '', dropped);
  const { droppedRows: _ignored, ...rest } = out as Record<string, unknown>;
  return dropped.length > 0 ? { ...rest, droppedRows: dropped } : rest;
}
