// Which flags of a cobra CLI's read verbs open a file the agent would name, run a program or start the browser, by
// their help's words (real CLIs' texts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileChoices, opensBrowser, opensFile, refusingChoices, runsProgram } from "../../src/pack/file-flags.js";

const flag = (usage: string, type = "string") => ({ name: "x", shorthand: "", usage, default: "", type, required: false });

test("a flag opens a file when its text says its value is one: a file name, a path to or of one, output to a file, a given file, a directory, PATH or DIRECTORY", () => {
  for (const usage of [
    "Filename, directory, or URL to files identifying the resource to get from a server.", // kubectl get -f
    "Process the kustomization directory. This flag can't be used together with -f or -R.", // kubectl -k
    "Template string or path to template file to use when -o=go-template, -o=go-template-file.", // kubectl --template
    "Path of the authentication file. Use REGISTRY_AUTH_FILE environment variable to override", // podman --authfile
    "Output hashsums to a file rather than the terminal", // rclone md5sum --output-file
    "Output to file instead of stdout", // rclone tree --output
    "Write results to file", // rclone test info --write-json
    "Validate hashes against a given SUM file instead of printing them", // rclone md5sum --checkfile
    "use certificates at PATH (*.crt, *.cert, *.key) to connect to the registry or daemon", // skopeo --cert-dir
    "DIRECTORY to use to share blobs across OCI repositories", // skopeo --shared-blob-dir
    "Use a custom checkpoint storage directory", // docker checkpoint ls --checkpoint-dir
    "Configuration file", // caddy --config
    "file to write the image ID to", // buildah --iidfile
    "File containing the PEM encoded private key for the certificate", // hcloud --key-file
    "Pathname of a YAML file containing a kubernetes configmap", // podman --configmap
    "Read in a file of environment variables", // docker --env-file
    "Read from tar archive file, instead of STDIN", // docker load --input
    "Identify secure client using this TLS certificate file", // etcdctl --cert
    "log memory usage to this file", // hugo --memstats
    "If specified, write output to this path.", // kubectl cluster-info dump --output-directory
    "The file to write a single asset to", // gh release download --output
  ]) {
    assert.equal(opensFile(flag(usage)), true, usage);
  }
  for (const usage of [
    "Exclude files matching pattern", // rclone's filters narrow which files, they name none
    "Add a file-filtering rule",
    "Only transfer files younger than this in s or suffix ms|s|m|h|d|w|M|y",
    "Raw URI to request from the server.  Uses the transport specified by the kubeconfig file.", // a path on kubectl's server
    "Lines of recent log file to display.", // kubectl logs --tail
    "The branch or tag name which contains the version of the workflow file you'd like to view", // gh workflow view --ref
    "only consider snapshots which include this (absolute) path", // restic --path, a filter
    "only consider snapshots for this path (can be specified multiple times)",
    "counting mode: restore-size (default), files-by-contents, blobs-per-file or raw-data", // restic stats --mode
    "Display a single file from the gist", // gh gist view --filename: the gist's
    "Format output using a custom template", // docker --format
    "Descend only level directories deep", // rclone tree --level
    "maximum # of files to delete, or -1 to disable", // hugo deploy --maxDeletes
    "set this to a poll interval, e.g --poll 700ms, to use a poll based approach to watch for file system changes", // hugo --poll
  ]) {
    assert.equal(opensFile(flag(usage)), false, usage);
  }
  // A switch names nothing.
  assert.equal(opensFile(flag("Write results to file", "bool")), false);
});

test("the choices a flag lists that name a file are found, and refused as the value or before its =, never another choice", () => {
  const output = "Output format. One of: (json, yaml, name, go-template, go-template-file, template, templatefile, jsonpath, jsonpath-as-json, jsonpath-file, custom-columns, custom-columns-file, wide). See custom columns [https://kubernetes.io/docs/reference/kubectl/#custom-columns]";
  const choices = fileChoices(output);
  assert.deepEqual(choices, ["go-template-file", "templatefile", "jsonpath-file", "custom-columns-file"]);
  assert.deepEqual(fileChoices("Use color in diff output: {always|never|auto}"), []);
  assert.deepEqual(fileChoices("counting mode: restore-size (default), files-by-contents, blobs-per-file or raw-data"), []);
  const refused = new RegExp(refusingChoices(choices).pattern as string, "u");
  for (const value of ["jsonpath-file=/home/a/.kube/config", "go-template-file", "templatefile=x", "custom-columns-file=/etc/passwd"]) assert.ok(refused.test(value), value);
  for (const value of ["json", "jsonpath={.spec.profile}", "go-template={{.metadata.name}}", "custom-columns=NAME:.metadata.name", "jsonpath-filed", "wide"]) assert.ok(!refused.test(value), value);
});

test("a flag runs a program when its text says its value is one: a command, program or script to run or use, a path to an executable or program, a shell command", () => {
  for (const usage of [
    "Command to run to check health", // docker --health-cmd
    "A program to use to create the backend from the auth", // rclone serve sftp --auth-proxy
    "helm command (path to executable)", // kubectl kustomize --helm-command
    "Path to the user-provided transformer program", // etcdctl migrate --transformer
    "shell command to obtain the source repository password from", // restic --from-password-command
    "edit new content with this editor, if provided", // hugo new --editor
  ]) {
    assert.equal(runsProgram(flag(usage)), true, usage);
  }
  for (const usage of ["Sort output by: command, created, id, image, names", "Supply password from the command line flag"]) {
    assert.equal(runsProgram(flag(usage)), false, usage);
  }
});

test("a flag starts the person's browser when its text says so (gh's --web), whatever its type", () => {
  for (const usage of ["Open a pull request in the browser", "List issues in the web browser", "Open the web browser to show details about checks", "Open the search query in the web browser"]) {
    assert.equal(opensBrowser(flag(usage, "bool")), true, usage);
  }
  for (const usage of ["Display the merge conflict status of each pull request", "Filter by repository visibility: {public|private|internal}", "Browse the files"]) {
    assert.equal(opensBrowser(flag(usage, "bool")), false, usage);
  }
});
