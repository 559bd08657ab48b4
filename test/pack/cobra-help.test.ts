// What a cobra CLI's help and completion say (cobra-help.ts), on help texts printed by docker 28, kubectl 1.32, gh 2.23, rclone and lxc 5.0.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseCompletions, parseGlobalFlags, parseHelp, variablesNamed } from "../../src/pack/cobra-help.js";
import { fixture } from "../e2e/helpers.js";

const text = (name: string) => readFileSync(fixture(`cobra/${name}`), "utf8");

test("pflag's layout (docker container ls): a flag without a type word is a bool, wrapped text joins, a default is taken only when it is one", () => {
  const help = parseHelp(text("docker-container-ls.txt"));
  assert.equal(help.usage, "docker container ls [OPTIONS]");
  assert.equal(help.summary, "List containers");
  assert.deepEqual(help.aliases, ["docker container ls", "docker container list", "docker container ps", "docker ps"]);
  const byName = Object.fromEntries(help.flags.map((f) => [f.name, f]));
  assert.deepEqual(Object.keys(byName), ["all", "filter", "format", "last", "latest", "no-trunc", "quiet", "size"]);
  assert.deepEqual(byName["all"], { name: "all", shorthand: "a", usage: "Show all containers (default shows just running)", default: "", type: "bool", required: false });
  assert.deepEqual(byName["last"], { name: "last", shorthand: "n", usage: "Show n last created containers (includes all states)", default: "-1", type: "int", required: false });
  // docker's `filter` is given once per condition (`-f status=exited -f name=web`).
  assert.equal(byName["filter"]!.type, "stringArray");
  assert.match(byName["format"]!.usage, /^Format output using a custom template: 'table': +Print output in table format with column headers \(default\) .* templates$/);
});

test("a summary the help wraps (restic's root) is its whole sentence; one that ends its line stays one line", () => {
  const restic = parseHelp(["", "restic is a backup program which allows saving multiple revisions of files and", "directories in an encrypted repository stored on different backends.", "", "Usage:", "  restic [command]", ""].join("\n"));
  assert.equal(restic.summary, "restic is a backup program which allows saving multiple revisions of files and directories in an encrypted repository stored on different backends.");
  const hugo = parseHelp(["hugo is the main command, used to build your Hugo site.", "", "Hugo is a Fast and Flexible Static Site Generator", "built with love by spf13 and friends in Go.", "", "Usage:", "  hugo [flags]", ""].join("\n"));
  assert.equal(hugo.summary, "hugo is the main command, used to build your Hugo site.");
});

test("a flag given once per value is a list: pflag's slices, arrays and maps, docker's list, map and filter, and a text flag whose help says it may be given more than once; pflag's float is a float64", () => {
  const help = parseHelp(
    [
      "Usage:",
      "  tool run [flags]",
      "",
      "Flags:",
      "  -e, --env list                  Set environment variables",
      "      --annotation map            Add an annotation",
      "      --label stringToString      User-defined labels (default [])",
      "      --ports intSlice            Ports to open",
      "      --weights float64s          Weights",
      "      --tag taglist               only consider snapshots including tag[,tag,...] (can be specified multiple times)",
      "      --host host                 only consider snapshots for this host (can be specified multiple times)",
      "      --ratio float               Rollback failure ratio",
      "      --cpu-shares int            CPU shares (relative weight) (can be repeated)",
      "      --name string               Assign a name to the container",
      "  -h, --help                      help for run",
      "",
    ].join("\n"),
  );
  const types = Object.fromEntries(help.flags.map((f) => [f.name, f.type]));
  assert.deepEqual(types, { env: "stringArray", annotation: "stringArray", label: "stringArray", ports: "stringArray", weights: "stringArray", tag: "stringArray", host: "stringArray", ratio: "float64", "cpu-shares": "int", name: "string" });
});

test("kubectl's layout (kubectl config view): --name=default: and the text under it; the global options are not the command's", () => {
  const help = parseHelp(text("kubectl-config-view.txt"));
  assert.equal(help.usage, "kubectl config view [flags] [options]");
  assert.deepEqual(help.aliases, []);
  const byName = Object.fromEntries(help.flags.map((f) => [f.name, f]));
  assert.deepEqual(byName["output"], { name: "output", shorthand: "o", usage: "Output format. One of: (json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file).", default: "yaml", type: "string", required: false });
  assert.deepEqual(byName["merge"], { name: "merge", shorthand: "", usage: "Merge the full hierarchy of kubeconfig files", default: "true", type: "bool", required: false });
  assert.equal(byName["template"]!.default, "");
  assert.ok(!("kubeconfig" in byName) && !("server" in byName) && !("help" in byName));
  // Its last line sends the reader to `kubectl options` for them.
  assert.deepEqual(help.globalFlagsCommand, ["options"]);
  assert.equal(parseHelp(text("docker-container-ls.txt")).globalFlagsCommand, undefined);
});

