// The regular expressions of schemas (`pattern`, `patternProperties`), as Ajv's `code.regExp` option asks for them:
// matched by RE2 (re2js, linear in the value's length whatever the pattern) with JavaScript's meaning, never by
// JavaScript's backtracking engine, in which an agent's value can make a pattern with nested repetition
// (`^([a-z]+)+$`) take exponential time. A pattern hcp cannot match so (pattern-syntax.ts) fails the schema's compile.

import { re2Class } from "./lazy-modules.js";
import { parsePattern, refusalMessage } from "./pattern-syntax.js";
import { re2Source } from "./pattern-re2.js";

interface LinearRegExp {
  test(value: string): boolean;
  toString(): string;
}

/**
 * Ajv's RegExpEngine: the pattern is read when the schema compiles (a refused one throws, naming why); RE2 is loaded
 * and the pattern compiled when a value is first matched, so a process that compiles schemas without matching a
 * pattern (a server's start, a call whose argument has none) never loads re2js.
 */
export function linearRegExp(pattern: string, flags: string): LinearRegExp {
  if (flags !== "u") throw new Error(`pattern ${JSON.stringify(pattern)}: hcp matches patterns with the u flag only, asked for ${JSON.stringify(flags)}`);
  const parsed = parsePattern(pattern);
  if (!parsed.ok) throw new Error(parsed.syntax ? `pattern ${JSON.stringify(pattern)} ${parsed.why}` : refusalMessage(pattern, parsed.why));
  let compiled: { test(value: string): boolean } | undefined;
  return {
    test(value) {
      compiled ??= re2Class().compile(re2Source(parsed.tree));
      return compiled.test(value);
    },
    // Ajv's key for sharing one engine among a schema's equal patterns.
    toString: () => `/${pattern}/u`,
  };
}
// Ajv writes this name for the engine only in standalone code, which hcp does not generate.
linearRegExp.code = "linearRegExp";
