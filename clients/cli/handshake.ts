/**
 * Whether a failed WebSocket handshake is worth retrying. `ws` reports an HTTP answer to the upgrade as
 * "Unexpected server response: 404": a 4xx other than 408 and 429 is the URL or the key being wrong, which
 * no retry mends, so the ticker says so and exits instead of retrying for ever. 5xx, timeouts, refused
 * connections and 408/429 are passing troubles and are retried.
 */
export function refusedForGood(socketError: string | undefined): number | undefined {
  const status = Number(/Unexpected server response: (\d{3})/.exec(socketError ?? '')?.[1]);
  if (!Number.isInteger(status) || status < 400 || status > 499) return undefined;
  return status === 408 || status === 429 ? undefined : status;
}
