// MCP tools derived from packs: names, descriptions, input and output schemas and annotations, one per served verb. Pure.

import { toolName, uncutToolName } from "../pack/fields.js";
import { controlArgumentTaken, toolNameTaken } from "../pack/mcp-names.js";
import { controlsOf, toolDescription, withControls } from "../pack/mcp-tool-text.js";
import { heavyTools, weighTool, type ToolWeight } from "../pack/mcp-weight.js";
import { isIdempotent } from "../pack/policy.js";
import type { EffectivePolicy } from "../pack/types.js";
import { argsSchemaOf } from "../runtime/execute.js";
import { RuntimeError } from "../runtime/errors.js";
import { TransportError } from "./errors.js";
import { argsWithoutHidden, hiddenSubcommands } from "./hidden-subcommands.js";
import { HTTP_OUTPUT_SCHEMA, HTTP_PLAIN_OUTPUT } from "./http-output.js";
import { PLAIN_TOOL_OUTPUT, TOOL_OUTPUT } from "./output-schemas.js";
import { verbsOf, type ServedPack, type ServeOptions } from "./packs.js";
import { closestNames } from "../runtime/verb-names.js";

/** Which tools a server offers (`--tools`, `--exclude`, `--read-only`); everything by default. */
export interface ToolSelection {
  /** Globs on tool names (`*` any run of characters, `?` one): only matching tools are served. */
  readonly tools?: readonly string[];
  /** Globs on tool names: matching tools are not served. */
  readonly exclude?: readonly string[];
  /** Serve read verbs only. */
  readonly readOnly?: boolean;
}

/** The MCP tool of one verb, with what the server needs to call it. */
export interface VerbTool {
  name: string;
  pack: ServedPack;
  verb: string;
  policy: EffectivePolicy;
  /** The tool takes `confirm`: its verb needs a person's approval or a restated plan_id. */
  gated: boolean;
  /** The tool takes `dry_run`: it writes or is gated. */
  previewable: boolean;
  /** The tools/list entry. */
  tool: {
    name: string;
    title: string;
    description: string;
    inputSchema: { type: "object"; [k: string]: unknown };
    outputSchema: { type: "object"; [k: string]: unknown };
    annotations: { title: string; readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };
  };
}

/**
 * The verb's schema, without the names of subcommands the server hides (hidden-subcommands.ts), plus `dry_run`
 * (writes and gated verbs) and `confirm` (gated verbs).
 */
function inputSchema(pack: ServedPack, verb: string, policy: EffectivePolicy, hidden: (value: unknown) => boolean): VerbTool["tool"]["inputSchema"] {
  return withControls(argsWithoutHidden(argsSchemaOf(pack, verb), hidden) as VerbTool["tool"]["inputSchema"], policy);
}

/** Refuses a served verb with an argument named like one its tool adds (`dry_run`, `confirm`): the tool could not tell them apart. */
function refuseControlArgument(pack: ServedPack, key: string, policy: EffectivePolicy): void {
  const { gated, previewable } = controlsOf(policy);
  const properties = argsSchemaOf(pack, key)["properties"];
  if (typeof properties !== "object" || properties === null) return;
  for (const [arg, added] of [["dry_run", previewable], ["confirm", gated]] as const) {
    if (added && Object.hasOwn(properties, arg)) throw new TransportError("tool_name_collision", controlArgumentTaken(pack.surface.id, key, arg));
  }
}

/** A glob on tool names as a regular expression: `*` any run of characters, `?` one, the rest literal. */
function globRegExp(glob: string): RegExp {
  const body = [...glob].map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&"))).join("");
  return new RegExp(`^${body}$`);
}

/**
 * Whether a tool is served under the selection. A glob matches a tool by its name or by its name before the cut
 * (toolName): `--exclude '*_delete'` leaves out a verb `….reaction.delete` whose tool name ends in a hash instead.
 */
function selected(names: readonly string[], policy: EffectivePolicy, sel: ToolSelection): boolean {
  if (sel.readOnly && policy.policy !== "read") return false;
  const matches = (globs: readonly string[]) => globs.some((g) => names.some((n) => globRegExp(g).test(n)));
  if (sel.tools !== undefined && sel.tools.length > 0 && !matches(sel.tools)) return false;
  return !(sel.exclude !== undefined && matches(sel.exclude));
}

