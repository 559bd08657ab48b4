import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { choose, confirm, streamLines } from "../../src/framework/choose.js";
import { detectMachineOutput, normalizeBoolArgs } from "../../src/framework/argv.js";
import { Redactor } from "../../src/framework/redact.js";
import { App, classifyExit, MissingCredentialError, NotFoundError, AmbiguousError, SurfaceError, UsageError } from "../../src/framework/index.js";
import { flagUsages, toFlagDef } from "../../src/framework/flags.js";
import { renderTemplate } from "../../src/framework/transform.js";
import { tableText, mutationText, sanitizeControl } from "../../src/framework/output.js";
import { loadExample } from "../agentmeta/fixtures.js";
import { runApp } from "./helpers.js";

interface ChooseCase {
  question: string;
  options: { Label: string }[];
  default: number;
  input: string;
  expect_index?: number;
  expect_output?: string;
  expect_error?: string;
}

function io(input: string) {
  const s = new PassThrough();
  s.end(input);
  let out = "";
  return { io: { input: streamLines(s), write: (x: string) => (out += x) }, out: () => out };
}

test("chooser line mode matches choose_line_mode.json", async () => {
  const f = loadExample<{ choose_cases: ChooseCase[]; confirm_cases: { question: string; yes: string; no: string; input: string; expect: boolean }[] }>("choose_line_mode.json");
  for (const c of f.choose_cases) {
    const { io: chooserIO, out } = io(c.input);
    const options = c.options.map((o) => ({ label: o.Label }));
    if (c.expect_error !== undefined) {
      await assert.rejects(choose(chooserIO, c.question, options, c.default), { message: c.expect_error }, JSON.stringify(c.input));
    } else {
      assert.equal(await choose(chooserIO, c.question, options, c.default), c.expect_index);
      assert.equal(out(), c.expect_output);
    }
  }
  for (const c of f.confirm_cases) assert.equal(await confirm(io(c.input).io, c.question, c.yes, c.no), c.expect, c.input);
});

test("classification order of §d", () => {
  assert.equal(classifyExit(new UsageError("x")), 1);
  assert.equal(classifyExit(new MissingCredentialError()), 3);
  assert.equal(classifyExit(new NotFoundError("item", "x")), 5);
  assert.equal(classifyExit(new AmbiguousError("item", "x", [])), 1);
  assert.equal(classifyExit(new Error("unknown command \"x\" for \"t\"")), 1);
  assert.equal(classifyExit(new Error("boom")), 2);
});

test("raw-argv machine detection honours --, =false and value flags", () => {
  const names = { bools: new Set(["json"]), values: new Set(["config"]), shortValues: new Set(["c"]) };
  const m = { json: "json", jq: "jq", template: "template" };
  assert.equal(detectMachineOutput(["x", "--json"], m, false, names), true);
  assert.equal(detectMachineOutput(["x", "--json=false"], m, false, names), false);
  assert.equal(detectMachineOutput(["--", "--json"], m, false, names), false);
  assert.equal(detectMachineOutput(["--config", "--json"], m, false, names), false);
  assert.equal(detectMachineOutput(["-c", "--json"], m, false, names), false);
  assert.equal(detectMachineOutput(["--jq", "."], m, false, names), false);
  assert.equal(detectMachineOutput(["--jq", "."], m, true, names), true);
  assert.deepEqual(normalizeBoolArgs(["--json=1", "--json=F", "--config", "--json=true"], names), { args: ["--json", "--config", "--json=true"], explicitFalse: new Set(["json"]) });
});

test("redaction: text and JSON-string-aware", () => {
  const r = new Redactor();
  r.add("abc");
  r.add('s3cr"et<x>');
  assert.equal(r.text("abc s3cr\"et<x>"), "abc [REDACTED]");
  assert.equal(r.json('{"a":"s3cr\\"et\\u003cx\\u003e!"}'), '{"a":"[REDACTED]!"}');
});

test("pflag usage layout and defaults", () => {
  const text = flagUsages([
    toFlagDef({ name: "name", usage: "A name", type: "string", default: "x" }),
    toFlagDef({ name: "n", shorthand: "n", usage: "Count", type: "int", default: 3 }),
    toFlagDef({ name: "tag", usage: "Tags", type: "stringArray" }),
    toFlagDef({ name: "secret", usage: "Hidden", type: "bool", hidden: true }),
  ]);
  assert.equal(text, '  -n, --n int             Count (default 3)\n      --name string       A name (default "x")\n      --tag stringArray   Tags');
});

test("pflag usage: a back-quoted word names the value, bool included; a newline continues under the usage column", () => {
  const text = flagUsages([
    toFlagDef({ name: "out", usage: "Write to `file` (or - for stdout)", type: "string" }),
    toFlagDef({ name: "on", usage: "Turn `mode` on", type: "bool" }),
    toFlagDef({ name: "tag", usage: "Tags, `one` only `once`\nrepeatable", type: "stringArray", default: ["a", "b"] }),
  ]);
  assert.equal(
    text,
    "      --on mode    Turn mode on\n" +
      "      --out file   Write to file (or - for stdout)\n" +
      "      --tag one    Tags, one only `once`\n" +
      "                   repeatable (default [a,b])",
  );
});

