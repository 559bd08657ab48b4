import { test } from "node:test";
import assert from "node:assert/strict";
import { stableJSON } from "../../src/json/stable.js";
import { fromManifest } from "../../src/agentmeta/index.js";
import { newApp } from "../../examples/rgref/app.js";
import { loadExample } from "../agentmeta/fixtures.js";
import { tempDir } from "../temp.js";
import { GO_TEMPLATE_USAGE, runApp, TS_TEMPLATE_USAGE } from "./helpers.js";

interface Reference {
  expect_manifest_stable_json: string;
  expect_agentmeta: unknown;
}
const ref = loadExample<Reference>("rgref_reference.json");
const goldens = loadExample<{ files: Record<string, string>; argv: Record<string, string[]> }>("rgref_help_golden.json");

test("the manifest equals the reference bytes (the --template usage aside)", () => {
  const got = stableJSON(newApp().manifestDocument());
  assert.equal(got, ref.expect_manifest_stable_json.replace(GO_TEMPLATE_USAGE, TS_TEMPLATE_USAGE));
});

test("manifestDocumentChecked validates, and the endpoint prints the same bytes", async () => {
  const app = newApp();
  const doc = app.manifestDocumentChecked();
  const r = await runApp(app, ["__rungrad_manifest"]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, stableJSON(doc));
});

test("the agentmeta projection equals the expected document (the --template usage aside)", () => {
  const doc = fromManifest(newApp().manifestDocument());
  const want = JSON.parse(JSON.stringify(ref.expect_agentmeta).replace(GO_TEMPLATE_USAGE, TS_TEMPLATE_USAGE));
  assert.equal(stableJSON(doc), stableJSON(want));
});

for (const [file, argv] of Object.entries(goldens.argv)) {
  test(`help golden ${file}`, async () => {
    const r = await runApp(newApp(), argv);
    assert.equal(r.code, 0);
    const want = goldens.files[file]!.replace(GO_TEMPLATE_USAGE, TS_TEMPLATE_USAGE);
    // The golden files are stored with or without a final newline; compare the content.
    assert.equal(r.stdout.replace(/\n+$/, ""), want.replace(/\n+$/, ""));
  });
}

test("the line-mode confirm prompt deletes on 'y' and declines on a blank line", async () => {
  const yes = await runApp(newApp(), ["item", "delete", "alpha"], { tty: true, input: "y\n" });
  assert.equal(yes.stderr, "About to delete item 1.\n  1) Yes, continue\n  2) No, cancel\nChoose 1-2 [2]: ");
  assert.equal(yes.code, 0);
  assert.equal(yes.stdout, "Deleted item (1)\n");
  const no = await runApp(newApp(), ["item", "delete", "alpha"], { tty: true, input: "\n" });
  assert.equal(no.code, 1);
  assert.match(no.stderr, /Error: destructive action declined\n$/);
});

test("an ambiguous name prompts on a terminal", async () => {
  const r = await runApp(newApp(), ["item", "get", "dup"], { tty: true, input: "2\n" });
  assert.equal(r.code, 0);
  assert.equal(r.stderr, 'Multiple item matches for "dup":\n  1) dup [2]\n  2) dup [3]\nSelect 1-2: ');
  assert.equal(r.stdout, "3\n");
});

test("advanced-output guards", async () => {
  const cases: [string[], string][] = [
    [["item", "list", "--jq", ".", "--template", "x"], "--jq and --template cannot be combined"],
    [["item", "list", "--plain", "--json"], "--plain cannot be combined with --json, --jq, --template, or --include-meta"],
    [["item", "get", "alpha", "--plain"], '"rgref item get" does not support --plain. Run "rgref item get --help" for supported output modes.'],
    [["whoami", "--jq", "."], '"rgref whoami" does not support --jq or --template because it has no stable JSON output. Run "rgref whoami --help" for supported output modes.'],
    [["item", "get", "alpha", "--include-meta", "--json"], '"rgref item get" does not support --include-meta. Run "rgref item get --help" for supported output modes.'],
    [["item", "list", "--include-meta"], "--include-meta requires --json, --jq, or --template"],
    [["item", "list", "--include-meta", "--json", "--dry-run"], "--include-meta cannot be combined with --dry-run"],
  ];
  for (const [argv, msg] of cases) {
    const r = await runApp(newApp(), argv);
    assert.equal(r.code, 1, argv.join(" "));
    if (argv.includes("--json") || argv.includes("--jq")) assert.equal(JSON.parse(r.stderr).error, msg);
    else assert.equal(r.stderr, `Error: ${msg}\n`);
  }
});

const template = async (t: string) => runApp(newApp(), ["item", "list", "--template", t]);

