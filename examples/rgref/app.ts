// rgref: the TypeScript twin of Go rungrad's reference CLI (cmd/rgref), built on src/framework.

import { compareBytes, JsonNumber } from "../../src/json/stable.js";
import { App, isNumericID, mask, RungradError, ExitCode, tableText, updateCommand, type CommandSpec, type Match } from "../../src/framework/index.js";

export const VERSION = "v0.3.2";

interface Item {
  id: string;
  name: string;
  size: JsonNumber;
  label: string;
}

/** The in-memory backend: two items share the name "dup"; size and label exist only in machine output. */
const ITEMS: readonly Item[] = [
  { id: "1", name: "alpha", size: new JsonNumber("9007199254740993"), label: "A&B <demo> café" },
  { id: "2", name: "dup", size: new JsonNumber("2"), label: "two" },
  { id: "3", name: "dup", size: new JsonNumber("3"), label: "three" },
];

const sortedItems = (): Item[] => [...ITEMS].sort((a, b) => compareBytes(a.id, b.id));
const itemLookup = (name: string): Match[] => ITEMS.filter((it) => it.name === name).map((it) => ({ id: it.id, name: it.name }));
const itemResolve = { resourceType: "item", allowPrompt: true, isID: isNumericID };

/** Names that stand for upstream failures, handled before resolution. */
const FIXTURE_ERRORS: Readonly<Record<string, [number, string]>> = {
  broken: [ExitCode.API, "api error fixture"],
  forbidden: [ExitCode.Forbidden, "forbidden fixture"],
  throttled: [ExitCode.RateLimited, "rate limited fixture"],
};

const itemCommand: CommandSpec = {
  use: "item",
  short: "Work with items",
  examples: ["rgref item list", "rgref item get alpha", "rgref item create gamma --dry-run"],
  related: ["rgref whoami", "rgref update"],
  group: "core",
  commands: [
    {
      use: "list",
      short: "List items",
      examples: [
        "rgref item list",
        "rgref item list --json",
        "rgref item list --plain",
        "rgref item list --jq '.[].name'",
        `rgref item list --template '{{range .}}{{.id}} {{.name}}{{"\\n"}}{{end}}'`,
      ],
      related: ["rgref item get", "rgref item create"],
      outputModes: ["human", "json", "plain", "jq", "template"],
      supportsMeta: true,
      run: async (ctx) => {
        const data = sortedItems();
        await ctx.writeOutput({
          model: data,
          meta: {
            request_id: "req_rgref_items_0001",
            pagination: { page: 1, per_page: 3, total_pages: 1, total_items: 3, has_more: false },
            rate_limit: { limit: 1000, remaining: 997, reset: 1893456000 },
            retry: { attempts: 1 },
            idempotency: { key: "rgref-item-list-fixture", replayed: false },
            extra: { service_url: ctx.service("api")?.value ?? "" },
          },
          human: () => tableText(["ID", "Name"], data.map((it) => [it.id, it.name]), "No items."),
          plain: () => data.map((it) => `${it.id}\t${it.name}\n`).join(""),
        });
      },
    },
    {
      use: "get <name>",
      short: "Resolve an item by name or id",
      examples: ["rgref item get alpha", "rgref item get 1", "rgref item get alpha --jq .id", "rgref item get alpha --template '{{.id}}'"],
      related: ["rgref item list"],
      outputModes: ["human", "json", "jq", "template"],
      args: { exact: 1 },
      run: async (ctx) => {
        const fixture = FIXTURE_ERRORS[ctx.args[0]!];
        if (fixture) throw new RungradError(fixture[0], fixture[1]);
        const id = await ctx.resolve(ctx.args[0]!, itemLookup, itemResolve);
        await ctx.writeResult({ id }, () => id + "\n");
      },
    },
    {
      use: "create <name>",
      short: "Create an item",
      examples: ["rgref item create gamma", "rgref item create gamma --dry-run", "rgref item create gamma --quiet"],
      related: ["rgref item list"],
      outputModes: ["human", "json"],
      mutates: true,
      args: { exact: 1 },
      run: async (ctx) => {
        const name = ctx.args[0]!;
        if (ctx.dryRun) {
          await ctx.writePreview({
            method: "POST",
            path: "/items",
            body: [
              { name: "name", value: name },
              { name: "token", value: "reference-secret", secret: true },
            ],
          });
          return;
        }
        ctx.infof("hint: pass --quiet to hide informational messages");
        await ctx.writeMutation({ action: "Created", resource: "item", name });
      },
    },
    {
      use: "delete <name>",
      short: "Delete an item",
      examples: ["rgref item delete alpha --dry-run", "rgref item delete alpha --confirm"],
      related: ["rgref item list"],
      outputModes: ["human", "json"],
      mutates: true,
      destructive: true,
      args: { exact: 1 },
      flags: [{ name: "confirm", usage: "Confirm the destructive action without a prompt", type: "bool" }],
      run: async (ctx) => {
        const id = await ctx.resolve(ctx.args[0]!, itemLookup, itemResolve);
        if (ctx.dryRun) {
          await ctx.writePreview({ method: "DELETE", path: "/items/" + id });
          return;
        }
        await ctx.confirmDestructive({ action: "delete item", target: id, confirmed: ctx.bool("confirm") });
        // A fixture: nothing is really deleted, so repeated runs stay deterministic.
        await ctx.writeMutation({ action: "Deleted", resource: "item", id });
      },
    },
  ],
};

const whoamiCommand: CommandSpec = {
  use: "whoami",
  short: "Show the authenticated identity",
  examples: ["rgref whoami"],
  related: ["rgref item list"],
  outputModes: ["human", "json"],
  requiresAuth: true,
  run: async (ctx) => {
    const masked = mask(ctx.token);
    await ctx.writeResult({ token: masked }, () => `authenticated (${masked})\n`);
  },
};

/** A fresh rgref app. */
export function newApp(): App {
  const app = new App({
    name: "rgref",
    short: "rungrad reference CLI",
    // Like Go's rgref, the root's related commands live in its Long text, not in the manifest.
    long: "rgref is the worked example tool for the rungrad framework.\n\nRelated commands:\n  rgref item list\n  rgref update",
    version: VERSION,
    envVar: "RGREF_TOKEN",
    advancedOutput: true,
    resolution: {
      profile: true,
      authFile: true,
      services: [
        {
          name: "api",
          flag: "api-url",
          envVar: "RGREF_API_URL",
          configKey: "api_url",
          default: "https://api.rgref.invalid",
          usage: "Base URL for the reference API service",
        },
      ],
    },
    examples: ["rgref item list", "rgref item list --json", "rgref item create gamma --dry-run"],
    groups: [{ id: "core", title: "Core Commands" }],
  });
  app.addCommand(itemCommand, whoamiCommand);
  app.addCommand(updateCommand({ currentVersion: VERSION, fetchLatest: () => ({ version: VERSION }), toolName: "rgref" }));
  return app;
}
