/** Fault injection: the next `count` matching requests get the fault. */

export type FaultKind =
  | 'rate_limit'
  | 'server_error'
  | 'server_error_nested'
  | 'server_error_official'
  | 'slow'
  | 'malformed_json'
  | 'missing_members'
  | 'null_runners'
  | 'unknown_fields'
  | 'not_found'
  // /meetings echo cases (meetings-query.ts): what an upstream may answer that the real one does not today.
  | 'echo_minimal'
  | 'limit_clamped'
  | 'offset_ignored'
  | 'date_other_zone'
  | 'wrong_day';

export const FAULT_KINDS: readonly FaultKind[] = [
  'rate_limit',
  'server_error',
  'server_error_nested',
  'server_error_official',
  'slow',
  'malformed_json',
  'missing_members',
  'null_runners',
  'unknown_fields',
  'not_found',
  'echo_minimal',
  'limit_clamped',
  'offset_ignored',
  'date_other_zone',
  'wrong_day',
];

export interface FaultSpec {
  kind: FaultKind;
  count?: number;
  path?: string | RegExp;
  delayMs?: number;
  retryAfterSeconds?: number;
}

export interface FaultControl {
  /** The next `count` (default 1) requests whose path matches `path` (RegExp or substring; default all) get the fault. */
  inject(f: FaultSpec): void;
  clear(): void;
}

export interface ArmedFault {
  kind: FaultKind;
  delayMs: number;
  retryAfterSeconds: number;
}

export interface FaultQueue extends FaultControl {
  /** Takes the first fault matching `path`, consuming one of its uses. */
  take(path: string): ArmedFault | undefined;
}

export function createFaultQueue(): FaultQueue {
  let faults: (FaultSpec & { left: number })[] = [];
  return {
    inject(f) {
      if (!FAULT_KINDS.includes(f.kind)) throw new Error(`unknown fault kind: ${String(f.kind)}`);
      faults.push({ ...f, left: f.count ?? 1 });
    },
    clear() {
      faults = [];
    },
    take(path) {
      const f = faults.find((x) =>
        x.path === undefined ? true : typeof x.path === 'string' ? path.includes(x.path) : x.path.test(path),
      );
      if (!f) return undefined;
      f.left--;
      if (f.left <= 0) faults = faults.filter((x) => x !== f);
      return { kind: f.kind, delayMs: f.delayMs ?? 15_000, retryAfterSeconds: f.retryAfterSeconds ?? 1 };
    },
  };
}
