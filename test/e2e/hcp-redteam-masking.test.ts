// Red team, masking against the person: a value an argument's schema marks secret (`writeOnly`, `format: password`) is
// the agent's to choose. Masked wherever it appears, it would hide any other part of a plan from the person asked to
// approve it, and from the audit log: a password chosen equal to the recipient shows the recipient as `***`. A person
// must see every value the agent chose but the secret ones, each in its own place.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { execSession } from "../transports/support.js";
import { bank, planIdOf } from "./approvals-support.js";
import { isolatedEnv, openapiPack } from "./openapi-support.js";

const SEND_ARGS = {
  type: "object",
  properties: { to: { type: "string" }, amount: { type: "string" }, otp: { type: "string", writeOnly: true } },
  required: ["to", "amount", "otp"],
  additionalProperties: false,
};

/** The bank pack with one confirm-gated verb taking a one-time password the agent gives. */
function sendBank() {
  const b = bank();
  const surface = JSON.parse(readFileSync(join(b.root, "surface.json"), "utf8")) as { wrap: { bin: string } };
  const verbs = { send: { description: "Send money.", cli: ["witness", "send", "--to", "{{to}}", "--amount", "{{amount}}", "--otp", "{{otp}}"], args: SEND_ARGS, policy: "write" } };
  writeFileSync(join(b.root, "surface.json"), JSON.stringify({ id: "bank", kind: "wrap", binding: { mode: "local", hub: "none" }, wrap: surface.wrap, verbs }));
  writeFileSync(join(b.root, "policy.json"), JSON.stringify({ surface_id: "bank", verbs: { send: { policy: "write", confirm: true } }, env: ["WITNESS", "HCP_AUDIT"] }));
  return b;
}

const send = (root: string, args: object) => ["run", root, "send", "--args", JSON.stringify(args), "--allow-write"];

test("a password the agent chooses equal to another argument hides nothing from the person: hcp approve, elicitation and the audit log show the recipient and the amount, the password as ***", async () => {
  const b = sendBank();
  // The agent's one-time password is the recipient: masked everywhere, the person would read `--to ***`.
  const id = planIdOf(await b.hcp([...send(b.root, { to: "mallory", amount: "1000000", otp: "mallory" }), "--dry-run", "--json"]));
  const shown = await b.approve(id, "n");
  assert.equal(shown.code, 0, shown.stdout);
  assert.match(shown.stdout, /"--to", "mallory", "--amount", "1000000", "--otp", "\*\*\*"/, shown.stdout);
  const listed = await b.hcp(["approve", "--list", "--json"]);
  assert.match(listed.stdout, /"--to",\s*"mallory"/, listed.stdout);

  // Elicitation: the password equal to the amount.
  const asked: string[] = [];
  const { client } = await b.mcp({ allowWrite: true, elicit: (m) => (asked.push(m), { action: "decline" }) });
  try {
    await client.callTool({ name: "bank_send", arguments: { to: "alice", amount: "1000000", otp: "1000000" } });
    // A password of its own is still never shown.
    await client.callTool({ name: "bank_send", arguments: { to: "alice", amount: "5", otp: "otp-7731-secret" } });
  } finally {
    await client.close();
  }
  assert.equal(asked.length, 2);
  assert.match(asked[0]!, /"--amount", "1000000", "--otp", "\*\*\*"/, asked[0]);
  assert.ok(!asked[1]!.includes("otp-7731-secret"), asked[1]);

  // The audit log a person reads later: what the agent sent, its password masked in its place.
  const logged = readFileSync(b.audit, "utf8");
  assert.match(logged, /"--to","mallory","--amount","1000000","--otp","\*\*\*"/, logged);
  assert.match(logged, /"--to","alice","--amount","1000000","--otp","\*\*\*"/, logged);
  assert.ok(!logged.includes("otp-7731-secret"), logged);
  assert.deepEqual(b.runs(), [], "nothing ran");
});

test("an API's password field chosen equal to the user name hides nothing from the person: the request body shown keeps the user name, the password as ***", async () => {
  const doc = {
    openapi: "3.0.3",
    info: { title: "Users", version: "1" },
    servers: [{ url: "https://users.example/v1" }],
    paths: {
      "/users": {
        post: {
          operationId: "user.create",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { type: "object", properties: { username: { type: "string" }, password: { type: "string", format: "password" } }, required: ["username", "password"] },
              },
            },
          },
          responses: { "201": { description: "Made." } },
        },
      },
    },
  };
  const dir = openapiPack({ ref: { path: "users.json" }, binding: { mode: "mock", hub: "none" }, verbs: { "user.create": { description: "Make a user." } }, policy: { verbs: { "user.create": { policy: "write", confirm: true } } } });
  writeFileSync(join(dir, "users.json"), JSON.stringify(doc));
  const env = isolatedEnv();
  const s = await execSession(
    [dir],
    [
      JSON.stringify({ id: "same", pack: "notes", verb: "user.create", args: { body: { username: "root-admin", password: "root-admin" } }, dry_run: true }),
      JSON.stringify({ id: "own", pack: "notes", verb: "user.create", args: { body: { username: "bob", password: "hunter2-long-secret" } }, dry_run: true }),
    ],
    ["--allow-write"],
    { env },
  );
  const byId = (id: string) => s.responses.find((r) => r.id === id) as { ok: boolean; result?: { plan: { body: unknown } } } | undefined;
  assert.deepEqual(byId("same")?.result?.plan.body, { username: "root-admin", password: "***" }, JSON.stringify(s.responses));
  assert.deepEqual(byId("own")?.result?.plan.body, { username: "bob", password: "***" });
  const approve = readFileSync(env["HCP_AUDIT"]!, "utf8");
  assert.ok(!approve.includes("hunter2-long-secret"), approve);
});
