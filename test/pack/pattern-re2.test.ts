// Schema patterns matched in linear time (src/pack/pattern-syntax.ts, pattern-re2.ts, linear-regexp.ts): a pattern hcp
// accepts means for RE2 what it means for JavaScript's RegExp with the `u` flag (as Ajv compiles it), on every value;
// one it cannot match so is refused, naming why.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { RE2JS } from "re2js";
import { linearRegExp } from "../../src/pack/linear-regexp.js";
import { codePointsOf, re2Source } from "../../src/pack/pattern-re2.js";
import { linearRefusal, parsePattern, type Range } from "../../src/pack/pattern-syntax.js";

/** RE2's answer for an accepted pattern, through the module Ajv uses. */
function re2Test(pattern: string, value: string): boolean {
  return linearRegExp(pattern, "u").test(value);
}

/** Characters where the two engines could differ: line terminators, spaces, non-ASCII, astral, lone surrogates, word edges. */
const CHARS = ["a", "b", "A", "Z", "é", "Ω", "ß", "😀", "😁", "\ud83d", "\ude00", "\n", "\r", "\u2028", "\u2029", " ", "\u00a0", "\u1680", "\ufeff", "\t", "\v", "\f", "0", "9", "_", "-", ".", "\u0000", "\u{10FFFF}", "\u212a", "\u017f"];
const anyValue = fc.array(fc.constantFrom(...CHARS), { maxLength: 8 }).map((a) => a.join(""));

const ATOMS = [
  "a", "b", "é", "😀", "-", "_", "0", " ", "\n", "\u2028",
  "\\.", "\\*", "\\\\", "\\/", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", ".", "\\u{1F600}", "\\ud83d", "\\ude00", "\\ud83d\\ude00", "\\x41", "\\cJ", "\\0", "\\t", "\\v", "\\f", "\\r", "\\n",
  "\\p{L}", "\\P{L}", "\\p{Lu}", "\\p{Script=Greek}", "\\p{Nd}", "\\P{Cs}",
  "[a-c]", "[^a]", "[\\s\\d]", "[^\\S]", "[\\S]", "[^\\W\\d]", "[😀-😂]", "[\\ud800-\\udfff]", "[]", "[^]", "[\\b]", "[\\-a]", "[\\w-]", "[.]", "[^\\p{L}0-9]", "[\\P{Lu}]", "[\\u{0}-\\u{10FFFF}]", "[^\\n]",
];
const ASSERTIONS = ["^", "$", "\\b", "\\B"];
const QUANTIFIERS = ["*", "+", "?", "{2}", "{1,3}", "{0,}", "{0}", "*?", "+?", "{2,}?"];

const pattern: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...ATOMS),
    fc.constantFrom(...ASSERTIONS),
    fc.tuple(tie("p"), tie("p")).map(([x, y]) => x + y),
    fc.tuple(tie("p"), tie("p")).map(([x, y]) => `${x}|${y}`),
    fc.tuple(fc.constantFrom("(", "(?:"), tie("p")).map(([open, x]) => `${open}${x})`),
    fc.tuple(fc.oneof(fc.constantFrom(...ATOMS), tie("p").map((x) => `(?:${x})`)), fc.constantFrom(...QUANTIFIERS)).map(([x, q]) => x + q),
  ),
})).p;

/**
 * JavaScript's answer as ECMA-262 defines it (RegExpBuiltinExec): a match tried at each code point's index in turn,
 * by JavaScript's engine. (V8's own search also tries an index inside a surrogate pair, where `\B` then matches:
 * `/\B/u.test("a😀a")` is true in Node 20, false by the standard and in hcp.)
 */
function javaScriptTest(p: string, v: string): boolean {
  const sticky = new RegExp(p, "uy");
  for (let i = 0; i <= v.length; i += (v.codePointAt(i) ?? 0) > 0xffff ? 2 : 1) {
    sticky.lastIndex = i;
    if (sticky.test(v)) return true;
  }
  return false;
}

const compilesInJavaScript = (p: string): boolean => {
  try {
    return new RegExp(p, "u") instanceof RegExp;
  } catch {
    return false;
  }
};

test("every pattern hcp accepts matches, through RE2, exactly the values JavaScript's RegExp (u flag) matches", () => {
  let compared = 0;
  fc.assert(
    fc.property(pattern, fc.array(anyValue, { minLength: 1, maxLength: 6 }), (p, values) => {
      if (!compilesInJavaScript(p)) return;
      assert.equal(linearRefusal(p), undefined, p);
      for (const v of values) {
        compared++;
        assert.equal(re2Test(p, v), javaScriptTest(p, v), `${JSON.stringify(p)} on ${JSON.stringify(v)}`);
      }
    }),
    { numRuns: 1500 },
  );
  assert.ok(compared > 3000, `only ${compared} comparisons`);
});

