// The verb sections of a HARNESS.md as hcp init writes them (harness-render.ts): a `### \`verb\` (marks)` heading, then
// its text up to the next heading of level 1 to 3. The one reader of those headings, for the warnings that one
// disagrees with policy.json (harness-policy.ts) and for the server that serves only the sections of the verbs it
// serves (transports/served-harness.ts). Pure.

/**
 * The longest Skill an agent is given to read whole (about 8,000 tokens). hcp init lists a longer pack's verbs with
 * their arguments' names only; the server tells the agent to read a longer one only when the tools' own descriptions
 * are not enough, and its prompt leaves out its verb sections. An API's Skill can be a megabyte (GitHub's).
 */
export const SKILL_WHOLE_MAX_BYTES = 32 * 1024;

export interface VerbSection {
  /** The verb key between the backquotes. */
  key: string;
  /** The marks in the parentheses after it (`write`, `needs a person's approval`…); null when the heading has none. */
  marks: string[] | null;
  /** Where the section starts (its heading) and ends (the next heading of level 1 to 3, or the end of the text). */
  start: number;
  end: number;
}

const HEADING = /^### `([^`\n]+)`([^\n]*)$/gm;
const ANY_HEADING = /^#{1,3} /gm;
const MARKS = /^ \(([^)\n]*)\)$/;

/** Every `### \`key\`` section of the text, in order. */
export function verbSections(body: string): VerbSection[] {
  const sections: VerbSection[] = [];
  for (const m of body.matchAll(HEADING)) {
    const start = m.index;
    ANY_HEADING.lastIndex = start + m[0].length;
    const end = ANY_HEADING.exec(body)?.index ?? body.length;
    const marks = MARKS.exec(m[2]!);
    sections.push({ key: m[1]!, marks: marks === null ? null : marks[1]!.split(", "), start, end });
  }
  return sections;
}
