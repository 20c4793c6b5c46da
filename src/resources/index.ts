/**
 * The resource registry: data, not code. To add a resource, write src/resources/<name>.ts
 * exporting a `defineResource({...})` (or `defineResourceTemplate`) object and list it here.
 */
import { corpusResource } from "./corpus.js";
import { helpResource } from "./help.js";
import { infoResource } from "./info.js";
import { paperResource } from "./paper.js";
import type { ResourceDef, ResourceTemplateDef } from "./resource.js";
import { pubmedExportResource, reviewExportResource } from "./review-export.js";
import { statsResource } from "./stats.js";

export const RESOURCES: readonly ResourceDef[] = [
  helpResource,
  infoResource,
  statsResource,
  corpusResource,
];

export const RESOURCE_TEMPLATES: readonly ResourceTemplateDef[] = [
  paperResource,
  reviewExportResource,
  pubmedExportResource,
];
