/**
 * Reply-body checks on NCBI's own recorded bodies (../shared) and on the quoted ones in
 * ../shared/fixtures/eutils/ERRORS.md.
 */
import { describe, expect, it } from "@jest/globals";
import { runInNewContext } from "node:vm";
import {
  expectedFormat,
  inspectBody,
  replyMessage,
  retryAfterMs,
  rootLevelErrors,
} from "../../src/ncbi/detect.js";
import { describeShared, eutilsFixture } from "../helpers/shared.js";

describeShared("recorded bodies", () => {
  it.each([
    [
      "biopython/Entrez/epost2.xml",
      { kind: "entrez-error", message: "Invalid db name specified: nothing" },
    ],
    [
      "biopython/Entrez/epost3.xml",
      {
        kind: "entrez-error",
        message:
          "Empty ID list; Nothing to store; Some IDs have invalid value and were omitted. Maximum ID value 18446744073709551615",
      },
    ],
    [
      "biopython/Entrez/esummary8.xml",
      { kind: "entrez-error", message: "Neither query_key nor id specified" },
    ],
    [
      "Eutils-JSON/samples/einfo.error.xml",
      { kind: "entrez-error", message: "Can not retrieve DbInfo for db=fleegle" },
    ],
    [
      "biopython/Entrez/einfo4.xml",
      { kind: "truncated", detail: "a truncated reply (no closing </eInfoResult>)" },
    ],
    ["biopython/Entrez/pubmed3.html", { kind: "html" }],
    ["biopython/Entrez/esearch8.xml", { kind: "ok" }],
    ["Eutils-JSON/samples/esearch.error.xml", { kind: "ok" }],
    ["Eutils-JSON/samples/esummary.pmcerror.xml", { kind: "ok" }],
    ["metapub/pmid_xml/37909814.xml", { kind: "ok" }],
  ])("%s", (path, verdict) => {
    expect(inspectBody(eutilsFixture(path), "xml")).toEqual(verdict);
  });
});

describe("quoted bodies", () => {
  it("recognises both rate-limit bodies whatever format was asked for", () => {
    for (const body of [
      '{"error":"API rate limit exceeded","count":"11"}',
      '{"error":"API rate limit exceeded","api-key":"203.0.113.7","count":"4","limit":"3"}',
    ]) {
      for (const format of ["xml", "json", "text"] as const) {
        expect(inspectBody(body, format)).toEqual({ kind: "rate-limit" });
      }
    }
  });

  it("keeps per-uid JSON errors for the parser and refuses a top-level one", () => {
    const perUid =
      '{"header":{"type":"esummary","version":"0.3"},"result":{"uids":["99999999"],"99999999":{"uid":"99999999","error":"cannot get document summary"}}}';
    const tooMany =
      '{"header":{"type":"esummary","version":"0.3"},"error":"Too many UIDs in request. Maximum number of UIDs is 500 for JSON format output."}';
    expect(inspectBody(perUid, "json")).toEqual({ kind: "ok" });
    expect(inspectBody(tooMany, "json")).toEqual({
      kind: "entrez-error",
      message: "Too many UIDs in request. Maximum number of UIDs is 500 for JSON format output.",
    });
    expect(inspectBody(perUid.slice(0, 80), "json").kind).toBe("truncated");
  });
});

describe("XML shape", () => {
  it("only a root-level <ERROR> counts; a nested one belongs to the parser", () => {
    const nested =
      "<eLinkResult><LinkSet><DbFrom>pubmed</DbFrom><ERROR>Invalid uid 0</ERROR></LinkSet></eLinkResult>";
    expect(rootLevelErrors(nested)).toEqual([]);
    expect(inspectBody(nested, "xml")).toEqual({ kind: "ok" });
    expect(
      rootLevelErrors("<eLinkResult><ERROR>Invalid uid &lt;0&gt;</ERROR></eLinkResult>"),
    ).toEqual(["Invalid uid <0>"]);
  });

  it("accepts a self-closing root and rejects non-XML and empty replies", () => {
    expect(inspectBody('<?xml version="1.0"?>\n<eSpellResult/>\n', "xml")).toEqual({ kind: "ok" });
    expect(inspectBody("Error: something", "xml").kind).toBe("truncated");
    expect(inspectBody("   ", "xml")).toEqual({ kind: "truncated", detail: "an empty reply" });
    expect(inspectBody("1|2|3|\n", "text")).toEqual({ kind: "ok" });
    // Every utility answers something: an empty text reply (ECitMatch, MEDLINE) is a failure too.
    expect(inspectBody("", "text")).toEqual({ kind: "truncated", detail: "an empty reply" });
    expect(inspectBody(" \n", "json")).toEqual({ kind: "truncated", detail: "an empty reply" });
    // No catastrophic backtracking: a pattern like `(\s+)*` never returns on this input (2^8000
    // paths). The watchdog ends such a run with an error; the linear pattern takes microseconds.
    const junk = () => inspectBody(`${" ".repeat(8000)}x`, "xml").kind;
    expect(runInNewContext("junk()", { junk }, { timeout: 30_000 })).toBe("truncated");
  });
});

describe("helpers", () => {
  it("knows the expected format of each reply", () => {
    expect(expectedFormat("ecitmatch", { retmode: "xml" })).toBe("text");
    expect(expectedFormat("esearch", { retmode: "json" })).toBe("json");
    expect(expectedFormat("efetch", { rettype: "medline" })).toBe("text");
    expect(expectedFormat("efetch", { rettype: "abstract", retmode: "xml" })).toBe("xml");
    expect(expectedFormat("esummary", {})).toBe("xml");
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2024-05-01T12:00:00Z");
    expect(retryAfterMs("2", now)).toBe(2000);
    expect(retryAfterMs("Wed, 01 May 2024 12:00:03 GMT", now)).toBe(3000);
    expect(retryAfterMs("Wed, 01 May 2024 11:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it("quotes NCBI briefly in 4xx messages, never an HTML page", () => {
    expect(replyMessage('{"error":"API key invalid","api-key":"x"}')).toBe("API key invalid");
    expect(replyMessage("<eSearchResult><ERROR>bad  query</ERROR></eSearchResult>")).toBe(
      "bad query",
    );
    expect(replyMessage("<html><body>Oops</body></html>")).toBeUndefined();
    expect(replyMessage("x".repeat(300))).toHaveLength(201);
  });
});
