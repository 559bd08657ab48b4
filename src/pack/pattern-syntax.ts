// A schema's `pattern` (and each `patternProperties` name), read as JavaScript reads it (ECMA-262 with the `u` flag,
// as Ajv compiles it) into a tree hcp can match in linear time (pattern-re2.ts writes it for RE2), or the reason it
// cannot be. The rule: a pattern is matched only if every construct in it means the same in RE2 as in JavaScript for
// every value (the constructs RE2 writes differently are translated, in pattern-re2.ts); a pattern with a construct
// that needs backtracking (lookahead, lookbehind, a backreference) or that RE2 would refuse (a repeat count above
// 1000, nested counts whose product is above 1000, a tree too large or too deep) is refused, never matched by
// JavaScript's backtracking engine. Pure and cheap: pack validation reads every pattern of every verb. The reading is
// ESLint's ECMAScript regular expression parser, @eslint-community/regexpp (loaded with the first pattern read, a
// bundle of its own: lazy-modules.ts); this module maps its tree to hcp's and applies the rule.

import type { AST } from "@eslint-community/regexpp";
import { regexpParserClass } from "./lazy-modules.js";

/** An inclusive range of code points. */
export type Range = readonly [number, number];

/** A part of a character class: code points, or a Unicode property escape (`\p{…}`, `\P{…}`) resolved when written. */
export type ClassPart = { readonly ranges: readonly Range[] } | { readonly property: string; readonly negated: boolean };

/** One character of a set: a literal, `.`, an escape such as `\d`, or a class `[…]`. */
export interface CharSet {
  readonly negated: boolean;
  readonly parts: readonly ClassPart[];
}

export type PatternNode =
  | { readonly kind: "empty" }
  | { readonly kind: "chars"; readonly set: CharSet }
  | { readonly kind: "assert"; readonly at: "start" | "end" | "word" | "notWord" }
  | { readonly kind: "seq"; readonly items: readonly PatternNode[] }
  | { readonly kind: "alt"; readonly items: readonly PatternNode[] }
  /** `max` -1: unbounded. `counted`: written `{…}` (RE2 limits those). Laziness (`*?`) cannot change whether a value matches. */
  | { readonly kind: "repeat"; readonly body: PatternNode; readonly min: number; readonly max: number; readonly counted: boolean };

export type ParsedPattern = { readonly ok: true; readonly tree: PatternNode } | { readonly ok: false; readonly why: string; readonly syntax: boolean };

/** RE2's largest repeat count, also the bound of the product of nested counts (its parser's repeatIsValid). */
const MAX_REPEAT = 1000;
/** Bounds well inside RE2's own (size 1,398,101 and height 1000, its parser's calcSize and calcHeight): what passes here compiles there. */
const MAX_SIZE = 100_000;
const MAX_DEPTH = 250;

const LINE_TERMINATORS: readonly Range[] = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];
/** JavaScript's `\d`, `\w` (ASCII, the `i` flag never being set) and `\s` (WhiteSpace and LineTerminator, ECMA-262 §22.2.2.9). */
const DIGIT: readonly Range[] = [[0x30, 0x39]];
const WORD: readonly Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE: readonly Range[] = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;

/** The code points not in `ranges` (sorted, not overlapping). */
export function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

const set = (ranges: readonly Range[], negated = false): CharSet => ({ negated, parts: [{ ranges }] });
const DOT = set(LINE_TERMINATORS, true);

/** Thrown inside the reading; parsePattern returns it. */
class Refusal {
  constructor(readonly why: string) {}
}

/** The ECMAScript version whose grammar Node 20 reads (ES2025's group modifiers and duplicate group names it refuses). */
const ECMA_VERSION = 2023;
let parser: InstanceType<ReturnType<typeof regexpParserClass>> | undefined;

/** regexpp's tree of the pattern, read with the `u` flag as Ajv compiles it. */
function syntaxTree(pattern: string): AST.Pattern {
  parser ??= new (regexpParserClass())({ ecmaVersion: ECMA_VERSION });
  return parser.parsePattern(pattern, 0, pattern.length, { unicode: true });
}

const ESCAPE_RANGES = { digit: DIGIT, space: SPACE, word: WORD } as const;