/** Pieces of syntax that JavaScript (u flag) reads or refuses: groups, escapes, classes, counts, properties. */
const SYNTAX = [
  "(", ")", "(?:", "(?<n>", "\\k<n>", "\\k", "[", "]", "[^", "{", "}", "{1}", "{2,}", "{2,1}", ",", "*", "+", "?", "|", "^", "$", ".", "\\",
  "\\1", "\\0", "\\00", "\\c", "\\cA", "\\c1", "\\x4", "\\x41", "\\u12", "\\u0041", "\\u{", "\\u{41}", "\\u{110000}", "\\ud83d", "\\ude00",
  "\\p{L}", "\\P{Script=Greek}", "\\p{Script=Hrkt}", "\\p{Foo}", "\\p{L", "\\p{RGI_Emoji}", "\\d", "\\s", "\\b", "\\B", "\\-", "-", "a", "0", "\\/", "/", "\\a", "\\_", "\\]", "😀", "(?i:", "\\8",
];

test("hcp's parser reads a pattern as JavaScript does: what it refuses to compile is a syntax error, what it compiles is read", () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...SYNTAX), { minLength: 1, maxLength: 7 }), (pieces) => {
      const p = pieces.join("");
      const parsed = parsePattern(p);
      if (!compilesInJavaScript(p)) assert.ok(!parsed.ok && parsed.syntax, p);
      else assert.ok(parsed.ok || !parsed.why.startsWith("is read by JavaScript but not by hcp's parser"), `${p}: ${parsed.ok ? "" : parsed.why}`);
    }),
    { numRuns: 5000 },
  );
});

test("hand-picked patterns mean the same in both engines: anchors, line terminators, astral characters, lone surrogates, classes", () => {
  const cases: [string, string[]][] = [
    ["^.$", ["a", "😀", "\ud83d", "\ude00", "\n", "\r", "\u2028", "\u2029", "😀😀", "", "\ud83d\ude00"]],
    ["^a$", ["a", "a\n", "\na", "ab"]],
    ["a$", ["a\n", "ba"]],
    ["^\\s+$", ["\u000b", "\u00a0", "\ufeff", "\u1680", "\u180e", "\u200b", "\u3000", "\u0085", "\u2028 \t"]],
    ["^\\S$", ["\u0085", "\u180e", "\u200b", "a", " "]],
    ["\\bé", ["é", " é", "aé"]],
    ["a\\b", ["aé", "a", "a_", "a-"]],
    ["\\B", ["", "a", "-", "a😀a"]],
    ["^\\w+$", ["\u017f", "\u212a", "abc_09"]],
    ["^[^a]$", ["\ud800", "😀", "b", "a"]],
    ["^[\\ud800-\\udfff]$", ["\ud800", "\udfff", "😀", "\ud83d\ude00"]],
    ["^\\ud83d$", ["\ud83d", "😀"]],
    ["^\\ud83d\\ude00$", ["😀", "\ud83d"]],
    ["^\\p{L}+$", ["ñandú", "\ud83d", "a1"]],
    ["^\\P{L}$", ["\ud83d", "1", "a"]],
    ["^[]$", ["", "a"]],
    ["^[^]$", ["\n", "😀"]],
    ["(?:)", ["", "x"]],
    ["^(?<word>[a-z]+)-\\d{2,3}$", ["ab-12", "ab-1234"]],
    ["^(a|a)*$", ["aaaa", "aaab"]],
    ["^([a-z]+)+$", ["abc", "abc!"]],
    ["^(\\w+\\s?)*$", ["ab cd", "ab cd!"]],
    ["^\\u{10FFFF}$", ["\u{10FFFF}", "\udbff\udfff"]],
    ["^\\cj\\0$", ["\n\0"]],
  ];
  for (const [p, values] of cases) {
    for (const v of values) assert.equal(re2Test(p, v), javaScriptTest(p, v), `${JSON.stringify(p)} on ${JSON.stringify(v)}`);
  }
  // Everywhere but V8's one departure from the standard, RegExp's own search agrees.
  assert.equal(new RegExp("\\B", "u").test("a😀a"), true);
  assert.equal(re2Test("\\B", "a😀a"), false);
});

/** The code points JavaScript's `^X$` (u flag) matches, each alone (a surrogate as a lone one), by asking it about every one. */
function javaScriptRanges(cls: string): Range[] {
  const re = new RegExp(`^${cls}$`, "u");
  const out: [number, number][] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (!re.test(String.fromCodePoint(cp))) continue;
    const last = out[out.length - 1];
    if (last !== undefined && last[1] === cp - 1) last[1] = cp;
    else out.push([cp, cp]);
  }
  return out;
}

