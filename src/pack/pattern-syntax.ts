// A schema's `pattern` (and each `patternProperties` name), read as JavaScript reads it (ECMA-262 with the `u` flag,
// as Ajv compiles it) into a tree hcp can match in linear time (pattern-re2.ts writes it for RE2), or the reason it
// cannot be. The rule: a pattern is matched only if every construct in it means the same in RE2 as in JavaScript for
// every value (the constructs RE2 writes differently are translated, in pattern-re2.ts); a pattern with a construct
// that needs backtracking (lookahead, lookbehind, a backreference) or that RE2 would refuse (a repeat count above
// 1000, nested counts whose product is above 1000, a tree too large or too deep) is refused, never matched by
// JavaScript's backtracking engine. Pure and cheap: pack validation reads every pattern of every verb.

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
export const DIGIT: readonly Range[] = [[0x30, 0x39]];
export const WORD: readonly Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
export const SPACE: readonly Range[] = [
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

/** Thrown inside the parser; parsePattern returns it. */
class Refusal {
  constructor(readonly why: string) {}
}

const SYNTAX_CHARACTERS = "^$\\.*+?()[]{}|/";
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

class Parser {
  private pos = 0;
  constructor(private readonly src: string) {}

  parse(): PatternNode {
    const tree = this.disjunction();
    if (this.pos < this.src.length) this.invalid();
    return tree;
  }

  private invalid(): never {
    throw new Refusal(`is not a JavaScript regular expression (at offset ${this.pos})`);
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  private eat(s: string): boolean {
    if (!this.src.startsWith(s, this.pos)) return false;
    this.pos += s.length;
    return true;
  }

  private disjunction(): PatternNode {
    const items = [this.alternative()];
    while (this.eat("|")) items.push(this.alternative());
    return items.length === 1 ? items[0]! : { kind: "alt", items };
  }

  private alternative(): PatternNode {
    const items: PatternNode[] = [];
    while (this.pos < this.src.length && this.peek() !== "|" && this.peek() !== ")") items.push(this.term());
    return items.length === 0 ? { kind: "empty" } : items.length === 1 ? items[0]! : { kind: "seq", items };
  }

  private term(): PatternNode {
    if (this.eat("^")) return { kind: "assert", at: "start" };
    if (this.eat("$")) return { kind: "assert", at: "end" };
    if (this.eat("\\b")) return { kind: "assert", at: "word" };
    if (this.eat("\\B")) return { kind: "assert", at: "notWord" };
    if (this.src.startsWith("(?=", this.pos) || this.src.startsWith("(?!", this.pos)) throw new Refusal("has a lookahead, (?=…) or (?!…), which needs backtracking");
    if (this.src.startsWith("(?<=", this.pos) || this.src.startsWith("(?<!", this.pos)) throw new Refusal("has a lookbehind, (?<=…) or (?<!…), which needs backtracking");
    return this.quantified(this.atom());
  }

  private atom(): PatternNode {
    const c = this.peek();
    if (c === "(") return this.group();
    if (c === ".") {
      this.pos++;
      return { kind: "chars", set: DOT };
    }
    if (c === "[") return { kind: "chars", set: this.characterClass() };
    if (c === "\\") return this.atomEscape();
    if (c === undefined || "*+?{}])".includes(c)) this.invalid();
    return { kind: "chars", set: set([this.literal()]) };
  }

  private literal(): Range {
    const cp = this.src.codePointAt(this.pos)!;
    this.pos += cp > 0xffff ? 2 : 1;
    return [cp, cp];
  }

  private group(): PatternNode {
    this.pos++;
    if (this.eat("?")) {
      if (this.eat(":")) {
        // a group that captures nothing
      } else if (this.peek() === "<") {
        const end = this.src.indexOf(">", this.pos);
        if (end < 0) this.invalid();
        this.pos = end + 1; // a named group: matching ignores captures
      } else throw new Refusal(`has a group (?${this.peek() ?? ""}…) hcp does not know`);
    }
    const body = this.disjunction();
    if (!this.eat(")")) this.invalid();
    return body;
  }

  private quantified(body: PatternNode): PatternNode {
    let min: number;
    let max: number;
    let counted = false;
    const c = this.peek();
    if (c === "*") [min, max] = [0, -1];
    else if (c === "+") [min, max] = [1, -1];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{") {
      const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.src.slice(this.pos));
      if (m === null) this.invalid();
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? -1 : Number(m[3]);
      if (min > MAX_REPEAT || max > MAX_REPEAT) throw new Refusal(`has a repeat count above ${MAX_REPEAT} (${m[0]})`);
      counted = true;
      this.pos += m[0].length - 1;
    } else return body;
    this.pos++;
    this.eat("?");
    return { kind: "repeat", body, min, max, counted };
  }

  private atomEscape(): PatternNode {
    const c = this.peek(1);
    if (c !== undefined && c >= "1" && c <= "9") throw new Refusal(`has a backreference (\\${c}), which needs backtracking`);
    if (c === "k") throw new Refusal("has a backreference (\\k<name>), which needs backtracking");
    return { kind: "chars", set: this.classEscape(false) };
  }

  /** After `\`: a class of characters (`\d`, `\p{…}`…) or one character; `inClass`: `\b` is backspace and `\-` a dash. */
  private classEscape(inClass: boolean): CharSet {
    this.pos++;
    const c = this.peek();
    switch (c) {
      case "d":
      case "D":
      case "w":
      case "W":
      case "s":
      case "S": {
        this.pos++;
        return set(c === "d" || c === "D" ? DIGIT : c === "w" || c === "W" ? WORD : SPACE, c === c.toUpperCase());
      }
      case "p":
      case "P": {
        const m = /^\{([A-Za-z0-9_=]+)\}/.exec(this.src.slice(this.pos + 1));
        if (m === null) this.invalid();
        this.pos += 1 + m[0].length;
        return { negated: false, parts: [{ property: m[1]!, negated: c === "P" }] };
      }
      default: {
        const cp = this.characterEscape(inClass);
        return set([[cp, cp]]);
      }
    }
  }

  /** After `\`, at the escape's letter: the one code point it stands for. */
  private characterEscape(inClass: boolean): number {
    const c = this.peek();
    if (c === undefined) this.invalid();
    const simple: Record<string, number> = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b };
    if (Object.hasOwn(simple, c)) {
      this.pos++;
      return simple[c]!;
    }
    if (c === "c" && /^[A-Za-z]$/.test(this.peek(1) ?? "")) {
      this.pos += 2;
      return this.src.charCodeAt(this.pos - 1) % 32;
    }
    if (c === "0" && !isDigit(this.peek(1))) {
      this.pos++;
      return 0;
    }
    if (c === "x" && isHex(this.peek(1)) && isHex(this.peek(2))) {
      this.pos += 3;
      return parseInt(this.src.slice(this.pos - 2, this.pos), 16);
    }
    if (c === "u") return this.unicodeEscape();
    if (SYNTAX_CHARACTERS.includes(c) || (inClass && c === "-")) {
      this.pos++;
      return c.charCodeAt(0);
    }
    if (inClass && c === "b") {
      this.pos++;
      return 0x08;
    }
    return this.invalid();
  }

  /** `\uHHHH` (a lead and a trail surrogate written as two such escapes are one code point) or `\u{H…}`. */
  private unicodeEscape(): number {
    const braced = /^u\{([0-9A-Fa-f]+)\}/.exec(this.src.slice(this.pos));
    if (braced !== null) {
      const cp = parseInt(braced[1]!, 16);
      if (cp > MAX_CODE_POINT) this.invalid();
      this.pos += braced[0].length;
      return cp;
    }
    const four = /^u([0-9A-Fa-f]{4})(?:\\u([0-9A-Fa-f]{4}))?/.exec(this.src.slice(this.pos));
    if (four === null) this.invalid();
    const lead = parseInt(four[1]!, 16);
    const trail = four[2] === undefined ? -1 : parseInt(four[2], 16);
    if (lead >= 0xd800 && lead <= 0xdbff && trail >= 0xdc00 && trail <= 0xdfff) {
      this.pos += four[0].length;
      return 0x10000 + (lead - 0xd800) * 0x400 + (trail - 0xdc00);
    }
    this.pos += 5;
    return lead;
  }

  private characterClass(): CharSet {
    this.pos++;
    const negated = this.eat("^");
    const parts: ClassPart[] = [];
    while (!this.eat("]")) {
      if (this.pos >= this.src.length) this.invalid();
      const from = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos++;
        const to = this.classAtom();
        const lo = single(from);
        const hi = single(to);
        if (lo === undefined || hi === undefined || lo > hi) this.invalid();
        parts.push({ ranges: [[lo, hi]] });
      } else parts.push(...(from.negated ? [{ ranges: complement(resolveNow(from)) }] : from.parts));
    }
    return { negated, parts };
  }

  private classAtom(): CharSet {
    if (this.peek() === "\\") return this.classEscape(true);
    return set([this.literal()]);
  }
}

/** The one code point a set stands for, if it is one (a range's ends must be). */
function single(s: CharSet): number | undefined {
  const part = s.parts[0];
  if (s.negated || s.parts.length !== 1 || part === undefined || !("ranges" in part) || part.ranges.length !== 1) return undefined;
  const [lo, hi] = part.ranges[0]!;
  return lo === hi ? lo : undefined;
}

/** A negated escape inside a class (`[\S]`, `[\D]`): its code points, known without a property (`\P{…}` stays a part). */
function resolveNow(s: CharSet): Range[] {
  const part = s.parts[0]!;
  return "ranges" in part ? [...part.ranges] : [];
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

function readPattern(pattern: string): ParsedPattern {
  const jsError = javaScriptError(pattern);
  if (jsError !== undefined) return { ok: false, why: `is not a JavaScript regular expression: ${jsError}`, syntax: true };
  let tree: PatternNode;
  try {
    // Deeper than the bound, the parser's own recursion could overflow the stack: bounded here first.
    tree = new Parser(pattern).parse();
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, why: e.why, syntax: false };
    if (e instanceof RangeError) return { ok: false, why: `nests more than ${MAX_DEPTH} deep`, syntax: false };
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