/** A Unicode property escape as written between its braces (`L`, `Script=Greek`), resolved when written (pattern-re2.ts). */
const property = (s: AST.UnicodePropertyCharacterSet): ClassPart => ({ property: s.raw.slice(3, -1), negated: s.negate });

function disjunction(alternatives: readonly AST.Alternative[]): PatternNode {
  const items = alternatives.map(alternative);
  return items.length === 1 ? items[0]! : { kind: "alt", items };
}

function alternative(a: AST.Alternative): PatternNode {
  const items = a.elements.map(element);
  return items.length === 0 ? { kind: "empty" } : items.length === 1 ? items[0]! : { kind: "seq", items };
}

function element(e: AST.Element): PatternNode {
  switch (e.type) {
    case "Assertion":
      if (e.kind === "lookahead") throw new Refusal("has a lookahead, (?=…) or (?!…), which needs backtracking");
      if (e.kind === "lookbehind") throw new Refusal("has a lookbehind, (?<=…) or (?<!…), which needs backtracking");
      return { kind: "assert", at: e.kind === "word" ? (e.negate ? "notWord" : "word") : e.kind };
    case "Backreference":
      throw new Refusal(`has a backreference (${typeof e.ref === "string" ? "\\k<name>" : e.raw}), which needs backtracking`);
    case "Group":
      if (e.modifiers !== null) throw new Refusal("has a group with flags, (?i:…), which hcp does not know"); // ES2025's, not read
      return disjunction(e.alternatives);
    case "CapturingGroup":
      return disjunction(e.alternatives); // matching ignores captures
    case "Quantifier":
      return quantifier(e);
    case "Character":
      return { kind: "chars", set: set([[e.value, e.value]]) };
    case "CharacterSet":
      if (e.kind === "any") return { kind: "chars", set: DOT };
      if (e.kind === "property") return { kind: "chars", set: { negated: false, parts: [property(e)] } };
      return { kind: "chars", set: set(ESCAPE_RANGES[e.kind], e.negate) };
    case "CharacterClass":
      return { kind: "chars", set: { negated: e.negate, parts: e.elements.map(classPart) } };
    case "ExpressionCharacterClass":
      throw new Refusal(`has a class hcp does not know (${e.raw})`); // the v flag's, never set
  }
}

function quantifier(q: AST.Quantifier): PatternNode {
  const body = element(q.element);
  const written = q.raw.slice(q.element.raw.length).replace(/\?$/, ""); // `*`, `{2,5}`… (laziness cannot change a match)
  const counted = written.startsWith("{");
  if (counted && (q.min > MAX_REPEAT || (q.max !== Infinity && q.max > MAX_REPEAT))) throw new Refusal(`has a repeat count above ${MAX_REPEAT} (${written})`);
  return { kind: "repeat", body, min: q.min, max: q.max === Infinity ? -1 : q.max, counted };
}

function classPart(e: AST.CharacterClassElement): ClassPart {
  switch (e.type) {
    case "Character":
      return { ranges: [[e.value, e.value]] };
    case "CharacterClassRange":
      return { ranges: [[e.min.value, e.max.value]] };
    case "CharacterSet":
      if (e.kind === "property") return property(e);
      return { ranges: e.negate ? complement(ESCAPE_RANGES[e.kind]) : ESCAPE_RANGES[e.kind] };
    default:
      throw new Refusal(`has a class hcp does not know (${e.raw})`); // the v flag's, never set
  }
}

/** RE2's size of the tree (its parser's calcSize), which it bounds. */
function sizeOf(n: PatternNode): number {
  let size: number;
  switch (n.kind) {
    case "seq":
      size = n.items.reduce((sum, item) => sum + sizeOf(item), 0);
      break;
    case "alt":
      size = n.items.reduce((sum, item) => sum + sizeOf(item), 0) + n.items.length - 1;
      break;
    case "repeat": {
      const sub = sizeOf(n.body);
      if (n.max === -1) size = n.min === 0 ? 2 + sub : 1 + n.min * sub;
      else size = n.max * sub + (n.max - n.min);
      break;
    }
    default:
      size = 1;
  }
  return Math.max(1, size);
}

