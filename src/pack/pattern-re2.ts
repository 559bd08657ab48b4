// A pattern's tree (pattern-syntax.ts) written in RE2's syntax with JavaScript's meaning. The translation is this
// module: RE2 reads some constructs differently from JavaScript (`.` stops only at \n, `\s` is ASCII and without
// \v, `$` may be read as Perl's, `\p{…}` comes from RE2's own Unicode tables, of another version than the ICU in
// this Node), so nothing is left to RE2 to interpret: every set of characters is written as explicit ranges of
// code points, computed here from JavaScript's definitions (a Unicode property by asking this JavaScript engine
// which code points it matches), anchors as \A and \z, groups as (?:…). test/pack/pattern-re2.test.ts compares the
// result with JavaScript's RegExp on many values.

import { complement, type CharSet, type PatternNode, type Range } from "./pattern-syntax.js";

/** Sorted, merged ranges. */
function normalize(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/**
 * Every code point but the surrogates, in order, as one string, and the inverse of its index (a code point below
 * U+D800 is at its own index, one from U+E000 to U+FFFF 2048 lower, an astral one at two code units each after them).
 */
let everyCodePoint: string | undefined;
const BMP_UNITS = 0x10000 - 0x800;
function codePointAtIndex(i: number): number {
  if (i < 0xd800) return i;
  if (i < BMP_UNITS) return i + 0x800;
  return 0x10000 + (i - BMP_UNITS) / 2;
}
function allCodePoints(): string {
  if (everyCodePoint !== undefined) return everyCodePoint;
  const units = new Uint16Array(BMP_UNITS + 2 * 0x100000);
  let at = 0;
  for (let cp = 0; cp <= 0xffff; cp++) if (cp < 0xd800 || cp > 0xdfff) units[at++] = cp;
  for (let cp = 0x10000; cp <= 0x10ffff; cp++) {
    units[at++] = 0xd800 + ((cp - 0x10000) >> 10);
    units[at++] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
  }
  everyCodePoint = Buffer.from(units.buffer).toString("utf16le");
  return everyCodePoint;
}

const properties = new Map<string, Range[]>();

/** The code points JavaScript's `\p{name}` matches (a lone surrogate too, as it does), asked of this engine once per name. */
function propertyRanges(name: string): Range[] {
  const known = properties.get(name);
  if (known !== undefined) return known;
  const out: Range[] = [];
  const all = allCodePoints();
  for (const m of all.matchAll(new RegExp(`\\p{${name}}+`, "gu"))) {
    const end = m.index + m[0].length;
    const first = codePointAtIndex(m.index);
    const last = codePointAtIndex(end - (end > BMP_UNITS ? 2 : 1));
    // U+D7FF and U+E000 are neighbours in the string, not in the code points: a run over both is two.
    if (first < 0xd800 && last >= 0xe000) out.push([first, 0xd7ff], [0xe000, last]);
    else out.push([first, last]);
  }
  const one = new RegExp(`^\\p{${name}}$`, "u");
  for (let cp = 0xd800; cp <= 0xdfff; cp++) if (one.test(String.fromCharCode(cp))) out.push([cp, cp]);
  const ranges = normalize(out);
  properties.set(name, ranges);
  return ranges;
}

/** The code points of a set, sorted and merged. */
export function codePointsOf(s: CharSet): Range[] {
  const ranges: Range[] = [];
  for (const part of s.parts) {
    if ("ranges" in part) ranges.push(...part.ranges);
    else ranges.push(...(part.negated ? complement(propertyRanges(part.property)) : propertyRanges(part.property)));
  }
  const merged = normalize(ranges);
  return s.negated ? complement(merged) : merged;
}

const codePoint = (cp: number): string => (/^[0-9A-Za-z]$/.test(String.fromCodePoint(cp)) ? String.fromCodePoint(cp) : `\\x{${cp.toString(16)}}`);

function charSet(s: CharSet): string {
  const ranges = codePointsOf(s);
  if (ranges.length === 0) return "[^\\x{0}-\\x{10ffff}]"; // matches nothing, as JavaScript's []
  if (ranges.length === 1 && ranges[0]![0] === ranges[0]![1]) return codePoint(ranges[0]![0]);
  return `[${ranges.map(([lo, hi]) => (lo === hi ? codePoint(lo) : `${codePoint(lo)}-${codePoint(hi)}`)).join("")}]`;
}

const ASSERTIONS = { start: "\\A", end: "\\z", word: "\\b", notWord: "\\B" } as const;

/** The tree in RE2's syntax (its Perl flags, none set: case-sensitive, `^`/`$` not used). */
export function re2Source(n: PatternNode): string {
  switch (n.kind) {
    case "empty":
      return "(?:)";
    case "chars":
      return charSet(n.set);
    case "assert":
      // \b and \B: both engines' word characters are [0-9A-Za-z_] (JavaScript's without the i flag, never set).
      return ASSERTIONS[n.at];
    case "seq":
      return n.items.map(re2Source).join("");
    case "alt":
      return `(?:${n.items.map(re2Source).join("|")})`;
    case "repeat": {
      const body = n.body.kind === "chars" ? re2Source(n.body) : `(?:${re2Source(n.body)})`;
      if (!n.counted) return body + (n.min === 0 ? (n.max === 1 ? "?" : "*") : "+");
      return `${body}{${n.min}${n.max === n.min ? "" : `,${n.max === -1 ? "" : n.max}`}}`;
    }
  }
}
