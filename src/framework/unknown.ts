// Cobra's unknown-command check: the root's first operand after its flags are stripped (Find before any flag
// parsing, so `tool serv --mcp` blames "serv", not --mcp), and the "Did you mean this?" suggestions.

import type { CommandNode } from "./command.js";

/**
 * Cobra's stripFlags on the root's own flags, first operand only: `--` ends the search; a `--name` (no `=`) that is
 * not a known bool, or a two-letter `-x` that is not a known bool shorthand, also takes the next word (Cobra treats an
 * unknown flag so); other dash words are dropped.
 */
export function rootOperand(argv: readonly string[], root: CommandNode, boolShorts: readonly string[]): string | null {
  const defs = [...root.persistent, ...root.flags];
  const bools = new Set(defs.filter((f) => f.type === "bool").map((f) => f.name).concat("help", "version"));
  const shortBools = new Set(defs.filter((f) => f.type === "bool" && f.shorthand).map((f) => f.shorthand!).concat(boolShorts));
  for (let i = 0; i < argv.length; i++) {
    const s = argv[i]!;
    if (s === "--") return null;
    const takesValue =
      (s.startsWith("--") && !s.includes("=") && !bools.has(s.slice(2))) ||
      (s.startsWith("-") && !s.includes("=") && s.length === 2 && !shortBools.has(s[1]!));
    if (takesValue) {
      if (i + 1 >= argv.length - 1) return null;
      i++;
      continue;
    }
    if (s !== "" && !s.startsWith("-")) return s;
  }
  return null;
}

/** Levenshtein distance, case-insensitive (Cobra's ld(s, t, true)). */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const row = [i];
    for (let j = 1; j <= t.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[t.length]!;
}

/** Cobra's SuggestionsFor: available subcommands within distance 2 of what was typed, or starting with it. */
export function suggestionsFor(node: CommandNode, typed: string): string[] {
  return node.children
    .filter((c) => c.available())
    .map((c) => c.name)
    .filter((name) => distance(typed, name) <= 2 || name.toLowerCase().startsWith(typed.toLowerCase()));
}

/** Cobra's findSuggestions text, appended to the unknown-command message ("" when there is nothing to suggest). */
export function suggestionText(names: readonly string[]): string {
  return names.length === 0 ? "" : `\n\nDid you mean this?\n${names.map((n) => `\t${n}\n`).join("")}`;
}
