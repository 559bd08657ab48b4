// The question a person answers in the MCP client (elicitation) to approve a plan, and what their answer says. The
// plan is drawn as code, so that a client drawing Markdown shows its values as written; the form has one box to tick,
// so that a client accepting a form without fields by itself approves nothing. Pure.

import type { ElicitRequestFormParams, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { Answer, ApprovalRequest } from "../runtime/approval/approvers.js";

/**
 * The form a person approves a plan with: one box to tick. A client may accept a form without fields by itself, as a
 * confirmation nobody need see (Codex does, under approval policy `never` with full disk access, and VS Code takes a
 * skipped question for an accept): an accept is the person's yes only with the box ticked. No default: a client that
 * fills in defaults would tick it.
 */
const APPROVAL_FORM: ElicitRequestFormParams["requestedSchema"] = {
  type: "object",
  properties: { approve: { type: "boolean", title: "Approve", description: "Tick to run this plan once, as shown" } },
  required: ["approve"],
};

/**
 * A plan's text (planText, stdinLines after it) for a client that may draw it as Markdown, as VS Code draws an
 * elicitation's message: its first line, a blank line, then its other lines indented to four spaces, which Markdown
 * draws as code, as written. Drawn otherwise, a value's `[text](<` shows as that text alone and hides all up to a later
 * `>)` (the recipient and amount between), a JSON `\"` draws as `"` (one value as two) and `*` as emphasis. As plain
 * text, the plan reads as in a terminal.
 */
function asMarkdownCode(text: string): string {
  const [first, ...lines] = text.split("\n");
  return [first, "", ...lines.map((l) => `    ${l.trimStart()}`)].join("\n");
}

/** The elicitation that asks a person to approve `request`'s plan. */
export function approvalQuestion(request: ApprovalRequest): ElicitRequestFormParams {
  return { mode: "form", message: `Approve running ${asMarkdownCode(request.text)}`, requestedSchema: APPROVAL_FORM };
}

/**
 * The person's answer in an elicitation's result. An accept without the box ticked (missing, or false: a form may send
 * an untouched box as false) is no answer, neither a yes nor the decline that would keep the plan from this session
 * (a client answering by itself, or a person who missed the box): throws, and `hcp approve` can still approve it.
 */
export function approvalAnswer(answer: Pick<ElicitResult, "action" | "content">): Answer {
  if (answer.action !== "accept") return answer.action;
  if (answer.content?.["approve"] === true) return "accept";
  throw new Error('it answered accept without the box "approve" ticked, as a client answers a form nobody saw');
}
