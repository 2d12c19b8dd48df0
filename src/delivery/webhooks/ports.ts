/**
 * The webhook store's three ports, along Svix's lines: the `queue` (what must be atomic: enqueue from the
 * feed, claim what is due, record an attempt, recover claims, pause an endpoint), `endpoints` and `history`
 * (plain reads and writes). Each has a SQLite adapter (sqlite/, one node) and a Redis adapter (redis/,
 * several nodes), built together by one factory per adapter into an `Outbox`; each port has its own contract
 * suite (test/delivery/webhooks/{queue,endpoints,history}.contract.ts) run against both. They speak the
 * model's types (model.ts), never an adapter's rows. Async so that a networked store fits.
 *
 * Queue contract, whatever the backend:
 * - Every state change is atomic: a crash never leaves a delivery half claimed, half recorded or half
 *   inserted (a chain, a count or an index out of step with the delivery).
 * - Delivery ids are positive integers, increasing in insertion order.
 * - Owed deliveries (pending or in flight) to one endpoint for one stream form a chain sent in id order:
 *   only its head can be due or in flight. A head is due at max(nextAttemptAt, the endpoint's pause) while
 *   its endpoint is enabled; a disabled endpoint's deliveries stay pending.
 * - `claimDue` respects the per-endpoint cap (one for chat endpoints) counting every delivery in flight,
 *   whoever claimed it, and paces chat endpoints by pausing them for `chatMinIntervalMs` per claim.
 * - Every claim gets a claim number, increasing over the whole outbox, and keeps the fencing token of the
 *   claimer's lease term. `claimDue` with a token below the store's fence mark (another node has acquired
 *   the lease since) claims nothing and answers 'fenced' (the SQLite outbox is one node's and has no mark).
 * - `recordAttempt` always logs the attempt (with its claim and token), but changes the delivery only while
 *   the caller's claim is still its claim: a late result from a node whose claim was recovered (and perhaps
 *   claimed again) by another never undoes nor overwrites what that other node records.
 * - `recoverInFlight` clears the claims it releases: given claims, only those still held; given a cutoff, only
 *   claims made at or before it (expired: a live claimer may still be sending and recording the others).
 * - A body is stored once, at enqueue; replays copy it (new delivery, same event id, `replayOf` set).
 * - `enqueueFromFeed` writes a batch's deliveries and then moves the cursor, only from the cursor and the
 *   endpoints version the batch was planned against: a crash, a lost reply or a second reader never loses
 *   nor duplicates a delivery, and (endpoint, event id) is enqueued at most once. SQLite does it in one
 *   transaction; Redis endpoint by endpoint (one script each, for Redis Cluster), so a step that loses a race
 *   to another reader half-way may have written part of its batch, which that reader's step skips.
 *
 * History contract: owed deliveries are never pruned; pruning a delivery forgets its attempts too.
 */
import type { PlannedDelivery } from './dispatch/enqueue-plan.js';
import type {
  Attempt,
  Delivery,
  DeliveryStatus,
  EndpointPatch,
  EndpointWithSecrets,
  NewEndpoint,
} from './model.js';

export interface AttemptRecord {
  at: number;
  statusCode?: number;
  latencyMs: number;
  error?: string;
  /** Truncated to RESPONSE_BODY_LIMIT when stored. */
  responseBody: string;
  outcome: string;
}

export interface NextState {
  status: DeliveryStatus;
  nextAttemptAt: number;
}

export interface ClaimOptions {
  chatMinIntervalMs: number;
  /** In-flight cap per standard endpoint. */
  perEndpoint: number;
  /** The fencing token of the claimer's lease term, kept on each claim and checked against the fence mark. */
  fence?: number;
}

/** A delivery as `claimDue` hands it out: in flight under claim number `claim`. */
export interface ClaimedDelivery extends Delivery {
  claim: number;
  /** The fencing token the claim was made with (null when the claimer gave none). */
  fence: number | null;
}

/** A claim to release: the delivery and the claim number it was handed out under. */
export interface HeldClaim {
  id: number;
  claim: number;
}

/** One batch of the feed, planned against the endpoints of `endpointsVersion`. */
export interface FeedStep {
  /** The cursor the batch was read after. */
  from: string;
  /** The position of its last item: the cursor once written. */
  to: string;
  endpointsVersion: string;
  deliveries: readonly PlannedDelivery[];
}

