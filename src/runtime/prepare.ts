// The prepared plan of a command (§7): the exact plan, the child's whole environment, and the plan as shown
// (secrets masked), made only when first read.

import type { LoadedPack } from "../pack/types.js";
import { lazySecretDigests } from "./approval/secret-digest.js";
import type { PlanOptions } from "./call.js";
import type { CallSecrets, CredentialLoad } from "./secrets/call-secrets.js";
import { planPolicy, workingFolder, type Command } from "./command.js";
import { requestCredentials } from "./secrets/credentials.js";
import { childEnv } from "./env.js";
import { withSearchedPath } from "./search-path.js";
import { isRequestPlan, packStamp, programPlan, sha256Hex, stamped, type AnyPlan, type Plan, type RequestPlan } from "./plan.js";
import { redact, redactEnvelope, type Layout, type SecretSet } from "./secrets/redact.js";
import { isSecretName } from "./secrets/secret-name.js";
import { usableSurface } from "./verb-lookup.js";

const hashed = (value: string) => `sha256:${sha256Hex(value)}`;

/** A plan made: the exact plan, the one shown (secrets masked; made when first read), and the child's whole environment. */
export interface Prepared {
  plan: AnyPlan;
  readonly shown: AnyPlan;
  /** What the audit log records of the plan: its argv (or method and URL) as shown. */
  readonly logged: string[];
  childEnv: Record<string, string>;
  ttlSeconds: number;
  secrets: SecretSet;
  load: CredentialLoad;
}

/**
 * The complete plan of a command (§7): its stdin digest, the variables the child gets from policy
 * `env`, `agent_env` and the binding (secrets by their keyed digest), its working directory, and the pack
 * files it was made from.
 */
export function prepare(pack: LoadedPack, cmd: Command, opts: PlanOptions, load: CredentialLoad, { secrets, shownSecrets }: CallSecrets, stateDir: string): Prepared {
  const surface = usableSurface(pack);
  // Secrets are named by a digest keyed with the user's key (never their plain SHA-256: the agent sees plans).
  const digestOf = lazySecretDigests(stateDir);
  const ttlSeconds = cmd.policy.approval_ttl_s;
  if ("request" in cmd) {
    // The credentials the request will carry, by their keyed digest: another credential is another plan.
    const given = load.ok ? requestCredentials(load.credentials) : {};
    const credentials: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) digestOf(credentials, name, value);
    // stamped() keeps the stamp's getters: a read that shows no plan never hashes the pack files.
    const plan: RequestPlan = stamped({ ...cmd.request }, packStamp(pack));
    if (Object.keys(credentials).length > 0) plan.credentials = credentials;
    const view = cmd.shownRequest && { method: cmd.shownRequest.method, url: cmd.shownRequest.url, headers: cmd.shownRequest.headers, body: cmd.shownRequest.body };
    return shownWhenRead({ plan, childEnv: {}, ttlSeconds, secrets, load }, shownSecrets, view);
  }
  const credentials = load.ok ? load.credentials.env : {};
  const cwd = workingFolder(pack, opts.cwd);
  const env = childEnv({
    parent: opts.env ?? process.env,
    policyEnv: pack.policy?.env,
    agentEnv: surface.wrap?.agent_env,
    packId: surface.id,
    verb: cmd.verb ?? undefined,
    // The loader has already given a control-plane binding its default mode (mothership).
    bindingMode: surface.binding?.mode,
    bindingFamily: surface.binding?.family,
    credentials,
  });
  // The program's own lookups (`#!/usr/bin/env node`) never search the folder it runs in: search-path.ts.
  withSearchedPath(env, [cwd]);
  const planned = new Set([...(pack.policy?.env ?? []), ...Object.keys(surface.wrap?.agent_env ?? {}), ...Object.keys(credentials)]);
  const planEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!planned.has(name) && !name.startsWith("HCP_")) continue;
    const secret = Object.hasOwn(credentials, name) || ((pack.policy?.env ?? []).includes(name) && isSecretName(name));
    if (secret) digestOf(planEnv, name, value);
    else planEnv[name] = value;
  }
  const plan: Plan = programPlan(
    {
      pack: cmd.pack,
      verb: cmd.verb,
      argv: cmd.argv,
      policy: planPolicy(cmd.policy),
      stdin: opts.stdin === undefined ? null : hashed(opts.stdin),
      env: planEnv,
      cwd,
    },
    pack,
  );
  return shownWhenRead({ plan, childEnv: env, ttlSeconds, secrets, load }, shownSecrets, cmd.shownArgv && { argv: cmd.shownArgv });
}

/** A plan's field names and its policy's are hcp's; argv, env (names too), headers, body and credentials are foreign. */
const PLAN_LAYOUT: Layout = { policy: {} };

/**
 * The prepared plan with `shown` made when first read: a plain read shows, stores and logs no plan. With `view` (what
 * the command runs with its secret arguments as `***`), the plan shown and logged has those fields, masked with the
 * call's other secrets (`shownSecrets`); without, the plan as it runs, masked with every secret.
 */
function shownWhenRead(prepared: Omit<Prepared, "shown" | "logged">, shownSecrets: SecretSet, view?: Partial<AnyPlan>): Prepared {
  const { plan, secrets } = prepared;
  let shown: AnyPlan | undefined;
  return {
    ...prepared,
    get shown() {
      if (shown !== undefined) return shown;
      if (view === undefined) return (shown = redactEnvelope(plan, secrets, PLAN_LAYOUT) as AnyPlan);
      // The stamp's getters read as they are (a copy of the plan's descriptors), the view's fields over them.
      const seen = Object.defineProperties({}, Object.getOwnPropertyDescriptors(plan)) as AnyPlan;
      for (const [k, v] of Object.entries(view)) if (v !== undefined) Object.assign(seen, { [k]: v });
      return (shown = redactEnvelope(seen, shownSecrets, PLAN_LAYOUT) as AnyPlan);
    },
    get logged() {
      // The fields read one by one: the plan's others are getters (pack digests, keyed secret digests) a log needs not.
      const of = (view ?? plan) as Partial<Plan & RequestPlan>;
      return redact(isRequestPlan(plan) ? [of.method, of.url] : of.argv, view === undefined ? secrets : shownSecrets) as string[];
    },
  };
}