test("each character set is, code point by code point, JavaScript's: ., \\s, \\S, \\w, \\W, \\d, \\D, Unicode properties, negated classes; and RE2 reads the written set at its edges", () => {
  for (const cls of [".", "\\s", "\\S", "\\w", "\\W", "\\d", "\\D", "\\p{L}", "\\P{Lu}", "\\p{Script=Greek}", "\\p{Cs}", "[^\\s\\p{N}]", "[\\S\\d]", "[^\\n😀-😂]", "[\\ud800-\\udfff]"]) {
    const parsed = parsePattern(cls);
    assert.ok(parsed.ok && parsed.tree.kind === "chars", cls);
    const ranges = codePointsOf(parsed.tree.set);
    assert.deepEqual(ranges, javaScriptRanges(cls), cls);
    // RE2 reads the written class as these ranges: each edge, and its neighbours outside.
    const re2 = RE2JS.compile(`\\A${re2Source(parsed.tree)}\\z`);
    for (const [lo, hi] of ranges) {
      for (const cp of [lo, hi]) assert.equal(re2.test(String.fromCodePoint(cp)), true, `${cls} U+${cp.toString(16)}`);
      for (const cp of [lo - 1, hi + 1]) if (cp >= 0 && cp <= 0x10ffff && !ranges.some(([a, b]) => a <= cp && cp <= b)) assert.equal(re2.test(String.fromCodePoint(cp)), false, `${cls} U+${cp.toString(16)}`);
    }
  }
});

test("a pattern that needs backtracking, or that RE2 would refuse, is refused, saying why", () => {
  const refusals: [string, string][] = [
    ["^(?=.*@).+$", "has a lookahead, (?=…) or (?!…), which needs backtracking"],
    ["^(?!admin)", "has a lookahead, (?=…) or (?!…), which needs backtracking"],
    ["(?<=a)b", "has a lookbehind, (?<=…) or (?<!…), which needs backtracking"],
    ["(?<!a)b", "has a lookbehind, (?<=…) or (?<!…), which needs backtracking"],
    ["^(a+)\\1$", "has a backreference (\\1), which needs backtracking"],
    ["^(?<q>['\"]).*\\k<q>$", "has a backreference (\\k<name>), which needs backtracking"],
    ["^a{1001}$", "has a repeat count above 1000 ({1001})"],
    ["^a{2,5000}$", "has a repeat count above 1000 ({2,5000})"],
    ["^(?:a{100}){11}$", "has repeat counts inside repeat counts whose product is above 1000"],
    ["(?:(?:(?:[a-z]{0,30}){0,30}){0,1}|x){0,1}" + "(?:[a-z]{1000})".repeat(101), "is too large to match in linear time (its repeats expand to more than 100000 steps)"],
    ["(?:a|".repeat(300) + ")".repeat(300), "nests more than 250 deep"],
  ];
  for (const [p, why] of refusals) {
    assert.ok(compilesInJavaScript(p), p);
    assert.equal(linearRefusal(p), why, p);
    assert.throws(() => linearRegExp(p, "u"), { message: `pattern ${JSON.stringify(p)} cannot be matched in linear time: it ${why} (hcp matches patterns with RE2, which has no lookaround or backreferences)` });
  }
  // At the limits, accepted, and RE2 compiles them.
  for (const p of ["^a{1000}$", "^(?:a{10}){100}$", "(?:[a-z]{1000}){0,1}".repeat(40), "(".repeat(300) + "a" + ")".repeat(300), "(?:a(?:b|".repeat(120) + ")".repeat(240), "^(?:(?:a{2}){2})*$"]) {
    assert.equal(linearRefusal(p), undefined, p);
    assert.equal(linearRegExp(p, "u").test("b"), new RegExp(p, "u").test("b"), p);
  }
  // JavaScript's own syntax errors are JavaScript's to report (the schema check names them).
  assert.equal(linearRefusal("("), undefined);
  assert.equal(linearRefusal("\\-"), undefined);
  assert.throws(() => linearRegExp("(", "u"), /^Error: pattern "\(" is not a JavaScript regular expression: Invalid regular expression: \/\(\/u: Unterminated group$/);
});

test("the attacker's patterns answer at once on values that make a backtracking engine run for ever", () => {
  const value = `${"a".repeat(5000)}!`;
  for (const p of ["^([a-z]+)+$", "^(a|a)*$", "^(\\w+\\s?)*$", "^(a+)+b", "(x+x+)+y"]) assert.equal(linearRegExp(p, "u").test(value), false, p);
});

test("RE2 is loaded when a value is first matched, not when a schema compiles", () => {
  // The engine reads the pattern at once (a refusal throws there) and compiles it on the first test.
  const rx = linearRegExp("^[a-z]+$", "u");
  assert.equal(String(rx), "/^[a-z]+$/u");
  assert.equal(rx.test("abc"), true);
  assert.equal(rx.test("ab1"), false);
  assert.throws(() => linearRegExp("a", ""), { message: 'pattern "a": hcp matches patterns with the u flag only, asked for ""' });
});
