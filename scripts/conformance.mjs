// `npm run conformance` (after `npm ci && npm run build`): the official MCP conformance suite's server scenarios
// against the built `hcp serve --mcp --http 127.0.0.1:0` on a fixture pack, as a pass/fail table with the reason
// for every scenario hcp does not pass. The suite needs Node 22 or newer while the project stays on Node 20, so the
// suite and a Node 22 binary (npm's node-linux-* packages) are installed at the versions that
// scripts/conformance/package-lock.json pins, into a cache folder outside the repository (first run only; it needs
// the npm registry). Not part of `npm test`.
//
//   npm run conformance -- [--mode stateless|stateful|both] [--markdown] [--scenario NAME] [--suite active|all|pending]
//
// Both modes unless --mode says otherwise; --markdown prints the table as docs/mcp.md shows it. Exits 0 when every
// scenario passes or fails for its known reason (KNOWN below), 1 when one fails for another reason or a known one
// passes now (then take it out of KNOWN and the docs), 2 when it cannot run.
// Environment: HCP_CONFORMANCE_CACHE (default $XDG_CACHE_HOME/hcp-conformance, else ~/.cache/hcp-conformance);
// CONFORMANCE_NODE, a Node 22+ to use where npm has no Node binary for this platform.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const TOOLS = join(ROOT, "scripts/conformance");
const HCP = join(ROOT, "dist/bin/hcp.cjs");
const PACK = join(ROOT, "test/fixtures/packs/hcp-probe");
/** The whole suite takes seconds; this only stops a hung run. */
const SUITE_TIMEOUT_MS = 10 * 60_000;

const FIXTURE = "needs the reference server's";
/**
 * Why each scenario that hcp does not pass fails. Most call a tool, resource or prompt of the suite's reference
 * ("everything") server by name; hcp serves its packs' verbs and HARNESS.md files, and is not given fake ones.
 */
const KNOWN = {
  "completion-complete": "hcp declares no `completions` capability (its prompts take no arguments, it has no resource templates), so it answers -32601 Method not found; the scenario completes an argument of the reference prompt `test_prompt_with_arguments`",
  "tools-call-simple-text": `${FIXTURE} tool \`test_simple_text\`; every hcp call returns a text block`,
  "tools-call-image": `${FIXTURE} tool \`test_image_content\`; hcp results are text plus structuredContent, never images`,
  "tools-call-audio": `${FIXTURE} tool \`test_audio_content\`; hcp results are never audio`,
  "tools-call-embedded-resource": `${FIXTURE} tool \`test_embedded_resource\`; hcp results embed no resources`,
  "tools-call-mixed-content": `${FIXTURE} tool \`test_multiple_content_types\`; hcp results are one text block`,
  "tools-call-with-logging": `${FIXTURE} tool \`test_tool_with_logging\`; hcp logs warnings (a skipped pack, dropped output), not every call`,
  "tools-call-error": `${FIXTURE} tool \`test_error_handling\`; a failed hcp verb is an \`isError\` result`,
  "tools-call-with-progress": `${FIXTURE} tool \`test_tool_with_progress\`; hcp sends progress for a call with a progressToken, once a second`,
  "tools-call-sampling": `${FIXTURE} tool \`test_sampling\`; hcp never asks the client's model (no sampling)`,
  "tools-call-elicitation": `${FIXTURE} tool \`test_elicitation\`; hcp elicits only a person's approval of a confirm-gated verb`,
  "elicitation-sep1034-defaults": `${FIXTURE} tool \`test_elicitation_sep1034_defaults\`; hcp's approval form has no fields with defaults`,
  "elicitation-sep1330-enums": `${FIXTURE} tool \`test_elicitation_sep1330_enums\`; hcp's approval form has no enum fields`,
  "json-schema-2020-12": `${FIXTURE} tool \`json_schema_2020_12_tool\``,
  "resources-read-text": `${FIXTURE} resource \`test://static-text\`; hcp's resources are \`hcp://<pack>/HARNESS.md\``,
  "resources-read-binary": `${FIXTURE} resource \`test://static-binary\`; hcp has no binary resources`,
  "resources-templates-read": `${FIXTURE} resource \`test://template/123/data\`; hcp has no resource templates`,
  "resources-subscribe": "hcp does not declare resource subscriptions (a pack's HARNESS.md does not change while it is served), so it answers -32601 Method not found",
  "resources-unsubscribe": "as resources-subscribe: no subscriptions, -32601 Method not found",
  "prompts-get-simple": `${FIXTURE} prompt \`test_simple_prompt\`; hcp's prompts are named after its packs`,
  "prompts-get-with-args": `${FIXTURE} prompt \`test_prompt_with_arguments\`; hcp's prompts take no arguments`,
  "prompts-get-embedded-resource": `${FIXTURE} prompt \`test_prompt_with_embedded_resource\`; hcp's prompts are text`,
  "prompts-get-with-image": `${FIXTURE} prompt \`test_prompt_with_image\`; hcp's prompts are text`,
};

