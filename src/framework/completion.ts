// Shell completion scripts (`completion bash|zsh|fish|powershell`), generated from the same command
// tree as help and the manifest: subcommands and flags of each command path, completed statically.

import { flagNames } from "./argv.js";
import type { CommandNode } from "./command.js";

export const SHELLS = ["bash", "fish", "powershell", "zsh"] as const;
export type Shell = (typeof SHELLS)[number];

interface Entry {
  /** The command path below the program, space-joined ("" for the root). */
  path: string;
  commands: { name: string; short: string }[];
  flags: string[];
}

/** Every listed command path with what can follow it. Flag values are never completed. */
function entries(root: CommandNode): Entry[] {
  const out: Entry[] = [];
  const visit = (node: CommandNode) => {
    const flags = [...(node.parent ? node.inherited() : node.persistent), ...node.flags]
      .filter((f) => !f.hidden)
      .flatMap((f) => [`--${f.name}`, ...(f.shorthand ? [`-${f.shorthand}`] : [])]);
    const children = node.children.filter((c) => c.kind === "help" || c.available());
    out.push({ path: node.path().join(" "), commands: children.map((c) => ({ name: c.name, short: c.spec.short })), flags: [...flags, "--help"] });
    children.filter((c) => c.kind !== "help").forEach(visit);
  };
  visit(root);
  return out;
}

/** Flags that take a value: the word after one is its value, not a command. */
function valueFlags(root: CommandNode): string[] {
  const { values, shortValues } = flagNames(root);
  return [...[...values].map((n) => `--${n}`), ...[...shortValues].map((s) => `-${s}`)].sort();
}

const ident = (name: string) => name.replace(/[^A-Za-z0-9_]/g, "_");
/** A single-quoted shell word (bash, zsh and fish all read '…' literally; ' itself is closed and escaped). */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function bash(tool: string, root: CommandNode): string {
  const fn = `__${ident(tool)}_complete`;
  const cases = entries(root)
    .map((e) => `    ${sq(e.path)}) words=${sq([...e.commands.map((c) => c.name), ...e.flags].join(" "))} ;;`)
    .join("\n");
  return `# bash completion for ${tool}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" i w skip=0 words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case " ${valueFlags(root).join(" ")} " in *" $w "*) skip=1; continue ;; esac
    case "$w" in -*) ;; *) path="\${path:+$path }$w" ;; esac
  done
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F ${fn} ${tool}
`;
}

function zsh(tool: string, root: CommandNode): string {
  return `#compdef ${tool}
# zsh completion for ${tool} (through bash completion)
autoload -U +X bashcompinit && bashcompinit
${bash(tool, root)}`;
}

function fish(tool: string, root: CommandNode): string {
  const at = `__${ident(tool)}_at`;
  const lines = [
    `# fish completion for ${tool}`,
    // True when the command path typed so far (flags left out) is exactly $argv[1].
    `function ${at}`,
    "    set -l words (commandline -opc)",
    "    set -e words[1]",
    "    set -l path (string match -v -- '-*' $words)",
    '    test "$path" = "$argv[1]"',
    "end",
    `complete -c ${tool} -f`,
  ];
  for (const e of entries(root)) {
    const cond = sq(`${at} ${sq(e.path)}`);
    for (const c of e.commands) lines.push(`complete -c ${tool} -n ${cond} -a ${sq(c.name)} -d ${sq(c.short)}`);
    for (const f of e.flags.filter((x) => x.startsWith("--"))) lines.push(`complete -c ${tool} -n ${cond} -l ${sq(f.slice(2))}`);
  }
  return lines.join("\n") + "\n";
}

/** A single-quoted PowerShell string ('' stands for '). */
const q = (s: string) => `'${s.replace(/'/g, "''")}'`;

function powershell(tool: string, root: CommandNode): string {
  const table = entries(root)
    .map((e) => `  ${q(e.path)} = @(${[...e.commands.map((c) => c.name), ...e.flags].map(q).join(", ")})`)
    .join("\n");
  return `# powershell completion for ${tool}
$__${ident(tool)}Words = @{
${table}
}
Register-ArgumentCompleter -Native -CommandName ${q(tool)} -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $typed = @($commandAst.CommandElements | Select-Object -Skip 1 | ForEach-Object { $_.ToString() } | Where-Object { $_ -notlike '-*' -and $_ -ne $wordToComplete })
  $words = $__${ident(tool)}Words[($typed -join ' ')]
  $words | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_) }
}
`;
}

/** The completion script of one shell for the program rooted at `root`. */
export function completionScript(shell: Shell, root: CommandNode): string {
  const tool = root.name;
  switch (shell) {
    case "bash":
      return bash(tool, root);
    case "zsh":
      return zsh(tool, root);
    case "fish":
      return fish(tool, root);
    case "powershell":
      return powershell(tool, root);
  }
}
