// `hcp list`: the packs, their verbs and effective policies, as a model and as text.

import { TRANSPORTS } from "../pack/fields.js";
import { policyMarks } from "../pack/harness-policy.js";
import { passThroughPolicy } from "../pack/policy.js";
import { escapeForPerson } from "../runtime/approval/show.js";
import type { ServedPack, ServeOptions } from "./packs.js";
import { runnable, verbsOf } from "./packs.js";

export interface VerbListing {
  verb: string;
  description: string | null;
  policy: "read" | "write" | "deny";
  /** Who must confirm a run: a person, the plan_id of a dry run, or nobody. */
  confirm: "person" | "plan" | false;
  timeout_ms: number;
  max_output_bytes: number;
  /** Where the policy came from: policy.json, its default, the verb's hint, or the fail-safe. */
  source: string;
  /** Whether it runs under the given options (confirmation aside). */
  runnable: boolean;
}

export interface PackListing {
  pack_id: string;
  root: string;
  kind: string;
  plane: string;
  binding_mode: string | null;
  /** Where its credentials come from (`none`, `public`, `local-credential`, `keyring`), and their family. */
  binding_hub: string | null;
  binding_family: string | null;
  transports: readonly string[];
  verbs: VerbListing[];
  pass_through: { policy: string; allowedSubcommands: string[]; maxArgv: number } | null;
}

export function listPacks(packs: readonly ServedPack[], opts: ServeOptions): { packs: PackListing[] } {
  return {
    packs: packs.map((pack) => {
      const s = pack.surface;
      return {
        pack_id: s.id,
        root: pack.root,
        kind: s.kind,
        plane: s.plane,
        binding_mode: s.binding?.mode ?? null,
        binding_hub: s.binding?.hub ?? null,
        binding_family: s.binding?.family ?? null,
        transports: s.transports ?? TRANSPORTS,
        verbs: verbsOf(pack).map(({ key, verb, policy: p }) => ({
          verb: key,
          description: verb.description ?? null,
          policy: p.policy,
          confirm: p.confirm,
          timeout_ms: p.timeout_ms,
          max_output_bytes: p.max_output_bytes,
          source: p.source,
          runnable: runnable(p, opts),
        })),
        pass_through: s.pass_through ? { policy: passThroughPolicy(pack).policy, ...s.pass_through } : null,
      };
    }),
  };
}

/** Where a pack's credentials come from, in words. */
function credentialsOf(p: PackListing): string {
  const family = JSON.stringify(p.binding_family ?? "");
  if (p.binding_hub === "local-credential") return `credentials from the credential file, family ${family}`;
  if (p.binding_hub === "keyring") return `credentials from the system keyring, service hcp:${p.binding_family ?? ""}`;
  return "no credentials";
}

/** The policy column: `read`, `write`, `deny`, with who confirms a run, in HARNESS.md's words. */
function policyWords(v: VerbListing): string {
  return policyMarks(v.policy, v.confirm).join(", ");
}

export function renderList(listing: { packs: PackListing[] }): string {
  const out: string[] = [];
  for (const p of listing.packs) {
    const binding = p.binding_mode === null ? "" : `, binding mode ${p.binding_mode}`;
    out.push(`${p.pack_id}  ${p.root}`, `  ${p.kind} pack, ${p.plane} plane; ${credentialsOf(p)}${binding}; served over ${p.transports.join(", ")}`);
    const width = Math.max(0, ...p.verbs.map((v) => v.verb.length));
    const policyWidth = Math.max(0, ...p.verbs.map((v) => policyWords(v).length));
    for (const v of p.verbs) {
      const note = v.policy === "deny" ? "  [denied: never runs]" : v.runnable ? "" : "  [refused without --allow-write]";
      out.push(`  ${v.verb.padEnd(width)}  ${policyWords(v).padEnd(policyWidth)}  ${v.description ?? ""}${note}`.trimEnd());
    }
    if (p.pass_through) out.push(`  -- ${p.pass_through.allowedSubcommands.join("|")} (pass-through, ${p.pass_through.policy}, at most ${p.pass_through.maxArgv} arguments)`);
  }
  // Each line is one line, whatever a pack's writer put in a description or a folder's name (hcp describe alike).
  return out.map(escapeForPerson).join("\n") + "\n";
}
