// `rungrad new <name>`: scaffold a TypeScript CLI on the rungrad framework (§e), as a framework CommandSpec.

import { basename } from "node:path";
import type { CommandSpec, Context } from "../../framework/index.js";
import { invalid } from "../../scaffold/errors.js";
import type { ScaffoldOptions } from "../../scaffold/index.js";
import { DEFAULT_RUNGRAD_DEPENDENCY } from "../../scaffold/toolchain.js";
import { shellWord } from "../../shell-word.js";

/** Flags meaningful only with --product-profile, in the order the Changed gate reports them. */
const PRODUCT_FLAGS = [
  "env-prefix", "product-name", "description", "service", "metadata-namespace", "surface",
  "release-owner", "release-repo", "docs-label", "example", "skill",
] as const;

/** The options a parsed invocation asks for, after the CLI-only checks (pflag's Changed bit). */
function optionsFrom(ctx: Context): ScaffoldOptions {
  const productProfile = ctx.bool("product-profile");
  if (!productProfile) {
    // Values cannot tell an omitted flag from `--surface=` or `--skill=false`: the Changed bit can.
    const given = PRODUCT_FLAGS.find((f) => ctx.changed(f));
    if (given) throw invalid(`--${given} requires --product-profile`);
  } else {
    if (ctx.changed("service") && ctx.strings("service").every((v) => v === "")) throw invalid("service must be name=url");
    if (ctx.changed("example") && ctx.strings("example").every((v) => v === "")) throw invalid("example must not be empty");
  }
  return {
    name: ctx.args[0]!,
    package: ctx.string("package"),
    rungradDependency: ctx.string("rungrad-dependency"),
    productProfile,
    skill: ctx.bool("skill"),
    envPrefix: ctx.string("env-prefix"),
    productName: ctx.string("product-name"),
    description: ctx.string("description"),
    docsLabel: ctx.string("docs-label"),
    services: ctx.strings("service"),
    metadataNamespace: ctx.string("metadata-namespace"),
    surface: ctx.string("surface"),
    releaseOwner: ctx.string("release-owner"),
    releaseRepo: ctx.string("release-repo"),
    examples: ctx.strings("example"),
  };
}

/** Which rungrad the generated package.json depends on, and why. */
function dependencyNote(given: string | undefined): string {
  if (given) return `rungrad dependency: ${given} (--rungrad-dependency)`;
  const { spec, source } = DEFAULT_RUNGRAD_DEPENDENCY;
  return source === "local"
    ? `rungrad dependency: ${spec} (this rungrad is not installed from a registry, so the project uses its folder)`
    : `rungrad dependency: ${spec} (the version of this rungrad)`;
}

function nextSteps(root: string): string {
  const main = "node dist/src/main.js";
  return [
    "",
    "Next steps:",
    `  cd ${shellWord(root)}`,
    "  npm install",
    "  npm run build",
    "  npm test",
    `  ${main} widget list`,
    "  npx rungrad score ./dist/src/main.js --auto-probes",
    // The package that gives rungrad gives hcp too: the step from a CLI to agents using it (docs/scaffold.md).
    `  npx hcp init --from-exe ./dist/src/main.js --out ${shellWord(`../${basename(root)}-pack`)}   # a harness pack, to serve it to agents`,
  ].join("\n");
}

export const newCommand: CommandSpec = {
  use: "new <name>",
  short: "Scaffold a new rungrad CLI",
  examples: [
    "rungrad new mytool",
    "rungrad new mytool --package @me/mytool",
    'rungrad new acmectl --product-profile --env-prefix ACME --product-name "Acme Control"',
    "rungrad new acmectl --product-profile --skill",
  ],
  related: ["rungrad score"],
  outputModes: ["table", "json"],
  mutates: true,
  globals: ["quiet"],
  args: { exact: 1 },
  flags: [
    { name: "package", type: "string", usage: "npm package name (default <name>)" },
    { name: "rungrad-dependency", type: "string", usage: "npm dependency spec for rungrad in the generated package.json (default: this rungrad's exact version, or file:<its folder> when it is not installed from a registry)" },
    { name: "dir", type: "string", default: ".", usage: "Parent directory to create the project in" },
    { name: "product-profile", type: "bool", usage: "Generate the expanded product CLI scaffold" },
    { name: "env-prefix", type: "string", usage: "Environment-variable prefix for the product profile (default derived from the name)" },
    { name: "product-name", type: "string", usage: "Human product name (AppConfig.Short)" },
    { name: "description", type: "string", usage: "Product description (AppConfig.Long)" },
    { name: "service", type: "stringArray", usage: "Service endpoint as name=url (repeatable; product profile)" },
    { name: "metadata-namespace", type: "string", usage: "Manifest extension namespace, e.g. example.com/acme" },
    { name: "surface", type: "string", usage: "Global-flag surface ownership: rungrad (default) or host" },
    { name: "release-owner", type: "string", usage: "Release owner placeholder (commented example only)" },
    { name: "release-repo", type: "string", usage: "Release repo placeholder (commented example only)" },
    { name: "docs-label", type: "string", usage: "Docs/README title (default: product name)" },
    { name: "example", type: "stringArray", usage: 'Extra command example, e.g. "<tool> widget list" (repeatable; product profile)' },
    { name: "skill", type: "bool", usage: "Generate repository-scoped agent skill files for the product profile" },
  ],
  run: async (ctx) => {
    const options = optionsFrom(ctx);
    // The generator (templates, manifest, skill renderer) loads only when `new` runs.
    const { generate, projectRoot, writeProject } = await import("../../scaffold/index.js");
    const dir = ctx.string("dir");
    if (ctx.dryRun) {
      const project = generate(options);
      const files = project.files.map((f) => f.path);
      const model = { dir: projectRoot(dir, project.settings.name), files };
      await ctx.writeResult(model, () => `DRY RUN: would scaffold ${project.settings.name} with ${files.length} files\n` + files.map((p) => `  ${p}\n`).join(""));
      return;
    }
    const root = await writeProject(dir, options);
    await ctx.writeResult({ created: root }, () => `Created ${root}\n`);
    // stdout stays Go's; what a person needs next goes to stderr (silent under --json and --quiet).
    ctx.infof(dependencyNote(options.rungradDependency));
    ctx.infof(nextSteps(root));
  },
};
