// Some APIs change things by GET (AWS's Query APIs: GET_TerminateInstances; etherpad: deletePadUsingGET; Slack:
// auth.revoke; the petstore: logoutUser; a path where there is no operationId: /pads/{padID}/delete). A pack hcp init
// makes of such a document must not give the agent those as reads: spawns the built hcp against a loopback API that
// records every request it receives.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { hcp, mcpClient, tempDir } from "../transports/support.js";
import { trustPack } from "./helpers.js";
import { isolatedEnv } from "./openapi-support.js";

const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };
const padID = [{ name: "padID", in: "query", required: true, schema: { type: "string" } }];
const padInPath = [{ name: "padID", in: "path", required: true, schema: { type: "string" } }];

test("attack: GET operations named for a change, by their operationIds (GET_TerminateInstances, deletePadUsingGET, auth_revoke, logoutUser, apps_uninstall, workflows_updateStep, views_open) or, without one, by their paths (/pads/{padID}/delete, /jobs/{name}:cancel), are writes in the pack hcp init makes, the deletions a person approves: a server without --allow-write refuses them and the API receives nothing; a GET named for a read still reads", async () => {
  const asked: string[] = [];
  const api = createServer((req, res) => {
    asked.push(req.url ?? "");
    res.setHeader("content-type", "application/json");
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  try {
    const dir = tempDir("hcp-get-writes-");
    const doc = join(dir, "api.json");
    writeFileSync(
      doc,
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "pads", version: "1" },
        servers: [{ url: `http://127.0.0.1:${(api.address() as AddressInfo).port}` }],
        paths: {
          "/pads/{padID}/delete": { get: { parameters: padInPath, responses: ok } },
          "/jobs/{name}:cancel": { get: { parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }], responses: ok } },
          "/terminate": { get: { operationId: "GET_TerminateInstances", parameters: [{ name: "InstanceId", in: "query", schema: { type: "string" } }], responses: ok } },
          "/deletePad": { get: { operationId: "deletePadUsingGET", parameters: padID, responses: ok } },
          "/auth.revoke": { get: { operationId: "auth_revoke", responses: ok } },
          "/user/logout": { get: { operationId: "logoutUser", responses: ok } },
          // Slack's: an action not in the first list, a snake_case id's camelCase last part, a verb that is often a noun.
          "/apps.uninstall": { get: { operationId: "apps_uninstall", responses: ok } },
          "/workflows.updateStep": { get: { operationId: "workflows_updateStep", responses: ok } },
          "/views.open": { get: { operationId: "views_open", responses: ok } },
          "/getText": { get: { operationId: "getTextUsingGET", parameters: padID, responses: ok } },
          "/pads/{padID}/text": { get: { parameters: padInPath, responses: ok } },
        },
      }),
    );
    const env = isolatedEnv();
    const out = join(dir, "pads");
    const init = await hcp(["init", "--from-openapi", doc, "--out", out], { env });
    assert.equal(init.code, 0, init.stderr);
    assert.ok(
      init.stderr.includes(
        `note: 9 operations are writes by their paths or their operationIds, though their method reads (GET /pads/{padID}/delete, GET /jobs/{name}:cancel, "GET_TerminateInstances" and 6 more): an operation named for a change is taken at its word, and one named for a deletion needs a person's approval, as DELETE does; make one a read in policy.json if it only reads\n`,
      ),
      init.stderr,
    );
    const policy = JSON.parse(readFileSync(join(out, "policy.json"), "utf8")) as { verbs: Record<string, unknown> };
    const keys = Object.keys(policy.verbs);
    const key = (id: RegExp) => keys.find((k) => id.test(k))!;
    assert.equal(policy.verbs[key(/terminate/)], "write");
    assert.deepEqual(policy.verbs[key(/^delete-pad/)], { policy: "write", confirm: true });
    assert.deepEqual(policy.verbs[key(/^get\.pads\.padid\.delete$/)], { policy: "write", confirm: true });
    assert.equal(policy.verbs[key(/revoke/)], "write");
    assert.equal(policy.verbs[key(/logout/)], "write");
    assert.equal(policy.verbs[key(/cancel/)], "write");
    for (const slack of [/uninstall/, /update-step/, /views.open/]) assert.equal(policy.verbs[key(slack)], "write", String(slack));
    assert.equal(policy.verbs[key(/get-text/)], "read");
    assert.equal(policy.verbs[key(/^get\.pads\.padid\.text$/)], "read");

    await trustPack(out, env);
    const { client } = await mcpClient([out], { env });
    try {
      const { tools } = await client.listTools();
      const tool = (id: RegExp) => tools.find((t) => id.test(t.name))!.name;
      for (const [name, args] of [
        [tool(/terminate/), { InstanceId: "i-0123" }],
        [tool(/delete-pad/), { padID: "minutes" }],
        [tool(/revoke/), {}],
        [tool(/logout/), {}],
        [tool(/pads.padid.delete/), { padID: "minutes" }],
        [tool(/cancel/), { name: "nightly" }],
        [tool(/uninstall/), {}],
        [tool(/update-step/), {}],
        [tool(/views_open/), {}],
      ] as const) {
        const r = await client.callTool({ name, arguments: args });
        assert.equal(r.isError, true, `${name}: ${JSON.stringify(r.content)}`);
        assert.match(JSON.stringify(r.content), /write/);
      }
      assert.deepEqual(asked, [], "the API received nothing");
      for (const name of [tool(/get-text/), tool(/pads.padid.text/)]) {
        const read = await client.callTool({ name, arguments: { padID: "minutes" } });
        assert.notEqual(read.isError, true, JSON.stringify(read.content));
      }
    } finally {
      await client.close();
    }
    // Writes allowed, the deletions still wait for a person.
    for (const verb of [key(/^delete-pad/), key(/^get\.pads\.padid\.delete$/)]) {
      const deleted = await hcp(["run", out, verb, "--arg", "padID=minutes", "--allow-write", "--no-prompt"], { env });
      assert.equal(deleted.code, 4, deleted.stderr);
      assert.match(deleted.stderr, /needs a person's approval/);
    }
    assert.deepEqual(asked, ["/getText?padID=minutes", "/pads/minutes/text"]);
  } finally {
    api.close();
  }
});