interface Chosen {
  pack: ServedPack;
  key: string;
  policy: EffectivePolicy;
  name: string;
}

/**
 * The served verbs of the packs and their tool names, each name recorded in `owners` (tool name to the verb that has
 * it). Refused (tool_name_collision): a tool name already in `owners` or had twice, then a served verb with an
 * argument named `dry_run` or `confirm`.
 */
function chooseTools(packs: readonly ServedPack[], opts: ToolSelection, owners: Map<string, string>): Chosen[] {
  const chosen: Chosen[] = [];
  for (const pack of packs) {
    for (const { key, policy } of verbsOf(pack, true)) {
      const name = toolName(pack.surface.id, key);
      const owner = `verb ${JSON.stringify(key)} of pack ${JSON.stringify(pack.surface.id)}`;
      const taken = owners.get(name);
      if (taken !== undefined) throw new TransportError("tool_name_collision", toolNameTaken(name, taken, owner));
      owners.set(name, owner);
      if (selected([name, uncutToolName(pack.surface.id, key)], policy, opts)) chosen.push({ pack, key, policy, name });
    }
  }
  for (const { pack, key, policy } of chosen) refuseControlArgument(pack, key, policy);
  return chosen;
}

/** What the tool's structuredContent holds: a program's or a request's result, an error, and a plan where it takes dry_run. */
function outputSchemaOf(pack: ServedPack, previewable: boolean): VerbTool["tool"]["outputSchema"] {
  if (pack.surface.kind === "openapi") return previewable ? HTTP_OUTPUT_SCHEMA : HTTP_PLAIN_OUTPUT;
  return previewable ? TOOL_OUTPUT : PLAIN_TOOL_OUTPUT;
}

/** Every served tool of the packs; two verbs with one tool name, or a verb argument named dry_run or confirm, are refused. */
export function buildTools(packs: readonly ServedPack[], opts: ServeOptions & ToolSelection = {}): VerbTool[] {
  return toolsOf(packs, chooseTools(packs, opts, new Map()), opts);
}

/** The tools of the chosen verbs (a verb's schema leaves out the subcommands that are not served). */
function toolsOf(packs: readonly ServedPack[], chosen: readonly Chosen[], opts: ServeOptions): VerbTool[] {
  const hiddenOf = new Map(packs.map((pack) => [pack, hiddenSubcommands(pack, new Set(chosen.filter((c) => c.pack === pack).map((c) => c.key)))]));
  return chosen.map(({ pack, key, policy, name }) => {
    const mode = pack.surface.binding?.mode;
    const openWorld = mode !== "local" && mode !== "mock";
    const { gated, previewable } = controlsOf(policy);
    const title = `${titleOf(pack)}: ${key}`;
    const idempotent = isIdempotent(pack, key);
    const annotations: VerbTool["tool"]["annotations"] =
      policy.policy === "read"
        ? { title, readOnlyHint: true, openWorldHint: openWorld }
        : { title, readOnlyHint: false, destructiveHint: !idempotent, idempotentHint: idempotent, openWorldHint: openWorld };
    return {
      name,
      pack,
      verb: key,
      policy,
      gated,
      previewable,
      tool: {
        name,
        title,
        description: toolDescription(pack.surface.verbs[key]?.description, pack.surface.name ?? pack.surface.id, key, policy, opts.allowWrite === true),
        inputSchema: inputSchema(pack, key, policy, hiddenOf.get(pack)!(key)),
        outputSchema: outputSchemaOf(pack, previewable),
        annotations,
      },
    };
  });
}

/**
 * Why hcp serve --mcp would not serve this pack (two verbs with one tool name, a verb argument named dry_run or
 * confirm), in the server's own words; undefined when it would serve it. hcp validate warns with it, so a pack it
 * passes is not first refused (named directly) or left out (in a folder of packs) when the MCP client starts it.
 */
export function mcpRefusal(pack: ServedPack): string | undefined {
  try {
    chooseTools([pack], {}, new Map());
    return undefined;
  } catch (e) {
    if (e instanceof TransportError && e.code === "tool_name_collision") return e.message;
    throw e;
  }
}