test("template language and renderers", () => {
  assert.equal(renderTemplate('{{range .items}}{{if .ok}}{{.id}}{{else}}-{{end}}{{"\\n"}}{{end}}', { items: [{ id: "a", ok: true }, { id: "b", ok: false }] }), "a\n-\n");
  assert.throws(() => renderTemplate("{{range .}}", []), { message: "invalid --template: template: output:1: unexpected EOF" });
  assert.equal(tableText(["ID", "Name"], [["10", "x"]]), "ID  Name\n10  x\n");
  assert.equal(mutationText({ action: "Created", resource: "item", name: "a b" }), 'Created item "a b"\n');
  assert.equal(sanitizeControl("a\x1b[31mb\x07c\n"), "a b c\n");
});

test("sanitizeControl removes each kind of control sequence as one space and keeps tab, newline and plain text", () => {
  const cases: [input: string, output: string][] = [
    ["plain text\twith tab\nand newline", "plain text\twith tab\nand newline"],
    ["\x1b[1;33mbold\x1b[0m", " bold "],
    ["\x01leading", " leading"],
    ["a\x01\x02\x03b", "a b"],
    ["a\x01 b", "a b"],
    ["a \x01b", "a b"],
    ["a\t\x01b", "a\tb"],
    ["line\r\nnext\rcr", "line\nnext cr"],
    ["title\x1b]0;evil\x07after", "title after"],
    ["osc\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ end", "osc link end"],
    ["c1\x9b31mcsi\x9d0;t\x9cdone", "c1 csi done"],
    ["esc\x1bXsos\x9c end", "esc end"],
    ["unterminated\x1b[12", "unterminated "],
    ["unterminated osc\x1b]title", "unterminated osc "],
    ["esc at end\x1b", "esc at end "],
    ["esc other\x1b(B x", "esc other B x"],
    ["del\x7fand\x85c1", "del and c1"],
    ["\x1b[31m \x1b[0m", " "],
    ["\u00e9\u2028\u00fc\x00z", "\u00e9\u2028\u00fc z"],
  ];
  for (const [input, output] of cases) assert.equal(sanitizeControl(input), output, JSON.stringify(input));
  // Large documents: the same string back when there is nothing to remove, and every run replaced when there is.
  const clean = "x".repeat(1 << 20) + "\n";
  assert.equal(sanitizeControl(clean), clean);
  assert.equal(sanitizeControl("a\x1b[0m".repeat(100_000)), "a ".repeat(100_000));
});

test("mutation fields and template ranges over maps go in Go's byte order, not UTF-16 order", () => {
  // U+FFFD is EF BF BD in UTF-8 and sorts before U+1F600 (F0 9F 98 80), though its UTF-16 unit is larger.
  const fields = { "\u{1F600}": "astral", "\uFFFD": "bmp", a: "ascii" };
  assert.equal(mutationText({ action: "Updated", resource: "item", fields }), "Updated item\n  a: ascii\n  \uFFFD: bmp\n  \u{1F600}: astral\n");
  assert.equal(renderTemplate("{{range .}}{{.}} {{end}}", fields), "ascii bmp astral \n");
  assert.equal(renderTemplate("{{range .}}{{.}} {{end}}", new Map(Object.entries(fields))), "ascii bmp astral \n");
});

test("surface: reserved names, endpoint modes and host bindings fail with Go's texts", () => {
  const base = { name: "t", short: "T", version: "v1" };
  assert.throws(() => new App(base).addCommand({ use: "help", short: "h" }), { name: "SurfaceError", message: 'rungrad: "help" is a reserved framework command name and cannot be registered' });
  assert.throws(() => new App(base).addCommand({ use: "completion", short: "c" }), SurfaceError);
  const bad: [object, string][] = [
    [{ globalFlags: { mode: "x" } }, 'rungrad: invalid surface mode "x"'],
    [{ manifest: { mode: "rungrad", name: "x" } }, "rungrad: rungrad-owned manifest endpoint does not accept Name or Render"],
    [{ manifest: { mode: "disabled", name: "x" } }, "rungrad: disabled manifest endpoint does not accept Name or Render"],
    [{ manifest: { mode: "renamed" } }, "rungrad: renamed manifest endpoint requires Name"],
    [{ manifest: { mode: "renamed", name: "a b" } }, 'rungrad: renamed manifest endpoint "a b" must be a single command token'],
    [{ manifest: { mode: "renamed", name: "__rungrad_manifest" } }, 'rungrad: renamed manifest endpoint cannot use default name "__rungrad_manifest"'],
    [{ manifest: { mode: "renamed", name: "help" } }, 'rungrad: renamed manifest endpoint "help" collides with a reserved command name'],
    [{ manifest: { mode: "host-rendered" } }, "rungrad: host-rendered manifest endpoint requires Render"],
    [{ manifest: { mode: "bogus" } }, 'rungrad: invalid manifest endpoint mode "bogus"'],
    [{ globalFlags: { mode: "host", bindings: { flags: {} } } }, 'rungrad: missing host binding for global flag "json"'],
  ];
  for (const [surface, message] of bad) assert.throws(() => new App({ ...base, surface }), { message });
  const flags = { json: { name: "json" }, "dry-run": { name: "dry-run" }, "no-prompt": { name: "no-prompt" }, quiet: { name: "quiet" }, config: { name: "config" } };
  assert.throws(() => new App({ ...base, surface: { globalFlags: { mode: "host", bindings: { flags: { ...flags, json: { name: "json", shorthand: "j" } } } } } }), { message: 'rungrad: global flag "json" cannot define a shorthand' });
  assert.throws(() => new App({ ...base, surface: { globalFlags: { mode: "host", bindings: { flags: { ...flags, quiet: { name: "json" } } } } } }), { message: 'rungrad: host binding "json" duplicates global flag "json"' });
  assert.throws(() => new App({ ...base, surface: { globalFlags: { mode: "host", bindings: { flags: { ...flags, jq: { name: "jq" } } } } } }), { message: 'rungrad: host binding "jq" provided for a feature that is not enabled' });
});