test("attack: an operation that carries other requests in its body (Asana's POST /batch, Graph's POST /$batch, a /bulk) needs a person's approval in the pack hcp init makes, as a DELETE does: with writes allowed, a batch holding a deletion does not reach the API without the person; other writes run", async () => {
  const asked: string[] = [];
  const api = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.setHeader("content-type", "application/json");
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  try {
    const dir = tempDir("hcp-batch-");
    const doc = join(dir, "api.json");
    const body = { required: true, content: { "application/json": { schema: { type: "object" } } } };
    writeFileSync(doc, JSON.stringify({
      openapi: "3.0.3",
      info: { title: "tasks", version: "1" },
      servers: [{ url: `http://127.0.0.1:${(api.address() as AddressInfo).port}/api` }],
      paths: {
        "/batch": { post: { operationId: "createBatchRequest", requestBody: body, responses: ok } },
        "/$batch": { post: { operationId: "graphBatch", requestBody: body, responses: ok } },
        "/tasks": { post: { operationId: "createTask", requestBody: body, responses: ok } },
        // Elasticsearch's, Google's custom methods, Salesforce's, OpenAI's, and by name.
        "/{index}/_bulk": { post: { operationId: "bulk", parameters: [{ name: "index", in: "path", required: true, schema: { type: "string" } }], requestBody: body, responses: ok } },
        "/v4/spreadsheets/{spreadsheetId}:batchUpdate": { post: { operationId: "sheetsBatchUpdate", parameters: [{ name: "spreadsheetId", in: "path", required: true, schema: { type: "string" } }], requestBody: body, responses: ok } },
        "/v1/{database}/documents:batchWrite": { post: { operationId: "firestoreBatchWrite", parameters: [{ name: "database", in: "path", required: true, schema: { type: "string" } }], requestBody: body, responses: ok } },
        "/services/data/v58.0/composite": { post: { operationId: "composite", requestBody: body, responses: ok } },
        "/v1/batches": { post: { operationId: "createBatch", requestBody: body, responses: ok } },
        "/tasks/bulk_delete": { post: { operationId: "bulkDelete", requestBody: body, responses: ok } },
        "/v4/spreadsheets/{spreadsheetId}/values:batchGet": { post: { operationId: "valuesBatchGet", parameters: [{ name: "spreadsheetId", in: "path", required: true, schema: { type: "string" } }], requestBody: body, responses: ok } },
      },
    }));
    const env = isolatedEnv();
    const out = join(dir, "tasks");
    const init = await hcp(["init", "--from-openapi", doc, "--out", out], { env });
    assert.equal(init.code, 0, init.stderr);
    assert.match(init.stderr, /note: 8 verbs send other requests in their body \(a batch: "create-batch-request", "graph-batch", "bulk", "sheets-batch-update", "firestore-batch-write" and 3 more\), deletions among them as the agent writes: each needs a person's approval, as a DELETE does\n/);
    const policy = JSON.parse(readFileSync(join(out, "policy.json"), "utf8")) as { verbs: Record<string, unknown> };
    for (const verb of ["bulk", "sheets-batch-update", "firestore-batch-write", "composite", "create-batch", "bulk-delete"]) assert.deepEqual(policy.verbs[verb], { policy: "write", confirm: true }, verb);
    assert.equal(policy.verbs["values-batch-get"], "write", "a batch of reads by POST is a plain write");
    await trustPack(out, env);
    const batch = { actions: [{ method: "delete", relative_path: "/tasks/1001" }] };
    for (const verb of ["create-batch-request", "graph-batch"]) {
      const r = await hcp(["run", out, verb, "--args", JSON.stringify({ body: batch }), "--allow-write", "--no-prompt"], { env });
      assert.equal(r.code, 4, r.stderr);
      assert.match(r.stderr, /needs a person's approval/);
    }
    assert.deepEqual(asked, [], "no batch reached the API");
    const made = await hcp(["run", out, "create-task", "--args", JSON.stringify({ body: { name: "t" } }), "--allow-write", "--no-prompt"], { env });
    assert.equal(made.code, 0, made.stderr);
    assert.deepEqual(asked, ["POST /api/tasks"]);
  } finally {
    api.close();
  }
});
