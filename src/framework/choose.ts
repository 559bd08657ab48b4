// The chooser's line mode: a numbered question on stderr answered by number, alias or full label (choose_line_mode.json).

import type { Readable } from "node:stream";

export interface Option {
  label: string;
  hint?: string;
  aliases?: string[];
}

/** Backing out (q) or end of input before an answer. */
export class ChoiceCanceledError extends Error {
  override name = "ChoiceCanceledError";
  constructor() {
    super("choice canceled");
  }
}

/** Reads whole lines; `null` at end of input (a final line without newline is not an answer). */
export interface LineSource {
  readLine(): Promise<string | null>;
}

/** A LineSource over a stream, reading only as much as it is asked for. */
export function streamLines(stream: Readable): LineSource {
  let buffered = "";
  let ended = false;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  let attached = false;
  const attach = () => {
    if (attached) return;
    attached = true;
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      buffered += chunk;
      wake();
    });
    stream.on("end", () => {
      ended = true;
      wake();
    });
    stream.on("error", () => {
      ended = true;
      wake();
    });
  };
  return {
    async readLine() {
      attach();
      for (;;) {
        const nl = buffered.indexOf("\n");
        if (nl >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (buffered === "") stream.pause();
          return line.endsWith("\r") ? line.slice(0, -1) : line;
        }
        if (ended) return null;
        stream.resume();
        await new Promise<void>((r) => waiters.push(r));
      }
    },
  };
}

export interface ChooserIO {
  input: LineSource;
  write(s: string): void;
  /** Applied to every rendered string (secret redaction). */
  transform?: (s: string) => string;
}

/** Asks `question` and returns the chosen index; `def` answers a blank line. */
export async function choose(io: ChooserIO, question: string, options: Option[], def: number): Promise<number> {
  if (options.length === 0) throw new Error("choose: no options provided");
  if (def < 0 || def >= options.length) throw new Error(`choose: default ${def} is not one of the ${options.length} options`);
  const t = io.transform ?? ((s: string) => s);
  let menu = t(question) + "\n";
  options.forEach((o, i) => (menu += t(`  ${i + 1}) ${o.label}` + (o.hint ? `  (${o.hint})` : "")) + "\n"));
  menu += `Choose 1-${options.length} [${def + 1}]: `;
  for (;;) {
    io.write(menu);
    const line = await io.input.readLine();
    if (line === null) throw new ChoiceCanceledError();
    const answer = line.trim();
    if (answer === "") return def;
    if (answer.toLowerCase() === "q" && !isAnswer(answer, options)) throw new ChoiceCanceledError();
    const idx = matchAnswer(answer, options);
    if (idx >= 0) return idx;
  }
}

/** Yes/no with explicit labels; "no" is the default. */
export async function confirm(io: ChooserIO, question: string, yes: string, no: string): Promise<boolean> {
  const idx = await choose(io, question, [
    { label: yes, aliases: ["y", "yes"] },
    { label: no, aliases: ["n", "no"] },
  ], 1);
  return idx === 0;
}

function matchAnswer(answer: string, options: Option[]): number {
  if (/^[+-]?\d+$/.test(answer)) {
    const n = Number(answer);
    return n >= 1 && n <= options.length && String(n) === answer ? n - 1 : -1;
  }
  const a = answer.toLowerCase();
  return options.findIndex((o) => o.label.toLowerCase() === a || (o.aliases ?? []).some((x) => x.toLowerCase() === a));
}

function isAnswer(text: string, options: Option[]): boolean {
  return matchAnswer(text, options) >= 0 && !/^\d+$/.test(text);
}