test("surface modes: renamed/disabled/host-rendered endpoints, host-named and disabled globals", async () => {
  const base = { name: "t", short: "T", version: "v1" };
  const cmd = { use: "ls", short: "List", outputModes: ["human", "json"], run: async (ctx: import("../../src/framework/index.js").Context) => ctx.writeResult({ ok: true }, () => "ok\n") };
  const renamed = new App({ ...base, surface: { manifest: { mode: "renamed", name: "describe" } } }).addCommand(cmd);
  assert.equal(JSON.parse((await runApp(renamed, ["describe"])).stdout).tool_name, "t");
  assert.equal((await runApp(renamed, ["__rungrad_manifest"])).code, 1);
  const disabled = new App({ ...base, surface: { manifest: { mode: "disabled" } } }).addCommand(cmd);
  assert.equal((await runApp(disabled, ["__rungrad_manifest"])).code, 1);
  const rendered = new App({ ...base, surface: { manifest: { mode: "host-rendered", render: (c) => `${c.manifest.commands!.length}\n` } } }).addCommand(cmd);
  assert.equal((await runApp(rendered, ["__rungrad_manifest"])).stdout, "2\n");
  const flags = { json: { name: "output-json" }, "dry-run": { name: "preview" }, "no-prompt": { name: "batch" }, quiet: { name: "silent", shorthand: "s" }, config: { name: "cfg", hidden: true } };
  const host = new App({ ...base, surface: { globalFlags: { mode: "host", bindings: { flags } }, version: "host" } }).addCommand(cmd);
  assert.equal((await runApp(host, ["ls", "--output-json"])).stdout, '{\n  "ok": true\n}\n');
  const bad = await runApp(host, ["ls", "--nope", "--output-json"]);
  assert.deepEqual(JSON.parse(bad.stderr), { error: "unknown flag: --nope", exit_code: 1 });
  const m = host.manifestDocument();
  assert.deepEqual(m.global_flags!.map((f) => f.name), ["batch", "output-json", "preview", "silent"]);
  const none = new App({ ...base, surface: { globalFlags: { mode: "disabled" } } }).addCommand(cmd);
  assert.deepEqual(none.manifestDocument().global_flags, []);
  assert.equal((await runApp(none, ["ls", "--json"])).stderr, "Error: unknown flag: --json\n");
});

test("extensions are emitted through the canonical encoding; hidden commands and their subtrees are skipped", () => {
  const app = new App({ name: "t", short: "T", version: "v1" }).addCommand(
    { use: "b", short: "B", extensions: { "example.com/t": { status: "stable", owner: "platform" }, "example.com/empty": {} }, run: () => undefined },
    { use: "a", short: "A", hidden: true, commands: [{ use: "x", short: "X", run: () => undefined }] },
  );
  const m = app.manifestDocumentChecked();
  assert.deepEqual(m.commands.map((c) => c.path), [[], ["b"]]);
  assert.equal(JSON.stringify(m.commands[1]!.extensions), '{"example.com/t":{"owner":"platform","status":"stable"}}');
  assert.throws(() => new App({ name: "t", short: "T", version: "v1" }).addCommand({ use: "c", short: "C", extensions: { "rungrad/x": { a: 1 } } }), /reserved namespace/);
});

test("ctx.changed reports pflag's Changed bit, also for --b=false and --s=", async () => {
  const seen: string[] = [];
  const app = new App({ name: "t", short: "T", version: "v1" }).addCommand({
    use: "new",
    short: "N",
    flags: [{ name: "skill", usage: "s", type: "bool" }, { name: "surface", usage: "s", type: "string" }, { name: "service", usage: "s", type: "stringArray" }],
    run: (ctx) => void seen.push(`${ctx.changed("skill")} ${ctx.changed("surface")} ${ctx.strings("service").join("|")}`),
  });
  await runApp(app, ["new", "--skill=false", "--surface=", "--service", "a=1", "--service=b=2"]);
  await runApp(app, ["new"]);
  assert.deepEqual(seen, ["true true a=1|b=2", "false false "]);
});
