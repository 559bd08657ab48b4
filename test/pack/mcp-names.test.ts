// hcp init's note of MCP tool names cut to a hash (mcp-names.ts): what keeps them whole, a shorter pack id or a shorter
// verb key.

import assert from "node:assert/strict";
import { test } from "node:test";
import { cutToolNames } from "../../src/pack/mcp-names.js";

test("cut tool names: a shorter pack id is advised only where it would keep a name whole; verb keys too long for any id are said to need a shorter key", () => {
  const long = "app-issue-field-value-update-resource.update-multiple-custom-field-values_put";
  assert.deepEqual(cutToolNames("x", ["list"]), [], "no name cut, no note");
  const jira = cutToolNames("jira", [long, "get-issue"]);
  assert.equal(jira.length, 1);
  assert.match(jira[0]!, /^1 of 2 MCP tool names .* end in a hash instead \(verb "app-issue-field-value-update-resource\.update-multiple-custom-field-values_put" is tool jira_app-[^)]+\); their verbs' keys are too long for any pack id: give such a verb a shorter key \(in surface\.json and policy\.json\) to keep its tool's name whole$/);
  const titled = cutToolNames("github-s-official-openapi-spec-octokit-extension", ["repos-list-things", long]);
  assert.match(titled[0]!, /; a shorter pack id \(hcp init --id NAME\) keeps 1 of them whole; the others' verb keys are too long for any pack id$/);
  assert.match(cutToolNames("github-s-official-openapi-spec-octokit-extension", ["repos-list-things"])[0]!, /; a shorter pack id \(hcp init --id NAME\) keeps them whole$/);
});