test("kubectl options: the flags of every command, in kubectl's layout", () => {
  const flags = parseGlobalFlags(text("kubectl-options.txt"));
  const byName = Object.fromEntries(flags.map((f) => [f.name, f]));
  assert.equal(flags.length, 27);
  assert.deepEqual(byName["namespace"], { name: "namespace", shorthand: "n", usage: "If present, the namespace scope for this CLI request", default: "", type: "string", required: false });
  assert.deepEqual(byName["as-group"], { name: "as-group", shorthand: "", usage: "Group to impersonate for the operation, this flag can be repeated to specify multiple groups.", default: "", type: "stringSlice", required: false });
  assert.ok("server" in byName && "context" in byName && "token" in byName && "kubeconfig" in byName);
  assert.deepEqual(parseGlobalFlags(text("kubectl-config-view.txt")), [], "a command's help is not the list");
});

test("rclone's layout: a command's help names `rclone help flags`, whose Global Flags are every command's (not its Backend Flags)", () => {
  const lsf = parseHelp(text("rclone-lsf.txt"));
  assert.deepEqual(lsf.globalFlagsCommand, ["help", "flags"]);
  assert.deepEqual(lsf.inherited, [], "its help shows no global flag");
  // hcp init runs the command named: only the sentences kubectl and rclone write name one, and only one of flags.
  for (const line of ['Use "tool config reset" for a list of global command-line options.', 'Use "tool config reset" for a clean global configuration.', 'Use "tool delete flags now" to see the global flags.']) {
    assert.equal(parseHelp(`Usage:\n  tool [command]\n\n${line}\n`).globalFlagsCommand, undefined, line);
  }
  assert.deepEqual(parseHelp('Usage:\n  tool [command]\n\nUse "tool flags" to see the global flags.\n').globalFlagsCommand, ["flags"]);
  const flags = parseGlobalFlags(text("rclone-help-flags.txt"));
  const byName = Object.fromEntries(flags.map((f) => [f.name, f]));
  assert.equal(flags.length, 151);
  assert.deepEqual(byName["include"], { name: "include", shorthand: "", usage: "Include files matching pattern", default: "", type: "stringArray", required: false });
  assert.deepEqual(byName["max-depth"], { name: "max-depth", shorthand: "", usage: "If set limits the recursion depth to this", default: "-1", type: "int", required: false });
  assert.deepEqual(byName["dry-run"], { name: "dry-run", shorthand: "n", usage: "Do a trial run with no permanent changes", default: "", type: "bool", required: false });
  assert.ok("config" in byName && "files-from" in byName && !("help" in byName));
  assert.ok(!flags.some((f) => f.name.startsWith("s3-")), "a backend's flags are not global ones");
});

test("docker's root: its Global Options are the whole CLI's, apart from a command's own", () => {
  const help = parseHelp(text("docker.txt"));
  assert.deepEqual(help.flags, []);
  assert.deepEqual(help.inherited.map((f) => f.name), ["config", "context", "debug", "host", "log-level", "tls", "tlscacert", "tlscert", "tlskey", "tlsverify", "version"]);
  assert.equal(help.inherited.find((f) => f.name === "context")!.usage, 'Name of the context to use to connect to the daemon (overrides DOCKER_HOST env var and default context set with "docker context use")');
});

test("gh's layout: USAGE and FLAGS without a colon, a value named as the flag likes; INHERITED FLAGS apart", () => {
  const help = parseHelp(text("gh-issue-list.txt"));
  assert.equal(help.usage, "gh issue list [flags]");
  assert.equal(help.summary, "List issues in a GitHub repository.");
  const byName = Object.fromEntries(help.flags.map((f) => [f.name, f]));
  assert.deepEqual(byName["limit"], { name: "limit", shorthand: "L", usage: "Maximum number of issues to fetch", default: "30", type: "int", required: false });
  assert.deepEqual(byName["state"], { name: "state", shorthand: "s", usage: "Filter by state: {open|closed|all}", default: "open", type: "string", required: false });
  assert.deepEqual([byName["label"]!.type, byName["json"]!.type, byName["web"]!.type], ["stringSlice", "fields", "bool"]);
  assert.ok(!("repo" in byName) && !("help" in byName), Object.keys(byName).join(" "));
  assert.deepEqual(help.inherited.map((f) => [f.name, f.shorthand]), [["repo", "R"]]);
});

