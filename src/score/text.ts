// Go's string and JSON predicates the probes rely on: strings.TrimSpace, strings.ToLower, json.Valid.

import { findSyntaxError } from "../json/literal.js";
import { isGoSpaceCode } from "../json/goquote.js";

/** strings.TrimSpace: trims unicode.IsSpace from both ends. */
export function goTrimSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isGoSpaceCode(s.charCodeAt(a))) a++;
  while (b > a && isGoSpaceCode(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}

/** strings.ToLower: unicode.ToLower rune by rune (no context rules, İ becomes i). */
export function goToLower(s: string): string {
  if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase();
  return Array.from(s, (ch) => (ch === "\u0130" ? "i" : ch.toLowerCase())).join("");
}

/** json.Valid: the whole text is one well-formed JSON value. */
export function goJSONValid(text: string): boolean {
  return findSyntaxError(text) === null;
}
