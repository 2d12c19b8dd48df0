/**
 * Error bodies. The official description answers 400, 404 and 500 with `main_ErrorResponse`: a header
 * only, `{header: {title, generated_time, url, error, error_code}}`. The seed spec describes two other
 * shapes, `{error, message}` and `{error: {code, message}}`, and 429 as `{error, retry_after}`.
 *
 * Which the simulator sends:
 * | when | status | shape |
 * |---|---|---|
 * | a bad parameter, an unknown id, an unknown path under the API | 400, 404 | official |
 * | fault `not_found` | 404 | official |
 * | fault `server_error_official` | 500 | official |
 * | fault `server_error` | 500 | `{error, message}` |
 * | fault `server_error_nested` | 500 | `{error: {code, message}}` |
 * | its own limit, fault `rate_limit` | 429 | `{error, retry_after}` + `Retry-After` |
 *
 * The description gives no values for `error` and `error_code`: the simulator puts the message in
 * `error` and a code (`bad_request`, `not_found`, `internal_error`) in `error_code`.
 */
import { isoNano } from './payloads.js';

export type ErrorCode = 'bad_request' | 'not_found' | 'internal_error';
export type ErrorShape = 'official' | 'flat' | 'nested';

export interface ApiError {
  status: 400 | 404 | 500;
  code: ErrorCode;
  message: string;
}

export function errorBody(
  shape: ErrorShape,
  error: ApiError,
  context: { title: string; url: string; now: number },
): string {
  switch (shape) {
    case 'flat':
      return JSON.stringify({ error: error.code, message: error.message });
    case 'nested':
      return JSON.stringify({ error: { code: error.code, message: error.message } });
    case 'official':
      return JSON.stringify({
        header: {
          title: context.title,
          generated_time: isoNano(context.now),
          url: context.url,
          error: error.message,
          error_code: error.code,
        },
      });
  }
}

export const rateLimitBody = (retryAfter: number) =>
  JSON.stringify({ error: 'rate_limit_exceeded', retry_after: retryAfter });
