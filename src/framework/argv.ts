// Raw-argv passes: pflag's `--bool=value` forms, and machine-output intent for errors raised before flags are trusted.

import type { CommandNode } from "./command.js";
import type { FlagDef } from "./flags.js";
import { FlagParseError } from "./errors.js";
import { goQuote } from "../json/goquote.js";

/** Go's strconv.ParseBool; undefined when the text is not a boolean. */
export function parseGoBool(v: string): boolean | undefined {
  if (["1", "t", "T", "TRUE", "true", "True"].includes(v)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(v)) return false;
  return undefined;
}

export interface FlagNames {
  /** Long names of bool flags. */
  bools: ReadonlySet<string>;
  /** Long names and shorthands of value-taking flags. */
  values: ReadonlySet<string>;
  shortValues: ReadonlySet<string>;
}

/** The names of every flag in the tree: the root's persistent and local flags and each command's own. */
export function flagNames(root: CommandNode): FlagNames {
  const bools = new Set<string>();
  const values = new Set<string>();
  const shortValues = new Set<string>();
  const visit = (n: CommandNode, defs: readonly FlagDef[]) => {
    for (const f of defs) {
      if (f.type === "bool") bools.add(f.name);
      else {
        values.add(f.name);
        if (f.shorthand) shortValues.add(f.shorthand);
      }
    }
    n.children.forEach((c) => visit(c, c.flags));
  };
  visit(root, [...root.persistent, ...root.flags]);
  return { bools, values, shortValues };
}

export interface NormalizedArgs {
  args: string[];
  /** Bool flags whose last occurrence was an explicit `--name=false`. */
  explicitFalse: Set<string>;
}

/** Rewrites `--b=true` to `--b` and drops `--b=false` (recording it), so the parser sees only bare bool flags. */
export function normalizeBoolArgs(argv: readonly string[], names: FlagNames): NormalizedArgs {
  const { args, explicitFalse } = scanArgs(argv, names);
  return { args, explicitFalse };
}

/** normalizeBoolArgs, plus how many arguments follow the terminating `--` (-1 without one; a flag's value `--` is no terminator). */
export function scanArgs(argv: readonly string[], names: FlagNames): NormalizedArgs & { afterDash: number } {
  const args: string[] = [];
  const explicitFalse = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      args.push(...argv.slice(i));
      return { args, explicitFalse, afterDash: argv.length - i - 1 };
    }
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
      if (names.bools.has(name)) {
        if (eq < 0) {
          explicitFalse.delete(name);
          args.push(arg);
          continue;
        }
        const raw = arg.slice(eq + 1);
        const v = parseGoBool(raw);
        if (v === undefined) {
          throw new FlagParseError(`invalid argument ${goQuote(raw)} for "--${name}" flag: strconv.ParseBool: parsing ${goQuote(raw)}: invalid syntax`);
        }
        if (v) {
          explicitFalse.delete(name);
          args.push("--" + name);
        } else explicitFalse.add(name);
        continue;
      }
      args.push(arg);
      if (eq < 0 && names.values.has(name) && i + 1 < argv.length) args.push(argv[++i]!);
      continue;
    }
    args.push(arg);
    if (arg.length === 2 && arg[0] === "-" && names.shortValues.has(arg[1]!) && i + 1 < argv.length) args.push(argv[++i]!);
  }
  return { args, explicitFalse, afterDash: -1 };
}

export interface MachineNames {
  json: string;
  jq: string;
  template: string;
}

/** Machine-output intent from raw argv: honours `--`, `--json=false`, and values of root value-taking flags. */
export function detectMachineOutput(argv: readonly string[], machine: MachineNames, advanced: boolean, names: FlagNames): boolean {
  let skipNext = false;
  for (const arg of argv) {
    if (skipNext) {
      skipNext = false;
      continue;
    }
    if (arg === "--") break;
    if (arg.startsWith("-") && !arg.startsWith("--")) {
      const body = arg.slice(1);
      for (let i = 0; i < body.length; i++) {
        const c = body[i]!;
        if (c === "=") break;
        if (names.shortValues.has(c)) {
          skipNext = i === body.length - 1;
          break;
        }
      }
      continue;
    }
    if (!arg.startsWith("--")) continue;
    const eq = arg.indexOf("=");
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    if (name === machine.json) {
      if (!(eq >= 0 && parseGoBool(arg.slice(eq + 1)) === false)) return true;
    } else if ((name === machine.jq || name === machine.template) && advanced) return true;
    if (eq < 0 && names.values.has(name)) skipNext = true;
  }
  return false;
}
