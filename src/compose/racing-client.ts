/**
 * Wiring of the racing API client: the one rate limiter every request passes (on the backend's shared
 * window), the identification headers, the optional recorder, and the client's metrics.
 */
import type { Backend } from '../backend/index.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Upstream } from '../embedded/upstream.js';
import type { Metrics } from '../http/metrics.js';
import type { Logger } from '../logger.js';
import { type Recording, startRecording } from '../replay/index.js';
import { createRacingClient, type RacingClient, warnIfUnidentified } from '../upstream/client.js';
import { createRateLimiter, type RateLimiter } from '../upstream/rate-limiter.js';

export interface RacingClientParts {
  limiter: RateLimiter;
  client: RacingClient;
  recording?: Recording;
}

export function wireRacingClient(deps: {
  config: Config;
  upstream: Upstream;
  backend: Backend;
  wallClock: Clock;
  logger: Logger;
  metrics: Metrics;
}): RacingClientParts {
  const { config, upstream, logger, metrics } = deps;
  const { clock } = upstream;
  const limiter = createRateLimiter({
    maxPerMinute: config.RACING_API_MAX_RPM,
    clock,
    sharedWindow: deps.backend.requestWindow,
    logger: logger.child({ component: 'limiter' }),
  });
  const headers = upstreamHeaders(config);
  if (upstream.kind === 'racing API') warnIfUnidentified(logger.child({ component: 'upstream' }), headers);
  const recording = config.RECORD_DIR
    ? startRecording({
        dir: config.RECORD_DIR,
        baseUrl: upstream.baseUrl,
        clock,
        logger: logger.child({ component: 'recorder' }),
        onDrop: (reason, records) => metrics.recordingDropped.inc({ reason }, records),
      })
    : undefined;
  const client = createRacingClient({
    baseUrl: upstream.baseUrl,
    fetch: recording?.fetch,
    limiter,
    clock,
    wallClock: deps.wallClock,
    logger: logger.child({ component: 'upstream' }),
    timeoutMs: config.RACING_API_TIMEOUT_MS,
    onResponse: (meta) => metrics.upstreamRequests.inc(upstreamLabels(meta.path, meta.status)),
    onEchoOmitted: (members) => {
      for (const member of members) metrics.echoOmitted.inc({ member });
    },
    headers,
  });
  return { limiter, client, recording };
}

function upstreamHeaders(config: Config) {
  return {
    from: config.RACING_API_FROM,
    partner: config.RACING_API_PARTNER,
    partnerId: config.RACING_API_PARTNER_ID,
    apiKey:
      config.RACING_API_KEY_HEADER && config.RACING_API_KEY
        ? { header: config.RACING_API_KEY_HEADER, value: config.RACING_API_KEY }
        : undefined,
  };
}

/** Metric labels of an upstream response: the operation (not the id, to keep cardinality low) and status. */
export function upstreamLabels(
  path: string,
  status: number | undefined,
): { operation: string; outcome: string } {
  const [, resource = 'unknown', id] = path.split('/');
  const operation = id ? resource.replace(/s$/, '') : resource;
  const outcome = status === undefined ? 'no_response' : status === 429 ? '429' : `${String(status)[0]}xx`;
  return { operation, outcome };
}