/** The deliveries owed and in flight: the only part that needs atomic steps (see the contract above). */
export interface WebhookQueue {
  /** The feed position up to which events have been enqueued (FEED_START before the first). */
  feedCursor(): Promise<string>;
  /** 'stale' when the cursor or the endpoints moved since the batch was planned: nothing written when they
   * had moved before the step began (see the contract above for a race during it). */
  enqueueFromFeed(step: FeedStep): Promise<'stale' | { enqueued: number }>;
  /** One delivery outside the feed (test events); undefined when the endpoint is unknown. */
  enqueue(p: PlannedDelivery): Promise<Delivery | undefined>;
  /** A new delivery with the same event id and bytes; the original keeps its history. */
  replay(deliveryId: number): Promise<Delivery | undefined>;
  /** Replays every original (not itself a replay) delivery of the endpoint created in [from, to]. */
  replayRange(endpointId: string, from: number, to: number): Promise<number>;
  /** Marks up to `limit` due chain heads in flight and answers them, or 'fenced'. */
  claimDue(now: number, limit: number, o: ClaimOptions): Promise<ClaimedDelivery[] | 'fenced'>;
  /** Logs an attempt and, while `d.claim` is still the delivery's claim, moves it to `next` (a finished
   * head hands its chain to the next one). Answers whether the claim was still held. */
  recordAttempt(d: ClaimedDelivery, a: AttemptRecord, next: NextState): Promise<boolean>;
  /** Makes deliveries in flight owed again: the `claims` given that are still held (a dispatcher releasing
   * its own at stop), or every claim made at or before `claimedBefore` (expired: its claimer, dead or alive,
   * is past its deadline). Answers how many. */
  recoverInFlight(which: readonly HeldClaim[] | { claimedBefore: number }): Promise<number>;
  /** Nothing is sent to the endpoint before `until` (rate limits, chat pacing). */
  pauseEndpoint(id: string, until: number): Promise<void>;
  /** When the earliest chain head is due and when the oldest claim in flight was made (null: none). */
  wakeTimes(): Promise<{ nextDueAt: number | null; oldestClaimAt: number | null }>;
}

/** Registered endpoints. Changes of which endpoints want what move the version the feed plans against. */
export interface WebhookEndpoints {
  endpoint(id: string): Promise<EndpointWithSecrets | undefined>;
  /** Ordered by creation time, then id. */
  listEndpoints(): Promise<EndpointWithSecrets[]>;
  /** The enabled endpoints and a version that moves on every change of which endpoints want what. */
  enabledEndpoints(): Promise<{ version: string; endpoints: EndpointWithSecrets[] }>;
  createEndpoint(e: NewEndpoint): Promise<EndpointWithSecrets>;
  /** Re-enabling clears the reason, the failure clock and any pause, and makes held deliveries due now. */
  updateEndpoint(id: string, patch: EndpointPatch): Promise<EndpointWithSecrets | undefined>;
  /** Removes the endpoint with its deliveries and attempts; false when there was none. */
  deleteEndpoint(id: string): Promise<boolean>;
  /** The current secret becomes the previous one, signing beside the new one for `overlapMs`. */
  rotateSecret(id: string, secret: string, overlapMs: number): Promise<EndpointWithSecrets | undefined>;
  /** What the endpoint is owed stays pending for when it is re-enabled. */
  disableEndpoint(id: string, reason: string): Promise<void>;
  /** A failure starts the endpoint's failure clock (if not running), a success stops it; answers its start. */
  markEndpointHealth(id: string, failed: boolean, at: number): Promise<number | null>;
  endpointHealth(): Promise<{ failing: number; disabled: number }>;
}

/** What was sent and what came of it. */
export interface WebhookHistory {
  delivery(id: number): Promise<Delivery | undefined>;
  /** Newest first; `beforeId` pages. */
  listDeliveries(
    endpointId: string,
    q: { status?: DeliveryStatus; limit: number; beforeId?: number },
  ): Promise<Delivery[]>;
  /** The bytes to send, stored once at enqueue. */
  body(id: number): Promise<string | undefined>;
  attempts(deliveryId: number): Promise<Attempt[]>;
  counts(): Promise<Record<DeliveryStatus, number>>;
  /** Forgets delivered and failed deliveries (and their attempts) last updated before `before`. */
  prune(before: number): Promise<number>;
}

/** The three ports on one storage, as each adapter's factory builds them. */
export interface Outbox {
  queue: WebhookQueue;
  endpoints: WebhookEndpoints;
  history: WebhookHistory;
}
