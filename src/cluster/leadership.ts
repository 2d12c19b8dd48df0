/**
 * Leadership: who may poll the racing API and dispatch webhooks. A single node is always the leader; a node
 * of a Redis deployment leads while it holds the poller lease (src/cluster/lease.ts). The composition root
 * hands its roles to `lead` and never asks which kind it has.
 */
import type { Logger } from '../logger.js';
import type { Lease } from './lease.js';

/** Something that runs only while this node leads. Starts and stops are never concurrent. */
export interface Role {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface Leadership {
  /** Runs `role.start` on each gain of leadership and `role.stop` on each loss, until `close`. Call once. */
  lead(role: Role): void;
  isLeader(): boolean;
  /** The fencing token of the current term (appends and outbox claims carry it), undefined when not leader. */
  token(): number | undefined;
  /**
   * A write carrying this term's token was refused as fenced: a newer token exists, so this term is over.
   * The role stops and leadership is sought again, with a new token above every one that wrote.
   */
  fenced(): void;
  /** Stops the role (if running) and gives leadership up so another node can take it at once. */
  close(): Promise<void>;
}

/** Runs steps one at a time, in call order; a failing step is reported and does not stop the next. */
export function serialSteps(onError: (err: unknown, what: string) => void) {
  let chain: Promise<void> = Promise.resolve();
  return {
    run(what: string, step: () => Promise<void>): Promise<void> {
      chain = chain.then(step).catch((err) => onError(err, what));
      return chain;
    },
    idle: () => chain,
  };
}

/** A single node's leadership: the leader from `lead` until `close`, with one token for its lifetime. */
export function alwaysLeader(logger: Logger): Leadership {
  const steps = serialSteps((err, what) => logger.error({ err }, `${what} failed`));
  let role: Role | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;
  return {
    lead(r) {
      role = r;
      void steps.run('start leading', r.start);
    },
    isLeader: () => !closed,
    token: () => (closed ? undefined : 1),
    // Nothing else writes to a single node's store: a refusal here is a bug worth shouting about.
    fenced: () => logger.error('a write was refused as fenced on a single node'),
    close() {
      // The role stops while still leading (writes in flight finish with the token).
      closing ??= (async () => {
        if (role) await steps.run('stop leading', role.stop);
        closed = true;
      })();
      return closing;
    },
  };
}

/** Leadership by lease: the role runs while the lease is held; a fenced write ends the term. */
export function leaseLeadership(lease: Lease, logger: Logger, nodeId: string): Leadership {
  const steps = serialSteps((err, what) => logger.error({ err }, `${what} failed`));
  let role: Role | undefined;
  let stopRunning: (() => Promise<void>) | undefined;
  let closing = false;
  return {
    lead(r) {
      role = r;
      stopRunning = lease.run(
        (token) => {
          if (closing) return;
          logger.info({ node: nodeId, token }, 'lease acquired: this node polls the racing API');
          void steps.run('start leading', r.start);
        },
        () => {
          logger.warn({ node: nodeId }, 'lease lost: this node stops polling');
          void steps.run('stop leading', r.stop);
        },
      );
    },
    isLeader: () => lease.isLeader(),
    token: () => lease.token(),
    fenced() {
      logger.warn({ node: nodeId }, 'a write was fenced: another node has a newer token; acquiring again');
      lease.resign();
    },
    async close() {
      if (closing) return;
      closing = true;
      // The role stops while the lease is still held (writes in flight finish), then the lease is released
      // so that another node takes over at once.
      if (role) await steps.run('stop leading', role.stop);
      await stopRunning?.();
      await steps.idle();
    },
  };
}

/** Roles started in the given order and stopped in the reverse one (the last started stops first). */
export function inOrder(...roles: Role[]): Role {
  return {
    async start() {
      for (const role of roles) await role.start();
    },
    async stop() {
      for (const role of [...roles].reverse()) await role.stop();
    },
  };
}
