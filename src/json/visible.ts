// JSON text that a person can read on a terminal as it is: every character that renders as nothing or reorders the
// text (bidi overrides, zero-width characters…) written as a `\uXXXX` escape. The same JSON value, other bytes.

/**
 * C0 and C1 controls, DEL, format characters (bidi embeddings, overrides and isolates, zero-width
 * characters, the BOM, soft hyphen…), the line and paragraph separators, and every other code point Unicode
 * says renders as nothing (Default_Ignorable_Code_Point: Hangul fillers, the grapheme joiner, variation
 * selectors…), with which `alice` and `alice` followed by a filler, two different values, look the same.
 */
let invisible: RegExp | undefined;
/** Made on first use: V8 builds a Unicode property class as the literal is evaluated (0.5 ms of every hcp start). */
export const invisiblePattern = (): RegExp => (invisible ??= /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029]/gu);

/** What JSON text may hold raw outside strings: its whitespace (a serializer escapes these inside strings). */
const JSON_WHITESPACE = new Set(["\t", "\n", "\r"]);

/**
 * JSON text with every invisible character written as a `\uXXXX` escape. Such a character, JSON's whitespace aside,
 * can stand only inside a string (the syntax is ASCII), where the escape means the same character.
 */
export function escapeInvisibleJSON(json: string): string {
  // One escape per UTF-16 unit: a character outside the BMP (tag characters are Cf) becomes a surrogate pair.
  return json.replace(invisiblePattern(), (c) =>
    JSON_WHITESPACE.has(c)
      ? c
      : c
          .split("")
          .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, "0")}`)
          .join(""),
  );
}
