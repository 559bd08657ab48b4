// Colour for the programs' human output: only on a terminal, never with NO_COLOR set (any value) or --no-color.

export type Style = "red" | "green" | "yellow" | "dim";

const CODES: Readonly<Record<Style, string>> = { red: "31", green: "32", yellow: "33", dim: "2" };

/** Whether text written to `stream` may be coloured. */
export function colourOn(stream: { isTTY?: boolean }, noColorFlag: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !noColorFlag && env["NO_COLOR"] === undefined;
}

/** `text` in `style` when `on`, else as it is. */
export const paint = (on: boolean, style: Style, text: string): string => (on ? `\x1b[${CODES[style]}m${text}\x1b[0m` : text);

export const NO_COLOR_FLAG = { name: "no-color", type: "bool", usage: "Never colour the output (colour is used only on a terminal, and never when NO_COLOR is set)" } as const;
