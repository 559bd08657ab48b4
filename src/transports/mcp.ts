// The `mcp` transport: a stdio MCP server (the SDK's low-level Server) exposing verbs as tools and HARNESS.md as resources.
// Import this module dynamically: the SDK is heavy and only `hcp serve --mcp` needs it.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { stableJSON } from "../json/stable.js";
import { executeVerb, isDryRun, planVerb, type DryRun, type ExecResult } from "../runtime/execute.js";
import { TransportError, errorBody } from "./errors.js";
import { harnessSummary, harnessText, type ServedPack, type ServeOptions } from "./packs.js";
import { failed, planDetails, planSubject } from "./render.js";
import { buildTools, type VerbTool } from "./tools.js";

export interface McpOptions extends ServeOptions {
  /** The server version reported at initialize. */
  version: string;
}

/** What a tools/call returns: a text block and the §6.5 result (or the plan) as structuredContent. */
interface ToolResult {
  [k: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

function resultOf(r: ExecResult | DryRun): ToolResult {
  const out: ToolResult = { content: [{ type: "text", text: stableJSON(r) }], structuredContent: r as unknown as Record<string, unknown> };
  if (!isDryRun(r) && failed(r)) out.isError = true;
  return out;
}

/** The one mapping of a failed call to MCP: an isError result carrying {error: {code, message}}. */
function errorResult(err: unknown): ToolResult {
  const error = errorBody(err);
  return { content: [{ type: "text", text: `Error: ${error.code}: ${error.message}` }], structuredContent: { error }, isError: true };
}

const uriOf = (pack: ServedPack) => `hcp://${pack.surface.id}/HARNESS.md`;

/** The server instructions: how the tools behave, and each pack's Skill in one line. */
export function instructionsOf(packs: readonly ServedPack[], tools: readonly VerbTool[], opts: ServeOptions): string {
  const lines = [
    `hcp serves ${packs.length} HCP harness pack(s); each verb is a tool named <pack>_<verb>.`,
    opts.allowWrite ? "Write verbs may run." : "Write verbs are refused: this server was started without --allow-write.",
    "Confirm-gated verbs: call with dry_run: true to get the plan and its plan_id, then call again with confirm: <plan_id>, or approve when asked.",
    "Packs:",
  ];
  for (const pack of packs) {
    const names = tools.filter((t) => t.pack === pack).map((t) => t.name);
    const skill = harnessText(pack) !== undefined ? ` Read ${uriOf(pack)} before using it.` : "";
    lines.push(`- ${pack.surface.id}: ${harnessSummary(pack)}${skill} Tools: ${names.join(", ") || "none"}.`);
  }
  return lines.join("\n");
}

/** Serves until stdin closes or SIGTERM/SIGINT; then every running child's process group is killed. */
export async function serveMcp(packs: readonly ServedPack[], opts: McpOptions): Promise<void> {
  const tools = buildTools(packs, opts);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const server = new Server(
    { name: "hcp", version: opts.version },
    { capabilities: { tools: {}, resources: {} }, instructions: instructionsOf(packs, tools, opts) },
  );
  const session = new AbortController();
  const running = new Set<Promise<unknown>>();

  /** Asks the person to approve the plan (the client can elicit); throws confirmation_declined unless accepted. */
  async function approve(d: DryRun, signal: AbortSignal): Promise<void> {
    const message = [`Approve running ${planSubject(d)}?`, ...planDetails(d)].join("\n");
    const answer = await server.elicitInput({ mode: "form", message, requestedSchema: { type: "object", properties: {} } }, { signal });
    if (answer.action !== "accept") {
      throw new TransportError("confirmation_declined", `${planSubject(d)} was not approved (${answer.action}); nothing was run`);
    }
  }

  async function call(t: VerbTool, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const args = { ...input };
    let dryRun = false;
    let confirm: string | undefined;
    if (t.gated) {
      const { dry_run, confirm: c } = args;
      delete args["dry_run"];
      delete args["confirm"];
      if (dry_run !== undefined && typeof dry_run !== "boolean") throw new TransportError("invalid_request", "dry_run must be a boolean");
      if (c !== undefined && typeof c !== "string") throw new TransportError("invalid_request", "confirm must be a string (a plan_id)");
      dryRun = dry_run === true;
      confirm = c;
    }
    const run = { allowWrite: opts.allowWrite, dryRun, signal };
    if (t.gated && !dryRun && confirm === undefined && server.getClientCapabilities()?.elicitation?.form !== undefined) {
      const planned = planVerb(t.pack, t.verb, args, run);
      await approve(planned, signal);
      confirm = planned.plan_id;
    }
    return resultOf(await executeVerb(t.pack, t.verb, args, { ...run, confirm }));
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => t.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const t = byName.get(req.params.name);
    if (t === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(req.params.name)}`);
    const signal = AbortSignal.any([extra.signal, session.signal]);
    const task = call(t, req.params.arguments ?? {}, signal).catch(errorResult);
    running.add(task);
    try {
      return await task;
    } finally {
      running.delete(task);
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: packs
      .filter((p) => harnessText(p) !== undefined)
      .map((p) => ({ uri: uriOf(p), name: `${p.surface.id} HARNESS.md`, description: harnessSummary(p), mimeType: "text/markdown" })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const pack = packs.find((p) => uriOf(p) === req.params.uri);
    const text = pack === undefined ? undefined : harnessText(pack);
    if (text === undefined) throw new McpError(ErrorCode.InvalidParams, `no resource ${JSON.stringify(req.params.uri)}`);
    return { contents: [{ uri: req.params.uri, mimeType: "text/markdown", text }] };
  });

  const closed = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.stdin.once("end", stop);
    process.stdin.once("close", stop);
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    // The SDK's Protocol reports its closing only through this property.
    // oxlint-disable-next-line unicorn/prefer-add-event-listener
    server.onclose = stop;
  });
  await server.connect(new StdioServerTransport());
  await closed;
  session.abort();
  await Promise.allSettled(running);
  await server.close();
}