function fail(message) {
  process.stderr.write(`conformance: ${message}\n`);
  process.exit(2);
}

const MODES = { stateless: [], stateful: ["--stateful"] };

function parseArgs(argv) {
  const opts = { modes: Object.keys(MODES), markdown: false, suite: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--mode" && ["stateless", "stateful", "both"].includes(argv[i + 1])) {
      const mode = argv[++i];
      opts.modes = mode === "both" ? Object.keys(MODES) : [mode];
    } else if (a === "--markdown") opts.markdown = true;
    else if ((a === "--scenario" || a === "--suite") && argv[i + 1] !== undefined) opts.suite.push(a, argv[++i]);
    else fail(`unknown argument ${JSON.stringify(a)} (use --mode stateless|stateful|both, --markdown, --scenario NAME, --suite active|all|pending)`);
  }
  return opts;
}

function cacheDir() {
  if (process.env.HCP_CONFORMANCE_CACHE) return process.env.HCP_CONFORMANCE_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "hcp-conformance");
}

/** Installs what the lock file pins into the cache folder, unless the same lock file is installed there already. */
function install(cache) {
  const lock = readFileSync(join(TOOLS, "package-lock.json"), "utf8");
  const stamp = join(cache, "installed-lock.json");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === lock) return;
  mkdirSync(cache, { recursive: true });
  rmSync(stamp, { force: true });
  for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(TOOLS, f), join(cache, f));
  process.stderr.write(`conformance: installing the suite and Node 22 into ${cache}\n`);
  // npm_execpath is npm's own script when this runs under `npm run`; otherwise the npm on PATH.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
  const args = ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"];
  const r = spawnSync(npm[0], [...npm.slice(1), ...args], { cwd: cache, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) fail(`npm ci in ${cache} failed (${r.error?.message ?? `exit ${r.status}`}); it needs the npm registry`);
  writeFileSync(stamp, lock);
}

/** A Node 22 or newer: CONFORMANCE_NODE, else the pinned npm binary for this platform, else this Node if new enough. */
function node22(cache) {
  if (process.env.CONFORMANCE_NODE) return process.env.CONFORMANCE_NODE;
  const pinned = join(cache, "node_modules", `node-${process.platform}-${process.arch}`, "bin/node");
  if (existsSync(pinned)) return pinned;
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  return fail(`npm has no Node 22 binary for ${process.platform}-${process.arch}: set CONFORMANCE_NODE to a Node 22 or newer`);
}

const versionOf = (file) => JSON.parse(readFileSync(file, "utf8")).version;

