/**
 * Webhook errors: one registry of codes, messages and HTTP statuses (fastify's lib/errors.js pattern).
 * docs/webhooks.md lists every code; a test keeps the two in step.
 */

export const WEBHOOK_ERRORS = {
  RW_WEBHOOK_UNAUTHORIZED: { status: 401, message: 'a valid admin bearer token is required' },
  RW_WEBHOOK_FORBIDDEN: { status: 403, message: 'without ADMIN_TOKEN the admin API answers loopback only' },
  RW_WEBHOOK_INVALID_REQUEST: { status: 400, message: 'the request is invalid' },
  RW_WEBHOOK_INVALID_URL: { status: 400, message: 'the webhook URL is invalid' },
  RW_WEBHOOK_URL_FORBIDDEN: { status: 400, message: 'the webhook URL points to a forbidden network' },
  RW_WEBHOOK_URL_UNRESOLVABLE: { status: 400, message: 'the webhook URL host does not resolve' },
  RW_WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: 'no such webhook endpoint' },
  RW_WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: 'no such delivery' },
  RW_WEBHOOK_SHUTTING_DOWN: { status: 503, message: 'the webhook service is shutting down' },
  RW_WEBHOOK_INTERNAL: { status: 500, message: 'internal error' },
} as const;

export type WebhookErrorCode = keyof typeof WEBHOOK_ERRORS;

export class WebhookError extends Error {
  readonly status: number;
  constructor(
    readonly code: WebhookErrorCode,
    message?: string,
  ) {
    super(message ?? WEBHOOK_ERRORS[code].message);
    this.name = this.constructor.name;
    this.status = WEBHOOK_ERRORS[code].status;
  }
}

/** The body of every error answer of the endpoints API. */
export const errorBody = (code: string, message: string) => ({ error: { code, message } });
