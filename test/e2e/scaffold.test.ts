// End to end: `rungrad new --product-profile --skill` into a temp folder, installed against this checkout, built, tested and run.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stableJSON } from "../../src/json/stable.js";
import { generate } from "../../src/scaffold/index.js";
import { example, SKILL_TEST_OPTIONS } from "../scaffold/support.js";
import { tempDir } from "../temp.js";
import { isolatedEnv } from "./hardening.js";
import { REPO, run, rungrad } from "./helpers.js";

const NPM = process.platform === "win32" ? "npm.cmd" : "npm";
/** The generated project's own `node --test` must report normally, not to this runner. */
const { NODE_TEST_CONTEXT: _runner, ...ENV } = process.env;

test("a scaffolded product CLI installs against this checkout, builds, passes its tests and serves the scaffold-time manifest", { timeout: 180_000 }, async () => {
  const dir = tempDir("rungrad-e2e-");
  const o = SKILL_TEST_OPTIONS;
  const flags = [
    "--product-profile", "--skill", "--env-prefix", o.envPrefix!, "--product-name", o.productName!, "--description", o.description!,
    ...o.services!.flatMap((s) => ["--service", s]), "--metadata-namespace", o.metadataNamespace!, "--surface", o.surface!,
    "--release-owner", o.releaseOwner!, "--release-repo", o.releaseRepo!, "--docs-label", o.docsLabel!, ...o.examples!.flatMap((e) => ["--example", e]),
  ];
  const created = await rungrad(["new", o.name, "--dir", dir, "--rungrad-dependency", `file:${REPO}`, ...flags]);
  assert.equal(created.code, 0, created.stderr);
  const root = join(dir, o.name);
  assert.equal(created.stdout, `Created ${root}\n`);

  const step = async (file: string, args: string[]) => {
    const r = await run(file, args, { cwd: root, env: ENV });
    assert.equal(r.code, 0, `${args.join(" ")}\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  await step(NPM, ["install", "--no-audit", "--no-fund", "--prefer-offline"]);
  await step(NPM, ["run", "build"]);
  const tests = await step(NPM, ["test"]);
  assert.match(tests.stdout, /# fail 0/);
  assert.doesNotMatch(tests.stdout, /# pass 0\b/);

  const cli = (...args: string[]) => run(process.execPath, ["dist/src/main.js", ...args], { cwd: root });
  const list = await cli("widget", "list", "--json");
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stdout, stableJSON([{ id: "1", name: "alpha" }, { id: "2", name: "beta" }]));
  const create = await cli("widget", "create", "x", "--dry-run");
  assert.equal(create.code, 0, create.stderr);
  assert.equal(create.stdout, "DRY RUN: would POST https://api.example.invalid/widgets\n  body:\n    name = x\n    token = ***\n  no changes were made\n");
  // The build leaves the entry point executable: it runs as a program, as `rungrad score` needs.
  const direct = await run(join(root, "dist/src/main.js"), ["widget", "list", "--json"], { cwd: root });
  assert.equal(direct.stdout, list.stdout);
  const refused = await cli("widget", "delete", "x", "--no-prompt");
  assert.equal(refused.code, 1);
  assert.equal(refused.stdout, "");
  assert.equal(refused.stderr, "Error: destructive action requires --confirm\n");

  const endpoint = await cli("__rungrad_manifest");
  assert.equal(endpoint.code, 0, endpoint.stderr);
  const scaffoldTime = generate({ ...o, rungradDependency: `file:${REPO}` }).manifest;
  assert.equal(endpoint.stdout, stableJSON(scaffoldTime));
  const fixture = example("scaffold_product_manifest.json").cases.find((c: { name: string }) => c.name === "acmectl_skill_test_options");
  assert.equal(endpoint.stdout, stableJSON(fixture.manifest));
  const skill = await readFile(join(root, ".agents", "skills", o.name, "SKILL.md"), "utf8");
  assert.equal(skill, generate(o).files.find((f) => f.path.endsWith("SKILL.md"))!.content);
});

test("a scaffolded compact CLI, made without any flag, depends on this checkout, says so, installs and passes its own tests", { timeout: 180_000 }, async () => {
  const dir = tempDir("rungrad-e2e-");
  const created = await rungrad(["new", "my-tool"], { cwd: dir });
  assert.equal(created.code, 0, created.stderr);
  const root = join(dir, "my-tool");
  assert.equal(created.stdout, "Created my-tool\n", "Go's bytes: the path as given (--dir defaults to .)");
  const checkout = REPO.replace(/\/$/, "");
  assert.match(created.stderr, new RegExp(`^rungrad dependency: file:${checkout} \\(this rungrad is not installed from a registry`));
  const packStep = "npx hcp init --from-exe ./dist/src/main.js --out ../my-tool-pack";
  for (const step of ["cd my-tool", "npm install", "npm run build", "npm test", "node dist/src/main.js widget list", "npx rungrad score ./dist/src/main.js", packStep]) {
    assert.ok(created.stderr.includes(`\n  ${step}`), `next steps name: ${step}\n${created.stderr}`);
  }
  // `npm test` alone (no build first) tests a fresh build: a failing test left in dist/ by a deleted source is gone.
  await mkdir(join(root, "dist", "test"), { recursive: true });
  await writeFile(join(root, "dist", "test", "stale.test.js"), "process.exit(1);\n");
  for (const args of [["install", "--no-audit", "--no-fund", "--prefer-offline"], ["test"]]) {
    const r = await run(NPM, args, { cwd: root, env: ENV });
    assert.equal(r.code, 0, `${args.join(" ")}\n${r.stdout}\n${r.stderr}`);
  }
  const endpoint = await run(process.execPath, ["dist/src/main.js", "__rungrad_manifest"], { cwd: root });
  assert.equal(endpoint.stdout, stableJSON(generate({ name: "my-tool" }).manifest));
  // The last next step, run as written: the project's own hcp makes a pack of the CLI, its delete gated.
  const [npx, ...packArgs] = packStep.split(" ");
  const pack = await run(npx!, packArgs, { cwd: root, env: isolatedEnv() });
  assert.equal(pack.code, 0, pack.stderr);
  const policy = JSON.parse(await readFile(join(dir, "my-tool-pack", "policy.json"), "utf8")) as { verbs: Record<string, unknown> };
  assert.deepEqual(policy.verbs["widget.delete"], { policy: "write", confirm: true });
  assert.equal(policy.verbs["widget.list"], "read");
  const json = await rungrad(["new", "other", "--json", "--dir", dir]);
  assert.equal(json.stderr, "", "--json keeps stderr for errors");
  const create = await run(process.execPath, ["dist/src/main.js", "widget", "create", "x", "--dry-run", "--json"], { cwd: root });
  assert.equal(create.stdout, stableJSON({ dry_run: true, method: "POST", path: "/widgets", body: { name: "x", token: "***" } }));
});