function depthOf(n: PatternNode): number {
  if (n.kind === "seq" || n.kind === "alt") return 1 + n.items.reduce((deepest, item) => Math.max(deepest, depthOf(item)), 0);
  return n.kind === "repeat" ? 1 + depthOf(n.body) : 1;
}

/** RE2's rule for counted repeats inside counted repeats (its parser's repeatIsValid): the counts' product is at most 1000. */
function countsValid(n: PatternNode, budget: number): boolean {
  if (n.kind === "repeat" && n.counted) {
    let m = n.max;
    if (m === 0) return true;
    if (m < 0) m = n.min;
    if (m > budget) return false;
    if (m > 0) budget = Math.trunc(budget / m);
  }
  if (n.kind === "repeat") return countsValid(n.body, budget);
  if (n.kind === "seq" || n.kind === "alt") return n.items.every((item) => countsValid(item, budget));
  return true;
}

function nestedCountsValid(n: PatternNode): boolean {
  if (n.kind === "repeat" && n.counted && (n.min >= 2 || n.max >= 2) && !countsValid(n, MAX_REPEAT)) return false;
  if (n.kind === "repeat") return nestedCountsValid(n.body);
  if (n.kind === "seq" || n.kind === "alt") return n.items.every(nestedCountsValid);
  return true;
}

/** Whether JavaScript compiles the pattern with the `u` flag, as Ajv does; its error text if not. */
function javaScriptError(pattern: string): string | undefined {
  try {
    return new RegExp(pattern, "u") instanceof RegExp ? undefined : "not a RegExp";
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Patterns read, by their text: a pack's verbs often share them, and validation and compiling read each again. */
const patternsRead = new Map<string, ParsedPattern>();
const MAX_PARSED = 4096;

/** Reads a pattern: its tree, or why hcp cannot match it (`syntax`: JavaScript does not compile it either). Never throws. */
export function parsePattern(pattern: string): ParsedPattern {
  let known = patternsRead.get(pattern);
  if (known === undefined) {
    known = readPattern(pattern);
    if (patternsRead.size >= MAX_PARSED) patternsRead.clear();
    patternsRead.set(pattern, known);
  }
  return known;
}

/** JavaScript's own verdict on the syntax first (the engine whose meaning is kept: regexpp knows `\p{Script=Hrkt}`, Node 20 does not), then regexpp's tree. */
function readPattern(pattern: string): ParsedPattern {
  const jsError = javaScriptError(pattern);
  if (jsError !== undefined) return { ok: false, why: `is not a JavaScript regular expression: ${jsError}`, syntax: true };
  let tree: PatternNode;
  try {
    tree = disjunction(syntaxTree(pattern).alternatives);
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, why: e.why, syntax: false };
    // Far deeper than the bound, the parser's recursion or this reading's overflows the stack.
    if (e instanceof RangeError) return { ok: false, why: `nests more than ${MAX_DEPTH} deep`, syntax: false };
    // JavaScript compiles it and regexpp does not (none known: test/pack/pattern-re2.test.ts): never matched on a guess.
    if (e instanceof SyntaxError) return { ok: false, why: `is read by JavaScript but not by hcp's parser: ${e.message}`, syntax: false };
    throw e;
  }
  if (depthOf(tree) > MAX_DEPTH) return { ok: false, why: `nests more than ${MAX_DEPTH} deep`, syntax: false };
  if (!nestedCountsValid(tree)) return { ok: false, why: `has repeat counts inside repeat counts whose product is above ${MAX_REPEAT}`, syntax: false };
  if (sizeOf(tree) > MAX_SIZE) return { ok: false, why: `is too large to match in linear time (its repeats expand to more than ${MAX_SIZE} steps)`, syntax: false };
  return { ok: true, tree };
}

/** Why hcp refuses a pattern JavaScript compiles, or undefined when it matches it (or JavaScript does not compile it: the schema check says so). */
export function linearRefusal(pattern: string): string | undefined {
  const parsed = parsePattern(pattern);
  return parsed.ok || parsed.syntax ? undefined : parsed.why;
}

/** The sentence for a refused pattern, as hcp validate and Ajv's compile report it. */
export function refusalMessage(pattern: string, why: string): string {
  return `pattern ${JSON.stringify(pattern)} cannot be matched in linear time: it ${why} (hcp matches patterns with RE2, which has no lookaround or backreferences)`;
}
