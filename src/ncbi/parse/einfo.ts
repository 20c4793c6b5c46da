/**
 * EInfo XML (eInfoResult, DTDs 2002 and 2019) → EInfoResult for `einfo?db=<name>`, and the
 * database list for a bare `einfo` call.
 */
import { UpstreamError } from "../../errors.js";
import type { EInfoResult } from "../types.js";
import {
  child,
  childText,
  childTexts,
  children,
  parseEutilsXml,
  throwOnErrors,
  toInt,
} from "./common.js";

const UTILITY = "EInfo";

export function parseEInfo(xml: string): EInfoResult {
  const root = parseEutilsXml(xml, UTILITY, "eInfoResult");
  throwOnErrors(root, UTILITY);
  const info = child(root, "DbInfo");
  const dbName = childText(info, "DbName");
  if (dbName === null) {
    // A DbList here means the request lacked db=; either way the reply does not answer it.
    const what = child(root, "DbList") !== undefined ? "a database list (DbList)" : "no DbInfo";
    throw new UpstreamError(
      `NCBI returned an unexpected ${UTILITY} reply (${what} where one database's DbInfo was expected); retry the call with a db.`,
      { utility: UTILITY },
    );
  }
  return {
    dbName,
    description: childText(info, "Description"),
    count: toInt(childText(info, "Count")),
    lastUpdate: childText(info, "LastUpdate"),
    fields: children(child(info, "FieldList"), "Field").map((f) => ({
      name: childText(f, "Name") ?? "",
      fullName: childText(f, "FullName") ?? "",
      description: childText(f, "Description") ?? "",
    })),
    links: children(child(info, "LinkList"), "Link").map((l) => ({
      name: childText(l, "Name") ?? "",
      menu: childText(l, "Menu") ?? "",
      description: childText(l, "Description") ?? "",
      dbTo: childText(l, "DbTo") ?? "",
    })),
  };
}

/** Database names from a bare `einfo` call (eInfoResult/DbList/DbName). */
export function parseEInfoDbList(xml: string): string[] {
  const root = parseEutilsXml(xml, UTILITY, "eInfoResult");
  throwOnErrors(root, UTILITY);
  const list = child(root, "DbList");
  if (list === undefined) {
    throw new UpstreamError(
      `NCBI returned an unexpected ${UTILITY} reply (no DbList); retry the call.`,
      { utility: UTILITY },
    );
  }
  return childTexts(list, "DbName").filter((n) => n !== "");
}