/** toolCheck: the check itself, and what the operator is told of the tools of the packs it accepted. */
export interface ToolCheck {
  readonly check: (pack: ServedPack) => void;
  /** A warning when they are more than many MCP clients and model APIs take at once, or heavier; none for fewer and lighter. */
  readonly warnings: () => string[];
}

/**
 * The check loadServed makes of each pack an MCP server would serve (PackCheck), in the order they are loaded: its
 * served verbs must be tools (as buildTools makes them under this selection), and none may take a tool name of a pack
 * accepted before it. Refused as tool_name_collision, in the words the server refuses with; a pack it accepts is
 * remembered, with its tools counted, a refused one is not.
 */
export function toolCheck(opts: ServeOptions & ToolSelection): ToolCheck {
  const owners = new Map<string, string>();
  const weights: ToolWeight[] = [];
  const check = (pack: ServedPack) => {
    const own = new Map<string, string>();
    const chosen = chooseTools([pack], opts, own);
    for (const [name, owner] of own) {
      const taken = owners.get(name);
      if (taken !== undefined) throw new TransportError("tool_name_collision", toolNameTaken(name, taken, owner));
    }
    for (const [name, owner] of own) owners.set(name, owner);
    weights.push(...weighed(pack, chosen, opts));
  };
  return {
    check,
    // hcp init says so of one pack; a server of several, or of a pack made long ago, is told here.
    warnings: () => heavyTools(weights, "--tools, --exclude or --read-only"),
  };
}

/**
 * The chosen verbs' tools of one pack, weighed; those of an API whose document hcp mcp-config did not fetch (an
 * untrusted pack's `openapi.url`) have no schema to weigh, and count as tools of no weight.
 */
function weighed(pack: ServedPack, chosen: readonly Chosen[], opts: ServeOptions): ToolWeight[] {
  try {
    return toolsOf([pack], chosen, opts).map((t) => weighTool(pack.surface.id, t.verb, t.policy.policy === "read", t.tool));
  } catch (e) {
    if (!(e instanceof RuntimeError)) throw e;
    return chosen.map((c) => ({ pack: pack.surface.id, verb: c.key, read: c.policy.policy === "read", chars: 0 }));
  }
}

/** The tools/list result: the same object shape from the SDK's handler and from the stdio link's early answer. */
export function toolsListed(tools: readonly VerbTool[]): { tools: VerbTool["tool"][] } {
  return { tools: tools.map((t) => t.tool) };
}

/** The JSON length of each list's tools/list result, worked out once per list (the servers of HTTP requests share it). */
const listedLengths = new WeakMap<readonly VerbTool[], number>();

/**
 * How long the tools/list result of `tools` is as JSON; Infinity when it is longer than the longest string JavaScript
 * holds (about 512 MiB: Microsoft Graph's 11,422 tools), which no transport can send as one message.
 */
export function listedLength(tools: readonly VerbTool[]): number {
  let length = listedLengths.get(tools);
  if (length === undefined) {
    try {
      length = JSON.stringify(toolsListed(tools)).length;
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
      length = Infinity;
    }
    listedLengths.set(tools, length);
  }
  return length;
}

/**
 * Why a tool name is unknown, for its error: the served tool nearest to it (`gh_pr.list` for `gh_pr_list`, a letter or
 * two off), else how many tools are served. Only a served tool is ever named: a verb the server hides (denied, a write
 * under --read-only, outside --tools) is as unknown as a made-up one.
 */
export function unknownToolHint(name: string, served: readonly string[]): string {
  const [close] = closestNames(served, name);
  if (close !== undefined) return `did you mean ${JSON.stringify(close)}?`;
  if (served.length === 0) return "this server serves no tools";
  return `tools/list names the ${served.length === 1 ? "one tool" : `${served.length} tools`} this server serves`;
}

/**
 * A tool title's first part: the pack's name, or its id where the name is long (an API's title, `GitHub's official
 * OpenAPI spec + Octokit extension`, said again before each of 1,223 tools where a client shows titles).
 */
function titleOf(pack: ServedPack): string {
  const name = pack.surface.name;
  return name !== undefined && name.length <= 32 ? name : pack.surface.id;
}
