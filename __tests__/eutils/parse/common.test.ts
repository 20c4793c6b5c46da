import { expect, test } from "@jest/globals";
import { EntrezError, UpstreamError } from "../../../src/errors.js";
import {
  childText,
  detectJsonError,
  parseEutilsXml,
  throwOnErrors,
} from "../../../src/ncbi/parse/common.js";
import { describeShared, eutilsFixture } from "../../helpers/shared.js";

// Bodies quoted in ../shared/fixtures/eutils/ERRORS.md (known only as text, so written out here).
test("the documented rate-limit body is recognised", () => {
  expect(detectJsonError('{"error":"API rate limit exceeded","count":"11"}')).toEqual({
    rateLimited: true,
    message: "API rate limit exceeded (count 11)",
  });
});

test("the keyless rate-limit body is recognised without echoing the api-key field", () => {
  const found = detectJsonError(
    '{"error":"API rate limit exceeded","api-key":"203.0.113.7","count":"4","limit":"3"}',
  );
  expect(found).toEqual({
    rateLimited: true,
    message: "API rate limit exceeded (count 4, limit 3)",
  });
  expect(found?.message).not.toContain("203.0.113.7");
});

test("other top-level JSON errors are errors but not rate limits", () => {
  expect(
    detectJsonError(
      '{"header":{"type":"esummary","version":"0.3"},"error":"Too many UIDs in request. Maximum number of UIDs is 500 for JSON format output."}',
    ),
  ).toEqual({
    rateLimited: false,
    message: "Too many UIDs in request. Maximum number of UIDs is 500 for JSON format output.",
  });
});

test("a per-uid JSON error, XML, and junk are not JSON error bodies", () => {
  expect(
    detectJsonError(
      '{"header":{"type":"esummary","version":"0.3"},"result":{"uids":["99999999"],"99999999":{"uid":"99999999","error":"cannot get document summary"}}}',
    ),
  ).toBeNull();
  expect(detectJsonError("<eSearchResult><Count>1</Count></eSearchResult>")).toBeNull();
  expect(detectJsonError('{"error": ')).toBeNull();
  expect(detectJsonError('{"error":""}')).toBeNull();
  expect(detectJsonError("")).toBeNull();
});

describeShared("shared XML checks on recorded EPost replies", () => {
  test("one <ERROR> becomes an EntrezError with NCBI's text", () => {
    const root = parseEutilsXml(
      eutilsFixture("biopython/Entrez/epost2.xml"),
      "EPost",
      "ePostResult",
    );
    const run = () => throwOnErrors(root, "EPost");
    expect(run).toThrow(EntrezError);
    expect(run).toThrow("NCBI EPost reported an error: Invalid db name specified: nothing");
  });

  test("two <ERROR> elements are both reported", () => {
    const root = parseEutilsXml(
      eutilsFixture("biopython/Entrez/epost3.xml"),
      "EPost",
      "ePostResult",
    );
    expect(() => throwOnErrors(root, "EPost")).toThrow(
      "NCBI EPost reported an error: Empty ID list; Nothing to store; Some IDs have invalid value and were omitted. Maximum ID value 18446744073709551615",
    );
  });

  test("a good reply passes and its fields read back", () => {
    const root = parseEutilsXml(
      eutilsFixture("biopython/Entrez/epost1.xml"),
      "EPost",
      "ePostResult",
    );
    expect(() => throwOnErrors(root, "EPost")).not.toThrow();
    expect(childText(root, "QueryKey")).toBe("1");
    expect(childText(root, "WebEnv")).toBe("MCID_692851c130aec64bed0a8c2a");
  });

  test("efetch's HTML reply is an UpstreamError", () => {
    const run = () => parseEutilsXml(eutilsFixture("biopython/Entrez/pubmed3.html"), "EFetch", "x");
    expect(run).toThrow(UpstreamError);
    expect(run).toThrow(
      "NCBI returned an HTML page instead of an EFetch XML reply; retry the call.",
    );
  });
});

test("a document whose root is <ERROR> is an EntrezError", () => {
  expect(() => parseEutilsXml("<ERROR>Bad gateway id</ERROR>", "ESearch", "eSearchResult")).toThrow(
    "NCBI ESearch reported an error: Bad gateway id",
  );
});
