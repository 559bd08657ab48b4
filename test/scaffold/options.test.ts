// Option validation: every case of scaffold_options.json (exact message or our file set), plus the npm and Agent Skills name rules.

import { test } from "node:test";
import assert from "node:assert/strict";
import { generate, ScaffoldValidationError, validateOptions, type ScaffoldOptions } from "../../src/scaffold/index.js";
import { example, fromGo, tsFiles } from "./support.js";

const fixture = example("scaffold_options.json");

function rejects(options: ScaffoldOptions, message: string, label = JSON.stringify(options)): void {
  assert.throws(() => generate(options), (err: unknown) => {
    assert.ok(err instanceof ScaffoldValidationError, label);
    assert.equal(err.message, message, label);
    assert.equal(err.exitCode, 1);
    return true;
  });
}

test("scaffold_options.json error cases give the exact message (Go Module cases: our --package rule)", () => {
  for (const c of fixture.error_cases) {
    const options = fromGo(c.options);
    const message = "Module" in c.options ? "scaffold: package name is invalid" : c.expect_error;
    rejects(options, message);
  }
});

test("scaffold_options.json ok cases generate the TypeScript file set (Go names mapped)", () => {
  for (const c of fixture.ok_cases) {
    const files = generate(fromGo(c.options)).files.map((f) => f.path);
    assert.deepEqual(files, tsFiles(c.expect_files), JSON.stringify(c.options));
  }
});

test("the product-only gate names the first set field in Go's Generate order, --skill last", () => {
  rejects({ name: "x", docsLabel: "d", services: ["api=https://a.invalid"] }, "scaffold: --docs-label requires --product-profile");
  rejects({ name: "x", examples: ["x widget list"], skill: true }, "scaffold: --example requires --product-profile");
  rejects({ name: "x", skill: true }, "scaffold: --skill requires --product-profile");
  rejects({ name: "tool-", skill: true }, "scaffold: --skill requires --product-profile");
  rejects({ name: "x", surface: "host" }, "scaffold: --surface requires --product-profile");
  rejects({ name: "", skill: true }, "scaffold: name is required");
});

test("--skill requires an Agent Skills name; without --skill Go's name rule stands", () => {
  const message = "scaffold: --skill requires a name of 1 to 64 lowercase letters, digits, or hyphens, with no leading, trailing, or consecutive hyphens";
  for (const name of ["tool-", "a--b9", "a" + "b".repeat(64)]) {
    rejects({ name, productProfile: true, skill: true }, message);
    assert.doesNotThrow(() => validateOptions({ name, productProfile: true }));
  }
  assert.doesNotThrow(() => validateOptions({ name: "a" + "b".repeat(63), productProfile: true, skill: true }));
});

test("--package follows npm's rules for new packages; the default is the tool name", () => {
  for (const pkg of ["Tool", "_x", ".x", "excited!", "a b", " a", "http", "node_modules", "example.com/x", "@scope/", "x".repeat(215)]) {
    rejects({ name: "mytool", package: pkg }, "scaffold: package name is invalid");
  }
  for (const pkg of ["@me/mytool", "tool.js", "under_score", "123numeric", "x".repeat(214)]) {
    assert.equal(validateOptions({ name: "mytool", package: pkg }).packageName, pkg);
  }
  assert.equal(validateOptions({ name: "mytool" }).packageName, "mytool");
  rejects({ name: "Bad", package: "@x" }, "scaffold: name must start with a lowercase letter and contain only lowercase letters, digits, and hyphens");
});

const p = (o: Partial<ScaffoldOptions>): ScaffoldOptions => ({ name: "acmectl", productProfile: true, ...o });

test("product rules: env prefix, services, namespace, slugs, control bytes, examples, in Go's order", () => {
  rejects(p({ envPrefix: "A-B", services: ["bad"] }), "scaffold: env prefix must start with an uppercase letter, contain only uppercase letters, digits, and underscores, and not end with underscore");
  rejects(p({ services: ["api"] }), "scaffold: service must be name=url");
  rejects(p({ services: ["=https://a.invalid"] }), "scaffold: service must be name=url");
  rejects(p({ services: ["Api=https://a.invalid"] }), "scaffold: service name must start with a lowercase letter and contain only lowercase letters, digits, and hyphens");
  rejects(p({ services: ["b=https://b.invalid", "b=https://c.invalid"] }), "scaffold: service names must be unique");
  rejects(p({ services: ["b=https://b.invalid/\x01"] }), "scaffold: service URL is invalid");
  rejects(p({ services: ["b=https://b.invalid:x/"] }), "scaffold: service URL is invalid");
  rejects(p({ services: ["b=https://B.INVALID"] }), "scaffold: service URL must be an https URL under .invalid with no userinfo");
  rejects(p({ metadataNamespace: "nope" }), 'scaffold: metadata namespace is invalid: extension namespace "nope": invalid namespace');
  rejects(p({ metadataNamespace: "rungrad/x" }), 'scaffold: metadata namespace is invalid: extension namespace "rungrad/x": reserved namespace');
  rejects(p({ surface: "disabled", releaseOwner: "A" }), "scaffold: surface must be rungrad or host");
  rejects(p({ releaseOwner: "x".repeat(101) }), "scaffold: --release-owner must be a lowercase slug of 100 bytes or fewer");
  rejects(p({ releaseRepo: "github_pat_x", description: "\x7f" }), "scaffold: --release-repo looks like a credential, not a release placeholder");
  rejects(p({ description: "a\nb" }), "scaffold: description must not contain control characters");
  rejects(p({ docsLabel: "a\x1bb" }), "scaffold: docs label must not contain control characters");
  rejects(p({ examples: ["other widget list"] }), "scaffold: example must start with the generated binary name");
  rejects(p({ examples: ["acmectl widget create"] }), "scaffold: widget create examples must include a positional name before flags");
  rejects(p({ examples: ["acmectl widget delete x --json --nope"] }), "scaffold: widget delete examples accept only generated flags after the name");
  rejects(p({ examples: ["acmectl widget list --billing-url x"] }), "scaffold: widget list examples accept only generated flags after the command path");
  assert.doesNotThrow(() => validateOptions(p({ services: ["billing=https://billing.invalid"], examples: ["acmectl widget list --billing-url=https://x.invalid --profile p"] })));
  assert.doesNotThrow(() => validateOptions(p({ releaseOwner: "ghp_x".slice(1) })));
});

test("examples are appended de-duplicated to root and their leaf; update extras follow the framework's three", () => {
  const s = validateOptions({ name: "t", productProfile: true, examples: ["t widget list", "t update --check", "t update --check", "t widget create z --json"] });
  assert.deepEqual(s.examples.root, ["t widget list", "t widget list --json", "t widget create gamma --dry-run", "t update --check", "t widget create z --json"]);
  assert.deepEqual(s.examples.update, ["t update --check"]);
  assert.deepEqual(s.examples.create, ["t widget create gamma", "t widget create gamma --dry-run", "t widget create z --json"]);
  const m = generate({ name: "t", productProfile: true, examples: ["t update --check"] }).manifest;
  assert.deepEqual(m.commands.find((c) => c.path.join(" ") === "update")!.examples, ["t update --check", "t update --check --json", "t update", "t update --check"]);
});
