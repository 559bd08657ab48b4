// Product `--example` values: only concrete invocations of generated leaves with generated flags, and where each one is appended.

import { goFields } from "../json/goquote.js";
import { invalid } from "./errors.js";

/** The generated commands an example can target. */
export type ExampleTarget = "widget list" | "widget create" | "widget delete" | "update";

/** Validates one example and returns the command it targets. `valueFlags` are the generated long flags that take a value. */
export function validateExample(tool: string, valueFlags: ReadonlySet<string>, example: string): ExampleTarget {
  const f = goFields(example);
  if (f.length === 0) throw invalid("example must not be empty");
  if (f[0] !== tool) throw invalid("example must start with the generated binary name");
  if (f.length < 2) throw invalid("example must name a generated command");
  if (f[1] === "update") {
    if (!flagTailOK(f.slice(2), valueFlags, ["check"])) throw invalid("update examples accept only generated flags after the command path");
    return "update";
  }
  if (f.length < 3 || f[1] !== "widget") throw invalid("example must name widget list, widget create, widget delete, or update");
  switch (f[2]) {
    case "list":
      if (!flagTailOK(f.slice(3), valueFlags, [])) throw invalid("widget list examples accept only generated flags after the command path");
      return "widget list";
    case "create":
    case "delete": {
      const verb = f[2];
      if (f.length < 4 || f[3]!.startsWith("-")) throw invalid(`widget ${verb} examples must include a positional name before flags`);
      if (!flagTailOK(f.slice(4), valueFlags, verb === "delete" ? ["confirm"] : [])) {
        throw invalid(`widget ${verb} examples accept only generated flags after the name`);
      }
      return `widget ${verb}`;
    }
    default:
      throw invalid("example must name widget list, widget create, widget delete, or update");
  }
}

const BOOL_GLOBALS = ["json", "dry-run", "no-prompt", "quiet"];

/** Only generated long flags; a value flag takes `--f=v` or the next token (which must not start with `-`). */
function flagTailOK(tokens: string[], valueFlags: ReadonlySet<string>, localBools: string[]): boolean {
  const bools = new Set([...BOOL_GLOBALS, ...localBools]);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (!token.startsWith("--") || token === "--") return false;
    const name = token.slice(2).split("=")[0]!;
    if (valueFlags.has(name)) {
      if (token.includes("=")) continue;
      if (i + 1 >= tokens.length || tokens[i + 1]!.startsWith("-")) return false;
      i++;
      continue;
    }
    if (!bools.has(name)) return false;
  }
  return true;
}
