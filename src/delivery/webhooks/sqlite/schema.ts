/**
 * Tables of the webhook outbox, namespaced `webhook_*`, in the event log's database. Migrated as component
 * `webhooks` (src/store/sqlite/migrate.ts): never edit a shipped step, append one.
 */
export const OUTBOX_MIGRATIONS = [
  `
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  kind TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  event_types TEXT NOT NULL,
  filters TEXT NOT NULL DEFAULT '{}',
  enabled INTEGER NOT NULL DEFAULT 1,
  disabled_reason TEXT,
  failing_since INTEGER,
  paused_until INTEGER NOT NULL DEFAULT 0,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  endpoint_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  stream TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  last_status_code INTEGER,
  last_error TEXT,
  replay_of INTEGER
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_chain ON webhook_deliveries (endpoint_id, stream, status, id);
-- The owed deliveries of one endpoint and stream form a chain, sent in id order; head_id is the one that
-- may be sent next. Kept so that finding due work reads an index, not the backlog.
CREATE TABLE webhook_chains (
  endpoint_id TEXT NOT NULL,
  stream TEXT NOT NULL,
  head_id INTEGER NOT NULL,
  -- When head_id may be sent (see CHAIN_DUE_AT in rows.ts); NULL while in flight or disabled.
  due_at INTEGER,
  PRIMARY KEY (endpoint_id, stream)
);
CREATE INDEX webhook_chains_due ON webhook_chains (due_at, head_id);
CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id INTEGER NOT NULL,
  attempt_no INTEGER NOT NULL,
  at INTEGER NOT NULL,
  status_code INTEGER,
  latency_ms INTEGER NOT NULL,
  error TEXT,
  response_body TEXT NOT NULL,
  outcome TEXT NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id);
`,
  // The feed reader's cursor and the endpoints version it plans against; the feed's (endpoint, event) dedupe.
  `
CREATE TABLE webhook_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (endpoint_id, event_id);
`,
  // Claims: the number a delivery in flight was handed out under and its lease term's fencing token; each
  // attempt keeps both, so a late result is matched to its claim (issue 14).
  `
ALTER TABLE webhook_deliveries ADD COLUMN claim INTEGER;
ALTER TABLE webhook_deliveries ADD COLUMN claim_fence INTEGER;
ALTER TABLE webhook_attempts ADD COLUMN claim INTEGER;
ALTER TABLE webhook_attempts ADD COLUMN fence INTEGER;
`,
] as const;
