// What the server tells an agent about a pack matches what it serves: a pack's HARNESS.md without the sections of
// verbs this server does not serve (--tools, --exclude, --read-only, or denied), nor the names of their subcommands in
// the argument lines hcp init wrote (hidden-subcommands.ts), saying so plainly at its top; and, where it is put before
// the agent whole (the instructions' advice, a prompt), no longer than an agent can take in at once. Pure.

import { argumentLine } from "../pack/argument-line.js";
import { SKILL_WHOLE_MAX_BYTES, verbSections } from "../pack/harness-sections.js";
import { isObject } from "../pack/issues.js";
import { argsSchemaOf } from "../runtime/execute.js";
import { hiddenSubcommands, withoutHiddenValues } from "./hidden-subcommands.js";
import type { VerbTool } from "./tools.js";
import { verbsOf, type ServedPack } from "./packs.js";

/** A served verb's section whose argument lines, as hcp init wrote them, no longer name hidden subcommands. */
function withoutHiddenNames(section: string, pack: ServedPack, key: string, hidden: (value: unknown) => boolean): string {
  const schema = argsSchemaOf(pack, key);
  const properties = isObject(schema["properties"]) ? schema["properties"] : {};
  const required = Array.isArray(schema["required"]) ? schema["required"] : [];
  let text = section;
  for (const [name, p] of Object.entries(properties)) {
    const kept = withoutHiddenValues(p, hidden);
    if (kept === p) continue;
    // Only the lines hcp init wrote, word for word: lines the person wrote are theirs.
    const written = `\n${argumentLine(name, p, required.includes(name))}\n`;
    const at = text.indexOf(written);
    if (at >= 0) text = `${text.slice(0, at)}\n${argumentLine(name, kept, required.includes(name))}\n${text.slice(at + written.length)}`;
  }
  return text;
}

/** The served tools of a pack; null when the server serves all its listable verbs (nothing to hide or say). */
function servedSubset(pack: ServedPack, tools: readonly VerbTool[]): VerbTool[] | null {
  const own = tools.filter((t) => t.pack === pack);
  return own.length === verbsOf(pack, true).length ? null : own;
}

/** Whether the server says anything of this pack: it serves some of its tools, or the pack has none to serve. */
export function packShown(pack: ServedPack, tools: readonly VerbTool[]): boolean {
  return verbsOf(pack, true).length === 0 || tools.some((t) => t.pack === pack);
}

/** The HARNESS.md text as served: a hidden or denied verb's section dropped; a note when the selection hid some. */
export function servedHarness(text: string, pack: ServedPack, tools: readonly VerbTool[]): string {
  const served = new Set(tools.filter((t) => t.pack === pack).map((t) => t.verb));
  const hidden = hiddenSubcommands(pack, served);
  let kept = "";
  let copied = 0;
  for (const { key, start, end } of verbSections(text)) {
    if (!Object.hasOwn(pack.surface.verbs, key)) continue;
    const section = text.slice(start, end);
    kept += text.slice(copied, start) + (served.has(key) ? withoutHiddenNames(section, pack, key, hidden(key)) : "");
    copied = end;
  }
  kept += text.slice(copied);
  const subset = servedSubset(pack, tools);
  if (subset === null) return kept;
  const names = subset.map((t) => `\`${t.name}\``).join(", ");
  const note = `> On this server only these tools of the pack are served: ${names || "none"}. A verb this text names without one of them cannot be called here.\n\n`;
  // After the YAML frontmatter, where there is one.
  const fm = /^---\n[\s\S]*?\n---\n\n?/.exec(kept);
  const at = fm === null ? 0 : fm[0].length;
  return kept.slice(0, at) + note + kept.slice(at);
}

/**
 * A served Skill as its prompt, which a person's pick puts into the conversation at once: whole up to
 * SKILL_WHOLE_MAX_BYTES; past it without the verb sections, which say what each tool's description and input schema
 * say, and with a note where they were naming the resource that has them. A text with no verb sections stays whole:
 * all of it is the pack writer's own.
 */
export function promptHarness(text: string, uri: string): string {
  if (Buffer.byteLength(text) <= SKILL_WHOLE_MAX_BYTES) return text;
  const sections = verbSections(text);
  if (sections.length === 0) return text;
  const head = text.slice(0, sections[0]!.start);
  let rest = "";
  for (let i = 0; i < sections.length; i++) rest += text.slice(sections[i]!.end, sections[i + 1]?.start ?? text.length);
  const left = Buffer.byteLength(text) - Buffer.byteLength(head) - Buffer.byteLength(rest);
  const note = `> This prompt leaves out the sections of the ${sections.length} verbs (${Math.round(left / 1024)} KiB): each tool's description and input schema give what they say. The whole text is the resource ${uri}.\n\n`;
  return head + note + rest;
}
