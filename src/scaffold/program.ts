// The generated program as data: app configuration and command declarations that both the scaffold-time manifest and src/main.ts are built from.

import type { AppConfig, CommandSpec } from "../framework/index.js";
import type { ScaffoldSettings } from "./options.js";

/** The generated CLI's version: build version, update's current version and the offline release. */
export const GENERATED_VERSION = "v0.1.0";

/** A command declaration without handlers (JSON-shaped); `commands` nest. */
export type CommandDecl = Omit<CommandSpec, "run" | "commands"> & { commands?: CommandDecl[] };

/** The handler each generated leaf gets, by path. */
export type Handler = "widget list" | "widget create" | "widget delete";

export interface ProgramDecl {
  app: AppConfig;
  widget: CommandDecl;
  /** Product examples appended to the framework's update examples. */
  updateExamples: string[];
  /** The service whose URL prefixes dry-run preview paths (product profile). */
  primaryService: string | null;
}

const bind = (name: string) => ({ name });

/** The declarations for validated settings. Key order here is the order in the generated source. */
export function programDecl(s: ScaffoldSettings): ProgramDecl {
  const n = s.name;
  const app: AppConfig = {
    name: n,
    short: s.productName,
    long: `${s.description}\n\nRelated commands:\n  ${n} widget list\n  ${n} update`,
    version: GENERATED_VERSION,
    envVar: s.envVar,
  };
  if (s.product) {
    app.resolution = {
      profile: true,
      authFile: true,
      services: s.services.map((svc) => ({
        name: svc.name,
        flag: svc.flag,
        envVar: svc.envVar,
        configKey: svc.configKey,
        default: svc.default,
        usage: svc.usage,
      })),
    };
  }
  if (s.hostSurface) {
    app.surface = {
      globalFlags: {
        mode: "host",
        bindings: {
          flags: Object.fromEntries(["json", "dry-run", "no-prompt", "quiet", "config", "profile", "auth-file"].map((id) => [id, bind(id)])),
          services: Object.fromEntries(s.services.map((svc) => [svc.name, bind(svc.flag)])),
        },
      },
    };
  }
  app.examples = [...s.examples.root];
  const list: CommandDecl = {
    use: "list",
    short: "List widgets",
    examples: [...s.examples.list],
    related: [`${n} widget create`],
    outputModes: ["table", "json"],
  };
  if (s.product) list.extensions = { [s.namespace]: { owner: "platform", status: "stable" } };
  const create: CommandDecl = {
    use: "create <name>",
    short: "Create a widget",
    examples: [...s.examples.create],
    related: [`${n} widget list`],
    outputModes: ["table", "json"],
    mutates: true,
    args: { exact: 1 },
  };
  const del: CommandDecl = {
    use: "delete <name>",
    short: "Delete a widget",
    examples: [...s.examples.delete],
    related: [`${n} widget list`],
    outputModes: ["table", "json"],
    destructive: true,
    args: { exact: 1 },
    flags: [{ name: "confirm", usage: "Confirm the destructive action without a prompt", type: "bool" }],
  };
  return {
    app,
    widget: { use: "widget", short: "Work with widgets", commands: [list, create, del] },
    updateExamples: [...s.examples.update],
    primaryService: s.services[0]?.name ?? null,
  };
}

/** The handler of a leaf declaration under `widget`. */
export function handlerOf(decl: CommandDecl): Handler {
  return `widget ${decl.use.split(" ")[0]}` as Handler;
}
