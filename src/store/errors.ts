/** Errors of the event log: programming errors in what callers hand it, never upstream data. */

export type EventLogErrorCode =
  /** `document` was given but no snapshot or patch entry carries its version. */
  | 'missing_document_entry'
  /** More than one snapshot or patch in one change: the document can have only one version per change. */
  | 'multiple_document_entries'
  /** A snapshot or patch without the `document` it produces: the head would fall out of step. */
  | 'missing_document'
  /** A patch on a stream that has no document yet: no client could apply it. */
  | 'patch_without_base'
  /** `now` is not a valid Date. */
  | 'invalid_timestamp'
  /** A negative or non-integer `afterSeq`, `limit` or `keep`. */
  | 'invalid_argument'
  /** The store holds something it could not have written (a missing checkpoint): a damaged file. */
  | 'corrupt_state'
  /** The log was closed. */
  | 'log_closed'
  /** The database file was written by a newer racewire whose schema this one does not know. */
  | 'schema_too_new';

export class EventLogError extends Error {
  readonly code: EventLogErrorCode;

  constructor(code: EventLogErrorCode, message: string) {
    super(message);
    this.name = this.constructor.name;
    this.code = code;
  }
}
