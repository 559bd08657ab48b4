// --jq (real jq via the lazily loaded jq-wasm, printed and worded as Go's gojq: gojq.ts) and --template
// (Go's text/template over JSON values: template.ts) over machine output.

import { parseJSONLiteral } from "../json/literal.js";
import { stableJSON } from "../json/stable.js";
import { errorMessage, RungradError, ExitCode } from "./errors.js";
import { gojqCompileError, gojqOutput, gojqRunError } from "./gojq.js";
import { executeGoTemplate, parseGoTemplate, TemplateExecError, TemplateParseError } from "./template.js";

type JqModule = { raw(data: string, filter: string, flags?: string[]): Promise<string> };
let jqModule: Promise<JqModule> | null = null;
const loadJq = (): Promise<JqModule> => (jqModule ??= import("jq-wasm") as Promise<JqModule>);

/** Calls jq; its Emscripten runtime sets process.exitCode to jq's status, which is restored here. */
async function callJq(data: string, expr: string, flags: string[]): Promise<string> {
  const jq = await loadJq();
  const saved = process.exitCode;
  try {
    return await jq.raw(data, expr.trim() === "" ? "." : expr, flags);
  } finally {
    process.exitCode = saved;
  }
}

/** jq's failure as Go's: a query that does not compile (exit 1) or one that fails on the data (exit 2). */
function jqFailure(err: unknown): RungradError {
  const msg = errorMessage(err).trim();
  if (/compile error/.test(msg)) return new RungradError(ExitCode.Usage, `invalid --jq expression: ${gojqCompileError(msg)}`);
  return new RungradError(ExitCode.API, `--jq expression failed: ${gojqRunError(msg)}`);
}

/** Rejects a jq expression that does not compile (exit 1, `invalid --jq expression: …`). */
export async function validateJq(expr: string): Promise<void> {
  try {
    await callJq("null", expr, ["-c"]);
  } catch (err) {
    const failure = jqFailure(err);
    if (failure.exitCode === ExitCode.Usage) throw failure;
  }
}

/** Runs jq over stable JSON; each result as gojq.Marshal writes it, one per line. */
export async function runJq(stableJson: string, expr: string): Promise<string> {
  let out: string;
  try {
    out = await callJq(stableJson, expr, ["-c"]);
  } catch (err) {
    throw jqFailure(err);
  }
  return gojqOutput(out);
}

/** Parses a --template; a syntax error is exit 1 `invalid --template: template: output:…`. */
export function parseTemplate(text: string): ReturnType<typeof parseGoTemplate> {
  try {
    return parseGoTemplate(text);
  } catch (err) {
    if (err instanceof TemplateParseError) throw new RungradError(ExitCode.Usage, `invalid --template: ${err.message}`);
    throw err;
  }
}

/**
 * Renders the machine value as Go rungrad does: over its --json bytes decoded again (maps, arrays,
 * json.Number literals), output ending in exactly one newline; a failure is exit 2.
 */
export function renderTemplate(text: string, value: unknown): string {
  const nodes = parseTemplate(text);
  let out: string;
  try {
    out = executeGoTemplate(text, nodes, parseJSONLiteral(stableJSON(value)));
  } catch (err) {
    if (err instanceof TemplateExecError) throw new RungradError(ExitCode.API, `--template rendering failed: ${err.message}`);
    throw err;
  }
  return out.replace(/\n+$/, "") + "\n";
}
