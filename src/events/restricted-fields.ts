/**
 * Fields the spec says reach only registered partners (and featured countries). One list, used by
 * delivery to redact documents and patches for public subscribers, and by detection to keep event
 * payloads free of them.
 */

/** Race conditions fields of race B (`available only to registered partners and featured countries`). */
export const RESTRICTED_RACE_FIELDS: ReadonlySet<string> = new Set([
  'age_conditions',
  'allowance_conditions',
  'class',
  'fftop3_option_number',
  'ffwin_option_number',
  'gait',
  'gender_conditions',
  'jockey_conditions',
  'mile_rate_400',
  'mile_rate_800',
  'special_conditions',
  'track_circumference',
  'track_surface',
  'weight_and_handicap_conditions',
]);

/** Entrant/runner fields marked restricted or registered-partners-only. */
export const RESTRICTED_ENTRANT_FIELDS: ReadonlySet<string> = new Set([
  'all_box_history',
  'best_mile_rate',
  'emergency_position',
  'first_start_indicator',
  'foaling_date',
  'form_comment',
  'form_comment_short',
  'is_emergency',
  'is_late_scratched',
  'last_12_p',
  'last_12_w',
  'last_starts',
  'place_p',
  'runner_change',
  'spr',
  'win_p',
]);