test("a flag whose value has a name of its own is a flag, not the text of the one before it", () => {
  const help = parseHelp(["Usage:", "  tool get [flags]", "", "Flags:", "  -w, --web                      Open the browser", "  -R, --repo [HOST/]OWNER/REPO   Select another repository", ""].join("\n"));
  assert.deepEqual(help.flags.map((f) => [f.name, f.type, f.usage]), [["web", "bool", "Open the browser"], ["repo", "[HOST/]OWNER/REPO", "Select another repository"]]);
});

test("cobra's default layout: the Flags: section is the command's own, Global Flags: apart", () => {
  const help = parseHelp(["Show one item", "", "Usage:", "  tool item get NAME [flags]", "", "Flags:", "  -h, --help          help for get", "      --limit int     How many (default 5)", "", "Global Flags:", "      --token string   The token", ""].join("\n"));
  assert.equal(help.usage, "tool item get NAME [flags]");
  assert.deepEqual(help.flags.map((f) => [f.name, f.type, f.default]), [["limit", "int", "5"]]);
  assert.deepEqual(help.inherited.map((f) => [f.name, f.type]), [["token", "string"]]);
});

test("a help lists subcommands under a heading (cobra's and kubectl's Available Commands:, docker's Commands:, gh's AVAILABLE COMMANDS); a leaf's help does not, even when its summary speaks of commands", () => {
  const lists = (name: string) => parseHelp(text(name)).listsCommands;
  assert.deepEqual(["kubectl-config.txt", "docker-container.txt", "gh-extension.txt"].map(lists), [true, true, true]);
  assert.deepEqual(["kubectl-config-view.txt", "docker-container-ls.txt", "gh-issue-list.txt", "gh-extension-list.txt"].map(lists), [false, false, false, false]);
  assert.equal(parseHelp(text("gh-extension-list.txt")).summary, "List installed extension commands");
});

test("a completion: entries until the :DIRECTIVE line, active help left out; anything else is not one", () => {
  assert.deepEqual(parseCompletions("get\tDisplay one or many resources\nlogs\n_activeHelp_ a hint\n:4\n"), [
    { name: "get", description: "Display one or many resources" },
    { name: "logs", description: "" },
  ]);
  assert.deepEqual(parseCompletions(":0\n"), []);
  assert.equal(parseCompletions("__complete \n"), undefined);
  assert.equal(parseCompletions(""), undefined);
});

test("the variables a flag's text names: restic's $NAME defaults, skopeo's ${NAME} and NAME environment variable, docker's NAME env var; not a word in capitals", () => {
  assert.deepEqual(variablesNamed("repository to backup to or restore from (default: $RESTIC_REPOSITORY)"), ["RESTIC_REPOSITORY"]);
  assert.deepEqual(variablesNamed("path of the authentication file. Default is ${XDG_RUNTIME_DIR}/containers/auth.json"), ["XDG_RUNTIME_DIR"]);
  assert.deepEqual(variablesNamed("path of the authentication file. Use REGISTRY_AUTH_FILE environment variable to override"), ["REGISTRY_AUTH_FILE"]);
  assert.deepEqual(variablesNamed("the kubeconfig, else the environment variable KUBECONFIG"), ["KUBECONFIG"]);
  const docker = parseHelp(text("docker.txt")).inherited.flatMap((f) => variablesNamed(f.usage));
  assert.deepEqual(docker, ["DOCKER_HOST"]);
  assert.deepEqual(variablesNamed("Output format: JSON or YAML (default JSON), a $ sign alone"), []);
});

