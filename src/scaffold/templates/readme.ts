// The generated README.md: build, run, adding a command, endpoints and env vars, scoring, and the release placeholder.

import { toolEnvVar } from "../../framework/index.js";
import type { ScaffoldSettings } from "../options.js";

export function readmeSource(s: ScaffoldSettings): string {
  const n = s.name;
  const run = `node dist/src/main.js`;
  const intro = s.product
    ? `${s.productName} is a command-line tool built on rungrad (TypeScript), so it speaks the agent-ready CLI spec:
stable \`--json\` output, \`--dry-run\` previews, destructive confirmation, deterministic results,
self-describing help, and an offline-checkable self-update.`
    : `${n} is a starter CLI built on rungrad (TypeScript): stable \`--json\` output, \`--dry-run\` previews,
destructive confirmation, deterministic results, self-describing help, and an offline-checkable self-update.`;
  const endpoints = s.product
    ? `
## Configure endpoints

Service endpoints resolve from flags, environment variables, profile config, global config, and the
built-in defaults below.

| Service | Flag | Environment | Config key | Default |
| --- | --- | --- | --- | --- |
${s.services.map((v) => `| \`${v.name}\` | \`--${v.flag}\` | \`${v.envVar}\` | \`${v.configKey}\` | \`${v.default}\` |\n`).join("")}
The credential is read from \`${s.envVar}\`, then from the profile's entry in the credentials file.
Profile, auth-file, and config paths can be set with \`${toolEnvVar(n, "PROFILE")}\`, \`${toolEnvVar(n, "AUTH_FILE")}\`, and
\`${toolEnvVar(n, "CONFIG")}\`.
`
    : "";
  return `# ${s.docsLabel}

${intro}

## Build and run

\`\`\`bash
npm install
npm run build
npm test            # rebuilds first, then runs test/
${run} widget list
${run} widget list --json
${run} widget create gamma --dry-run
${run} widget delete alpha --dry-run
${run} update --check
\`\`\`

## Add a command

Commands are declarations in \`src/main.ts\`: a \`CommandSpec\` with \`use\`, \`short\`, \`examples\`,
\`related\`, \`outputModes\` and a \`run\` handler. To add \`${n} widget rename <name> <new-name>\`:

1. Add an entry to the \`commands\` of \`widget\` next to \`create\`: \`use: "rename <name> <new-name>"\`,
   \`args: { exact: 2 }\`, \`mutates: true\` (it changes something, so it gets \`--dry-run\`), and a \`run\`
   that calls \`ctx.writePreview(...)\` under \`ctx.dryRun\` and \`ctx.writeMutation(...)\` otherwise.
   A command that deletes data sets \`destructive: true\` and calls \`ctx.confirmDestructive(...)\`, like
   \`widget delete\`.
2. Give it \`examples\` and \`related\` commands: help, the \`__rungrad_manifest\` endpoint and agents all
   read them.
3. Add a test to \`test/main.test.ts\`, then \`npm test\` and score it again (below).

Every command gets the framework's globals (\`--json\`, \`--dry-run\`, \`--no-prompt\`, \`--quiet\`,
\`--config\`) and its exit codes; \`${run} --help\` and \`${run} widget --help\` show the result.
The framework (output modes, dry-run, confirmation, \`--template\`) is documented in
\`node_modules/rungrad/src/framework/README.md\`.
${endpoints}
## Score it against the spec

\`\`\`bash
npx rungrad score ./dist/src/main.js \\
  --read        "widget list" \\
  --mutate      "widget create demo" \\
  --destructive "widget delete alpha" \\
  --update
\`\`\`

The scaffold implements read output, a mutating dry-run, a safe destructive command, manifest metadata,
and an offline update, so those rules score. It omits the auth, name-resolution, missing-resource,
backend-error, forbidden, rate-limit, and credential-secret fixtures, which the scorer reports as
not applicable rather than as failures.

> The generated \`update\` command reports a fixed release so the project can be scored without network
> access. Before distributing real releases, replace its \`fetchLatest\` with a fetcher for the GitHub
> releases of \`${s.releaseOwner}/${s.releaseRepo}\` or equivalent release wiring.
`;
}
