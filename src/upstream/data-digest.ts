/**
 * A digest of an /events body's `data` without parsing it, so an unchanged payload can be recognised before
 * the expensive steps (parse, validate, normalise, diff). The envelope before `data` (`header` with its
 * `generated_time`, `params`) changes on every response and is left out; everything from `data`'s value to
 * the end of the body is hashed, so a member after `data`, or a second `data` (the one JSON.parse keeps),
 * can only make the digest differ, never hide a change. Pure.
 */
import { createHash } from 'node:crypto';

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN = new Set([123, 91]); // { [
const CLOSE = new Set([125, 93]); // } ]

/** Index just past the string starting at `i` (a quote), or -1 when it never ends. */
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  return -1;
}

/** Index just past the JSON value starting at `i` (after whitespace), or -1 when malformed. */
function skipValue(text: string, i: number): number {
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) {
      j = skipString(text, j) - 1;
      if (j < 0) return -1;
      if (depth === 0) return j + 1;
    } else if (OPEN.has(c)) depth++;
    else if (CLOSE.has(c)) {
      depth--;
      if (depth < 0) return j; // a scalar ended by its parent's close
      if (depth === 0) return j + 1;
    } else if (depth === 0 && (c === 44 || c === 125)) return j; // , } after a scalar
  }
  return -1;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

function skipSpace(text: string, i: number): number {
  let j = i;
  while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  return j;
}

/** Where the top-level member `data`'s value starts, or -1 when the body is not an object holding it. */
function dataValueStart(text: string): number {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 123) return -1;
  i++;
  for (;;) {
    i = skipSpace(text, i);
    if (text.charCodeAt(i) !== QUOTE) return -1;
    const keyEnd = skipString(text, i);
    if (keyEnd < 0) return -1;
    const key = text.slice(i + 1, keyEnd - 1);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== 58) return -1; // :
    i = skipSpace(text, i + 1);
    if (key === 'data') return i;
    i = skipValue(text, i);
    if (i < 0) return -1;
    i = skipSpace(text, i);
    if (text.charCodeAt(i) !== 44) return -1; // no `,`: the object ended without data
    i++;
  }
}

/**
 * SHA-1 of the body from `data`'s value to its end, or undefined when the body has no top-level `data` (the
 * caller then parses as usual). Equal digests mean byte-identical data.
 */
export function dataDigest(text: string): string | undefined {
  const start = dataValueStart(text);
  if (start < 0) return undefined;
  return createHash('sha1').update(text.slice(start)).digest('base64');
}