test("etcdctl's layout (etcdctl get): --name=default, a bool's [=false], tabs, then its text, one flag a line; GLOBAL OPTIONS apart", () => {
  const help = parseHelp(text("etcdctl-get.txt"));
  const byName = Object.fromEntries(help.flags.map((f) => [f.name, f]));
  assert.deepEqual(Object.keys(byName), ["consistency", "from-key", "keys-only", "limit", "order", "prefix", "print-value-only", "rev", "sort-by"]);
  assert.deepEqual(byName["limit"], { name: "limit", shorthand: "", usage: "Maximum number of results", default: "0", type: "int", required: false });
  assert.deepEqual(byName["consistency"], { name: "consistency", shorthand: "", usage: "Linearizable(l) or Serializable(s)", default: "l", type: "string", required: false });
  // One tab after a bool's default: its own flag, never the text of the one before.
  assert.deepEqual(byName["print-value-only"], { name: "print-value-only", shorthand: "", usage: 'Only write values when using the "simple" output format', default: "false", type: "bool", required: false });
  assert.equal(byName["prefix"]!.usage, "Get keys with matching prefix");
  const global = Object.fromEntries(help.inherited.map((f) => [f.name, f]));
  assert.deepEqual(global["write-out"], { name: "write-out", shorthand: "w", usage: "set the output format (fields, json, protobuf, simple, table)", default: "simple", type: "string", required: false });
  assert.equal(global["endpoints"]!.type, "stringSlice");
  assert.equal(global["insecure-transport"]!.default, "true");
});

test("a value named in words its text quotes (rclone's --vfs-used-is-size rclone size) is a flag of its own, typed as text, never glued to the one before", () => {
  const help = parseHelp(
    [
      "Usage:",
      "  rclone mount remote:path /path/to/mountpoint [flags]",
      "",
      "Flags:",
      "      --vfs-read-wait duration                 Time to wait for in-sequence read before seeking (default 20ms)",
      "      --vfs-used-is-size rclone size           Use the rclone size algorithm for Used size",
      "      --vfs-write-back duration                Time to writeback files after last use when using cache (default 5s)",
      "",
    ].join("\n"),
  );
  assert.deepEqual(
    help.flags.map((f) => [f.name, f.type, f.usage, f.default]),
    [
      ["vfs-read-wait", "duration", "Time to wait for in-sequence read before seeking", "20ms"],
      ["vfs-used-is-size", "string", "Use the rclone size algorithm for Used size", ""],
      ["vfs-write-back", "duration", "Time to writeback files after last use when using cache", "5s"],
    ],
  );
});

test("a help that starts with a heading of its own (lxc 5.0's Description:) has its summary under it, never the heading", () => {
  assert.equal(parseHelp(text("lxc.txt")).summary, "Command line client for LXD");
  const list = parseHelp(text("lxc-network-list.txt"));
  assert.equal(list.summary, "List available networks");
  assert.equal(list.usage, "lxc network list [<remote>:] [flags]");
});

test("a help's description: its text from the summary to the next heading, on one line (gh's, with a sentence ending in a colon; etcdctl's NAME:; kubectl's Examples:; docker's, under its Usage: line)", () => {
  assert.equal(
    parseHelp(text("gh-issue-list.txt")).description,
    "List issues in a GitHub repository. The search query syntax is documented here: <https://docs.github.com/en/search-github/searching-on-github/searching-issues-and-pull-requests> For more information about output formatting flags, see `gh help formatting`.",
  );
  assert.equal(parseHelp(text("etcdctl-get.txt")).description, "get - Gets the key or a range of keys");
  assert.equal(parseHelp(text("kubectl-config-view.txt")).description, "Display merged kubeconfig settings or a specified kubeconfig file. You can use --output jsonpath={...} to extract specific values using a jsonpath expression.");
  assert.equal(parseHelp(text("docker-container-ls.txt")).description, "List containers");
  assert.equal(parseHelp(text("lxc-network-list.txt")).description, "List available networks");
});

test("a flag whose usage names its value a count (restic's `--keep-last n`, pflag's type word `n`) takes an integer, or text (restic's unlimited)", () => {
  const help = parseHelp(["Usage:", "  restic forget [flags] [snapshot ID] [...]", "", "Flags:", "  -l, --keep-last n            keep the last n snapshots (use 'unlimited' to keep all snapshots)", "      --keep-within duration   keep snapshots that are newer than duration", "      --max-count num          at most num snapshots", ""].join("\n"));
  const byName = Object.fromEntries(help.flags.map((f) => [f.name, f.type]));
  assert.deepEqual(byName, { "keep-last": "countOrText", "keep-within": "duration", "max-count": "countOrText" });
});
