// Which operationIds of GET operations name a change (named-change.ts), on ids from the APIs.guru directory's documents.

import assert from "node:assert/strict";
import { test } from "node:test";
import { namedChange, pathChange } from "../../src/runtime/openapi/named-change.js";

test("an operationId names a change by the word that names its operation in the id's style: AWS's after GET_, etherpad's first, Slack's last, Google's last part, Azure's after _", () => {
  for (const id of ["GET_DeleteStack", "GET_BatchDeleteScheduledAction", "GET_RemoveTagsFromResource", "deletePadUsingGET", "delete", "DeleteScreenshot", "datalabeling.projects.bounce.purge"]) assert.equal(namedChange(id), "removes", id);
  for (const id of [
    "GET_TerminateInstances", // AWS EC2
    "GET_RunInstances", // after the method, a word that is often a noun elsewhere is AWS's action
    "GET_RequestSpotInstances",
    "GET_AuthorizeSecurityGroupIngress",
    "GET_CreateDBCluster",
    "setTextUsingGET", // etherpad
    "sendClientsMessageUsingGET",
    "auth_revoke", // Slack
    "views_publish",
    "datalabeling.projects.operations.cancel", // Google
    "adsensehost.associationsessions.start",
    "send", // zoomconnect, an SMS
    "lockThing", // dweet.io
    "UpdateRuns_Cancel", // Azure's style
    "logoutUser", // the petstore's GET /user/logout ends the session
    "apps_uninstall", // Slack's GETs that change things
    "files_remote_share",
    "workflows_updateStep", // a snake_case id's last part in camelCase: its first word
    "views_open", // where the id's style puts its verb, a word often a noun elsewhere
    "views_push",
    "dialog_open",
    "conversations_join",
    "ml.projects.jobs.run",
  ]) {
    assert.equal(namedChange(id), "changes", id);
  }
  for (const id of [
    undefined,
    "getNote",
    "GET_DescribeInstances",
    "UpdateRuns_List", // Azure: the part after _ names the operation, not the resource before it
    "PatchSchedules_Get",
    "StopPoint_MetaCategories",
    "Get.Count.updatePolicies-27c8", // Microsoft Graph: a first part of one word names it
    "users.user.ListUser",
    "run.projects.locations.jobs.list",
    "functions_get_trigger", // DigitalOcean: a snake_case id with a word of a read reads
    "get_dag_run", // Airflow
    "domains_get_record",
    "requestNodes", // dracoon: at an id's head, request is as often a noun
    "GET_BatchGetItem",
    "retrieve_an_account_transfer",
    "GET_ChargeMetrics", // Zuora: a noun the list leaves out
    "watchAppsV1DaemonSetList", // Kubernetes: a later word is no verb
    "cmsBlockRepositoryV1GetListGet",
    "api_transport-click-send_get_collection",
    "openOrders", // at an id's head, open is as often an adjective
    "users_getPresence", // a snake_case id's camelCase last part that reads
    "postById",
  ]) {
    assert.equal(namedChange(id), undefined, String(id));
  }
});

test("an operation without an operationId is named by its path: the last segment with words outside {…}, by its first word of a read or a change", () => {
  for (const path of ["/pads/{padID}/delete", "/deletePad", "/api/1.2/removeUser", "/files/{id}/purge/{version}"]) assert.equal(pathChange(path), "removes", path);
  for (const path of [
    "/instances/{id}/reboot",
    "/v1/{name}:cancel", // Google's custom methods
    "/auth.revoke", // Slack's
    "/send_message",
    "/user/logout",
    "/messages/{id}/send-now",
    "/resetAndGet", // the first word that names either decides
  ]) {
    assert.equal(pathChange(path), "changes", path);
  }
  for (const path of ["/", "/pads/{padID}", "/pads/{padID}/text", "/getText", "/listDeleted", "/v1/users", "/search/{query}", "/getAndReset", "/{id}"]) {
    assert.equal(pathChange(path), undefined, path);
  }
});
