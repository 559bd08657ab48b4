// A generated HARNESS.md (§5) against the policy in force: hcp init writes each verb's policy and approval into
// HARNESS.md, and the person then edits policy.json (init tells them to). Agents read HARNESS.md, so where its
// `### \`verb\` (marks)` headings no longer say what policy.json does, a warning says which verb and what to write. Pure.

import { verbSections } from "./harness-sections.js";
import { IssueSink, keyed } from "./issues.js";
import { effectivePolicy } from "./policy.js";
import type { Issue, PolicyDocument, Surface } from "./types.js";

/**
 * What a confirm mode asks for, in the words every output uses (HARNESS.md headings, hcp list, hcp describe, a
 * plan shown to a person); undefined when it asks for nothing.
 */
export function confirmMark(confirm: "person" | "plan" | false): string | undefined {
  return confirm === "person" ? "needs a person's approval" : confirm === "plan" ? "needs its plan_id restated" : undefined;
}

/** The marks a generated heading gives a verb (harness-render.ts), credentials aside; hcp list and describe show the same. */
export function policyMarks(level: string, confirm: "person" | "plan" | false): string[] {
  const mark = confirmMark(confirm);
  return mark === undefined ? [level] : [level, mark];
}

/** The credentials mark, which says nothing of the policy. */
export const CREDENTIALS_MARK = "needs credentials";

/** Warnings (code `policy`, file HARNESS.md) for each verb whose generated heading disagrees with policy.json. */
export function harnessPolicyIssues(body: string, pack: { surface: Surface; policy: PolicyDocument | null }): Issue[] {
  const sink = new IssueSink("HARNESS.md");
  const described = new Set<string>();
  for (const { key, marks } of verbSections(body)) {
    if (marks === null || !Object.hasOwn(pack.surface.verbs, key)) continue;
    described.add(key);
    const said = marks.filter((mark) => mark !== CREDENTIALS_MARK).join(", ");
    const p = effectivePolicy(pack, key);
    if (p.policy === "deny") {
      sink.warn("policy", keyed("verbs", key), `HARNESS.md describes verb ${JSON.stringify(key)}, which policy.json denies (agents never see it): remove its section`);
      continue;
    }
    const meant = policyMarks(p.policy, p.confirm).join(", ");
    if (said !== meant) {
      sink.warn("policy", keyed("verbs", key), `HARNESS.md says verb ${JSON.stringify(key)} is "${said}", and policy.json makes it "${meant}": agents read HARNESS.md, so make its heading and text say what policy.json does (for a pack hcp init made, run that hcp init again with --force --keep-policy)`);
    }
  }
  // Only a HARNESS.md hcp generated (it describes verbs this way) is expected to describe them all.
  if (described.size === 0) return sink.issues;
  for (const key of Object.keys(pack.surface.verbs)) {
    if (described.has(key) || effectivePolicy(pack, key).policy === "deny") continue;
    sink.warn("policy", keyed("verbs", key), `HARNESS.md does not describe verb ${JSON.stringify(key)}, which policy.json lets agents call: add a section for it`);
  }
  return sink.issues;
}