/** `hcp serve --mcp --http 127.0.0.1:0` on the fixture pack, with its state in a temporary folder; resolves its URL. */
async function serve(mode) {
  const home = mkdtempSync(join(tmpdir(), "hcp-conformance-"));
  const env = { ...process.env, HOME: home, XDG_STATE_HOME: home, XDG_CONFIG_HOME: home, HCP_CREDENTIALS: join(home, "credentials.json"), HCP_AUDIT: join(home, "audit") };
  const args = [HCP, "serve", "--mcp", PACK, "--http", "127.0.0.1:0", ...MODES[mode]];
  const child = spawn(process.execPath, args, { cwd: home, env, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal)));
  let stderr = "";
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(home, { recursive: true, force: true });
  };
  const listening = new Promise((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`hcp printed no URL in 60 s: ${stderr}`)), 60_000);
    child.stderr.setEncoding("utf8").on("data", (c) => {
      stderr += c;
      const m = /serving MCP over HTTP at (http:\/\/\S+)/.exec(stderr);
      if (m) {
        clearTimeout(guard);
        resolve(m[1]);
      }
    });
    void exited.then((how) => {
      clearTimeout(guard);
      reject(new Error(`hcp exited (${how}) before listening: ${stderr.trim()}`));
    });
  });
  try {
    return { url: await listening, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Runs the suite's server scenarios; the results folder holds one `server-<scenario>-<time>/checks.json` each. */
async function runSuite(node, cache, url, out, extra) {
  const bin = join(cache, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
  const child = spawn(node, [bin, "server", "--url", url, "-o", out, ...extra], { cwd: out, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.setEncoding("utf8").on("data", (c) => (log += c));
  child.stderr.setEncoding("utf8").on("data", (c) => (log += c));
  const guard = setTimeout(() => child.kill("SIGKILL"), SUITE_TIMEOUT_MS);
  const code = await new Promise((resolve) => child.on("exit", (c) => resolve(c)));
  clearTimeout(guard);
  writeFileSync(join(out, "suite.log"), log);
  return code;
}

/** Each scenario's verdict from its checks: fail (a FAILURE), pass (a SUCCESS), else warn (nothing could be checked). */
function verdicts(out) {
  const byScenario = new Map();
  // The folders' names end in the time each scenario ran: sorted, they are in the suite's order.
  const dirs = readdirSync(out, { withFileTypes: true }).sort((a, b) => a.name.replace(/.*-(\d{4}-)/, "$1").localeCompare(b.name.replace(/.*-(\d{4}-)/, "$1")));
  for (const d of dirs) {
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(d.name);
    if (!d.isDirectory() || !m || !existsSync(join(out, d.name, "checks.json"))) continue;
    const checks = JSON.parse(readFileSync(join(out, d.name, "checks.json"), "utf8"));
    const failed = checks.filter((c) => c.status === "FAILURE");
    const verdict = failed.length > 0 ? "fail" : checks.some((c) => c.status === "SUCCESS") ? "pass" : "warn";
    const warning = checks.find((c) => c.status === "WARNING");
    const note = failed[0]?.errorMessage ?? warning?.errorMessage ?? warning?.details?.message ?? "";
    byScenario.set(m[1], { verdict, passed: checks.filter((c) => c.status === "SUCCESS").length, failed: failed.length, note });
  }
  return byScenario;
}

/** Runs the suite against a fresh hcp in one mode; each scenario's verdict. */
async function runMode(mode, node, cache, suiteArgs) {
  const out = join(cache, "results", mode);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const server = await serve(mode);
  let code;
  try {
    code = await runSuite(node, cache, server.url, out, suiteArgs);
  } finally {
    await server.stop();
  }
  const results = verdicts(out);
  if (results.size === 0) fail(`the suite ran no scenario in ${mode} mode (exit ${code}); see ${join(out, "suite.log")}`);
  return { mode, out, results };
}

/** The reason shown for a scenario: the known one for an expected failure, else what the suite said. */
function reasonOf(scenario, r) {
  return r.verdict === "fail" ? (KNOWN[scenario] ?? r.note) : r.note;
}

/** What is wrong with a run: a failure with no known reason, or a known failure that passes now. */
function surprisesOf({ mode, results }) {
  const found = [];
  for (const [scenario, r] of results) {
    if (r.verdict === "fail" && KNOWN[scenario] === undefined) found.push(`${scenario} (${mode}) fails: ${r.note}`);
    if (r.verdict === "pass" && KNOWN[scenario] !== undefined) found.push(`${scenario} (${mode}) passes now: take it out of KNOWN in scripts/conformance.mjs and out of the docs`);
  }
  return found;
}

function summaryOf({ mode, results }) {
  const n = (v) => [...results.values()].filter((r) => r.verdict === v).length;
  return `${mode}: ${results.size} scenarios, ${n("pass")} pass, ${n("warn")} warn (nothing could be checked), ${n("fail")} fail`;
}

/** One row per scenario, one verdict column per mode, then the reasons (told apart by mode where they differ). */
function table(runs, markdown) {
  const scenarios = [...new Set(runs.flatMap((r) => [...r.results.keys()]))];
  const rows = scenarios.map((scenario) => {
    const cells = runs.map(({ results }) => results.get(scenario));
    const reasons = cells.map((c) => (c === undefined ? "" : reasonOf(scenario, c)));
    const same = new Set(reasons).size === 1;
    const why = same ? reasons[0] : reasons.map((x, i) => x && `${runs[i].mode}: ${x}`).filter((x) => x !== "").join("; ");
    return [scenario, ...cells.map((c) => c?.verdict ?? "-"), why];
  });
  const head = ["scenario", ...runs.map((r) => r.mode), "why"];
  if (markdown) {
    const line = (cells) => `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
    return [line(head), line(head.map(() => "---")), ...rows.map((r) => line([`\`${r[0]}\``, ...r.slice(1)]))].join("\n");
  }
  const widths = head.slice(0, -1).map((_, i) => Math.max(...[head, ...rows].map((r) => r[i].length)));
  return [head, ...rows].map((r) => [...r.slice(0, -1).map((c, i) => c.padEnd(widths[i])), r.at(-1)].join("  ").trimEnd()).join("\n");
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(HCP)) fail("dist/bin/hcp.cjs is missing: run `npm run build` first");
  const cache = cacheDir();
  install(cache);
  const node = node22(cache);
  const nodeVersion = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
  const suiteVersion = versionOf(join(cache, "node_modules/@modelcontextprotocol/conformance/package.json"));
  const runs = [];
  for (const mode of opts.modes) runs.push(await runMode(mode, node, cache, opts.suite));

  const surprises = runs.flatMap(surprisesOf);
  const lines = [
    `MCP conformance suite ${suiteVersion} (server scenarios) on Node ${nodeVersion}; hcp ${versionOf(join(ROOT, "package.json"))} over HTTP`,
    "",
    table(runs, opts.markdown),
    "",
    ...runs.map(summaryOf),
    ...surprises.map((s) => `UNEXPECTED: ${s}`),
    `Each scenario's checks: ${runs.map((r) => r.out).join(", ")}`,
  ];
  process.stdout.write(lines.join("\n") + "\n");
  process.exitCode = surprises.length > 0 ? 1 : 0;
}

await main().catch((err) => fail(err instanceof Error ? err.message : String(err)));
