// What a person is shown before trusting a pack with credentials (`hcp trust`, and `hcp run`'s terminal prompt):
// what the pack is (id, real folder, binding, the credentials it reads) and what it does (each verb's program
// and argv template, or method and URL), with control, bidi and invisible characters escaped as in plans.

import type { LoadedPack, Surface } from "../pack/types.js";
import { escapeForPerson } from "./approval/show.js";
import { credentialFilePath, readCredentialFile } from "./credentials.js";
import { boundVerb } from "./openapi/packs.js";
import { baseUrlOf } from "./openapi/request.js";
import { resolveProgram } from "./resolve.js";
import { commandOf } from "./verb-lookup.js";

type Env = Readonly<Record<string, string | undefined>>;

const quoted = (items: readonly string[]) => `[${items.map((a) => escapeForPerson(JSON.stringify(a))).join(", ")}]`;
const why = (err: unknown) => escapeForPerson(err instanceof Error ? err.message : String(err));

/** The names the pack's credentials are read under: policy.json `credentials` for the keyring, the family's entries in the credential file. */
function credentialNames(pack: LoadedPack, surface: Surface, env: Env): string {
  const family = surface.binding?.family ?? surface.id;
  if (surface.binding?.hub === "keyring") {
    const names = pack.policy?.credentials ?? [];
    return `the keyring entries ${quoted(names)} of service ${escapeForPerson(JSON.stringify(`hcp:${family}`))}`;
  }
  const file = credentialFilePath(env);
  let names: string;
  try {
    const entry = readCredentialFile(file)?.[family];
    const of = (k: string) => {
      const v = entry !== null && typeof entry === "object" ? (entry as Record<string, unknown>)[k] : undefined;
      return v !== null && typeof v === "object" ? Object.keys(v) : [];
    };
    names = entry === undefined ? "none stored yet" : `variables ${quoted(of("env"))}, security schemes ${quoted(of("openapi"))}`;
  } catch (err) {
    names = `cannot be read: ${why(err)}`;
  }
  return `every value of family ${escapeForPerson(JSON.stringify(family))} in ${escapeForPerson(file)} (${names})`;
}

/** One line per verb: its program and argv template, or its method and URL. */
function verbLines(pack: LoadedPack, surface: Surface, env: Env): string[] {
  const lines: string[] = [];
  for (const [key, verb] of Object.entries(surface.verbs)) {
    const name = escapeForPerson(JSON.stringify(key));
    try {
      if (surface.kind === "openapi") {
        const { document, operation } = boundVerb(pack, key);
        lines.push(`    ${name}: ${operation.method} ${escapeForPerson(baseUrlOf(pack.policy, document).href.replace(/\/$/, "") + operation.path)}`);
        continue;
      }
      const { bin, template } = commandOf(surface, key, verb);
      lines.push(`    ${name}: ${escapeForPerson(resolveProgram(bin, pack.root, env["PATH"]))} ${quoted(template)}`);
    } catch (err) {
      lines.push(`    ${name}: cannot run: ${why(err)}`);
    }
  }
  return lines;
}

/** The pack as a person reviews it before trusting it with credentials; the digests are of the files as loaded. */
export function trustReview(pack: LoadedPack, env: Env = process.env): string {
  const surface = pack.surface;
  if (surface === null) return `pack at ${escapeForPerson(pack.root)}: it did not load`;
  const b = surface.binding;
  const lines = [
    `pack ${escapeForPerson(JSON.stringify(surface.id))}:`,
    `  folder:      ${escapeForPerson(pack.root)}`,
    `  binding:     hub ${escapeForPerson(String(b?.hub))}, family ${escapeForPerson(JSON.stringify(b?.family ?? surface.id))}, mode ${escapeForPerson(String(b?.mode))}`,
    `  credentials: ${credentialNames(pack, surface, env)}`,
  ];
  if (surface.kind === "openapi") {
    const ref = surface.openapi;
    lines.push(`  document:    ${escapeForPerson(ref?.path ?? ref?.url ?? "-")}`);
    const base = pack.policy?.openapi?.base_url;
    lines.push(`  base URL:    ${base === undefined ? "the document's first server (policy.json sets no openapi.base_url)" : escapeForPerson(base)}`);
  }
  if (surface.wrap?.agent_env !== undefined) lines.push(`  agent_env:   ${escapeForPerson(JSON.stringify(surface.wrap.agent_env))}`);
  if (pack.policy?.env !== undefined) lines.push(`  passes env:  ${quoted(pack.policy.env)}`);
  if (pack.policy?.cwd !== undefined) lines.push(`  cwd:         ${escapeForPerson(pack.policy.cwd)}`);
  if (surface.pass_through !== undefined) lines.push(`  pass-through: ${quoted(surface.pass_through.allowedSubcommands)} of ${escapeForPerson(surface.wrap?.bin ?? "-")}`);
  lines.push("  verbs:", ...verbLines(pack, surface, env));
  lines.push(`  surface.json sha256 ${pack.sha256?.surface ?? "-"}, policy.json ${pack.sha256?.policy ?? "absent"}`);
  return lines.join("\n");
}
