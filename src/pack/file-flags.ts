// What a flag's text says of the files its value names: a file, folder or URL the command opens (kubectl's
// `--filename`, "Filename, directory, or URL to files"; rclone's `--output-file`, "Output hashsums to a file"), a
// program it runs ("Command to run to check health"), the person's web browser (gh's `--web`), or listed choices that
// make the value name a file (kubectl's `-o jsonpath-file=PATH`). A read runs without a person: there, such a value
// would let the agent choose which of the person's files the command prints (a kubeconfig and its keys) or
// overwrites, or what it runs. Pure.

import type { Flag } from "../manifest/types.js";
import type { JsonSchema } from "./types.js";

/**
 * Words that say a value is a file or folder: "file name", "path name", "path to" or "of" (kubectl's "Filename,
 * directory, or URL to files"), a file the text starts with ("Configuration file", "File containing the PEM encoded
 * private key"), a file or path "to", "into", "from", "in" or "at" ("Output hashsums to a file", "Read from tar archive
 * file", "write output to this path"), a file "this", "specified", "given" or "custom" ("using this TLS certificate
 * file", "a given SUM file"), a file "containing", "of", "to write", "to use"; "directory". Not files a value only
 * selects among ("Exclude files matching pattern", rclone's "Add a file-filtering rule", "Lines of recent log file",
 * restic's "only consider snapshots for this path"), a file system, nor a path on the CLI's server (kubectl's `--raw`).
 */
const FILE = String.raw`file\b(?!-| system)`;
const NAMES_FILE = new RegExp(
  [
    String.raw`\b(file|path) ?names?\b`,
    String.raw`\bpaths? (to|of)\b`,
    String.raw`^(\w+ ){0,2}${FILE}`,
    String.raw`\b(to|into|from|in|at) (a |an |the |this )?(\w+ ){0,2}(${FILE}|path\b)`,
    String.raw`\b(this|specified|given|custom) (\w+ ){0,2}${FILE}`,
    String.raw`\bfiles? (containing|of|to write|to use)\b`,
    String.raw`\bdirectory\b`,
  ].join("|"),
  "i",
);
/**
 * A value's own name in capitals, as a help writes it: "use certificates at PATH", "DIRECTORY to use"; a data source
 * name, which can be a file (crowdsec's `cscli explain --dsn`, "DSN to test": `file:///PATH` prints the file's lines).
 */
const FILE_METAVAR = /\b(PATH|FILE|FILENAME|DIRECTORY|DIR|DSN)\b/;

/** Whether a flag's value, by its text, is a file, folder or URL the command opens. */
export function opensFile(f: Flag): boolean {
  return f.type !== "bool" && (NAMES_FILE.test(f.usage) || FILE_METAVAR.test(f.usage));
}

/**
 * Words that say a value is a program the command runs: "Command to run to check health", "A program to use to create
 * the backend", "helm command (path to executable)", "Path to the user-provided transformer program", "shell command
 * to obtain the … password", "edit new content with this editor".
 */
const NAMES_PROGRAM = /\b(command|program|binary|executable|script) to (run|use|execute|call)\b|\bpath to (the )?([\w-]+ ){0,2}(executable|binary|program)\b|\bshell command\b|\b(this|the|an?) (\w+ )?editor\b/i;

/** Whether a flag's value, by its text, is a program the command runs: worse, on a read, than a file it opens. */
export function runsProgram(f: Flag): boolean {
  return f.type !== "bool" && NAMES_PROGRAM.test(f.usage);
}

/**
 * Whether a flag makes the command open the person's web browser (gh's `--web`, "Open a pull request in the browser"):
 * a program of their desktop (gh's `browser` setting, `xdg-open`), started on the page the agent chose, where the agent
 * sees nothing of it.
 */
export function opensBrowser(f: Flag): boolean {
  return /\bbrowser\b/i.test(f.usage);
}

/** A list of choices in a help: `(json, yaml, jsonpath-file)`, `{always|never}`. */
const CHOICE_LIST = /[({]([^(){}]*[,|][^(){}]*)[)}]/g;

/**
 * The choices a flag's text lists that name a file (kubectl's `--output`: go-template-file, templatefile,
 * jsonpath-file, custom-columns-file, each given as `CHOICE=PATH`).
 */
export function fileChoices(usage: string): string[] {
  const listed = [...usage.matchAll(CHOICE_LIST)].flatMap((m) => m[1]!.split(/[,|]/).map((c) => c.trim()));
  return [...new Set(listed.filter((c) => /^[a-z][a-z-]*file$/.test(c)))];
}

/**
 * The schema that refuses those choices, as the value or before its `=`, and what it refuses, in words that follow
 * "not" (HARNESS.md, `hcp describe`) and "must not be" (the error of a refused value).
 */
export function refusingChoices(choices: readonly string[]): JsonSchema {
  return { pattern: `^(${choices.join("|")})(=|$)`, description: `${choices.join(", ")} (each makes the command open a file, which a read may not)` };
}