test("--template is Go's text/template over the machine model, with Go's error texts", async () => {
  const r = await runApp(newApp(), ["item", "list", "--template", '{{range .}}{{.id}} {{.name}}{{"\\n"}}{{end}}']);
  assert.equal(r.stdout, "1 alpha\n2 dup\n3 dup\n");
  const bad = await runApp(newApp(), ["item", "get", "alpha", "--template", "{{.nope}}"]);
  assert.equal(bad.code, 2);
  // --template is machine output, so the error is the JSON body.
  assert.deepEqual(JSON.parse(bad.stderr), {
    error: '--template rendering failed: template: output:1:2: executing "output" at <.nope>: map has no entry for key "nope"',
    exit_code: 2,
  });
  assert.equal((await template("{{(index . 0).label}}")).stdout, "A&B <demo> café\n");
  assert.equal((await template('{{with index . 0}}{{.name}} {{len .label}} {{printf "%q %v" .id .size}}{{end}}')).stdout, 'alpha 16 "1" 9007199254740993\n');
  assert.equal((await template('{{range $i, $e := .}}{{if eq $e.name "dup"}}{{$i}}{{else}}-{{end}}{{end}}')).stdout, "-12\n");
  assert.equal((await template("{{index . 0}}")).stdout, "map[id:1 label:A&B <demo> caf\u00e9 name:alpha size:9007199254740993]\n");
  const failures: [string, number, string][] = [
    ["{{range .}}", 1, "invalid --template: template: output:1: unexpected EOF"],
    ["{{nosuch .}}", 1, 'invalid --template: template: output:1: function "nosuch" not defined'],
    ["{{(index . 0}}", 1, "invalid --template: template: output:1: unclosed left paren"],
    ["a\n{{end}}", 1, "invalid --template: template: output:2: unexpected {{end}}"],
    ["{{index . 7}}", 2, '--template rendering failed: template: output:1:2: executing "output" at <index . 7>: error calling index: index out of range: 7'],
    ["x\n {{(index . 0).nope}}", 2, '--template rendering failed: template: output:2:12: executing "output" at <0>: map has no entry for key "nope"'],
    ["{{range (index . 0).name}}{{end}}", 2, '--template rendering failed: template: output:1:17: executing "output" at <0>: range can\'t iterate over alpha'],
  ];
  for (const [t, code, message] of failures) {
    const f = await template(t);
    assert.deepEqual([f.code, f.stdout, JSON.parse(f.stderr)], [code, "", { error: message, exit_code: code }], t);
  }
});

test("--jq runs real jq over the stable JSON (sorted keys, compact)", async () => {
  const r = await runApp(newApp(), ["item", "list", "--jq", ".[0]"]);
  assert.equal(r.stdout, '{"id":"1","label":"A&B <demo> café","name":"alpha","size":9007199254740993}\n');
  const bad = await runApp(newApp(), ["item", "list", "--jq", ".["]);
  assert.equal(bad.code, 1);
  assert.deepEqual(JSON.parse(bad.stderr), { error: "invalid --jq expression: unexpected EOF", exit_code: 1 });
});

const jq = async (expr: string) => runApp(newApp(), ["item", "list", "--jq", expr]);

test("--jq prints numbers and strings as gojq does, and words errors as Go rungrad does", async () => {
  const numbers = await jq('1.0, 1E1000, -1E1000, 0.00000001, 100000000000000000000, 1e21, .[0].size, "\u007f<&\u2028"');
  assert.equal(numbers.stdout, '1\n1.7976931348623157e+308\n-1.7976931348623157e+308\n1e-8\n100000000000000000000\n1e+21\n9007199254740993\n"\\u007f<&\u2028"\n');
  const failures: [string, number, string][] = [
    ['error("boom")', 2, "--jq expression failed: error: boom"],
    ['error({"b":1,"a":[1.0]})', 2, '--jq expression failed: error: {"a":[1],"b":1}'],
    ["error(null)", 2, "--jq expression failed: error: null"],
    ["1 +", 1, "invalid --jq expression: unexpected EOF"],
    ['"abc', 1, "invalid --jq expression: unterminated string literal"],
    ['"\\q"', 1, 'invalid --jq expression: invalid escape sequence "\\q" in string literal'],
    ["nosuch(1)", 1, "invalid --jq expression: function not defined: nosuch/1"],
    ["$nope", 1, "invalid --jq expression: variable not defined: $nope"],
  ];
  for (const [expr, code, message] of failures) {
    const r = await jq(expr);
    assert.deepEqual([r.code, r.stdout, JSON.parse(r.stderr)], [code, "", { error: message, exit_code: code }], expr);
  }
});

test("pflag bool forms and usage errors", async () => {
  assert.equal((await runApp(newApp(), ["item", "list", "--json=true"])).stdout.startsWith("[\n"), true);
  assert.equal((await runApp(newApp(), ["item", "list", "--json", "--json=false"])).stdout, "ID  Name\n1   alpha\n2   dup\n3   dup\n");
  const bad = await runApp(newApp(), ["item", "list", "--json=maybe"]);
  assert.equal(bad.code, 1);
  // Raw-argv detection: only an explicit false turns machine mode off.
  assert.equal(JSON.parse(bad.stderr).error, 'invalid argument "maybe" for "--json" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
  const args = await runApp(newApp(), ["item", "get"]);
  assert.equal(args.stderr, "Error: accepts 1 arg(s), received 0\n");
  const value = await runApp(newApp(), ["--config", "--json", "nope"]);
  assert.equal(value.stderr, 'Error: unknown command "nope" for "rgref"\n');
});

test("the stored credential beside --config is used and never printed", async () => {
  const { writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const dir = tempDir("rgref-cred-");
  writeFileSync(join(dir, "credentials.json"), JSON.stringify({ version: 1, entries: { default: { token: "stored-secret-1234" } } }));
  const r = await runApp(newApp(), ["whoami", "--json", "--config", join(dir, "config.yaml")]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '{\n  "token": "****1234"\n}\n');
  assert.ok(!r.stdout.includes("stored-secret"));
});
