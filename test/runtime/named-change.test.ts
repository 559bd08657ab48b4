// Which operationIds of GET operations name a change (named-change.ts), on ids from the APIs.guru directory's documents.

import assert from "node:assert/strict";
import { test } from "node:test";
import { namedChange } from "../../src/runtime/openapi/named-change.js";

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
  ]) {
    assert.equal(namedChange(id), undefined, String(id));
  }
});
