/**
 * PMC ID Converter: input classification and request grouping, and the recorded replies
 * (rcrossref's VCR cassettes: a DOI converted with versions[], and the HTTP 404 "ID type
 * mismatch" error). Per-id errors are written here after NCBI's documented record shape
 * (`status: "error"`, `errmsg`), as no recording of one is public.
 */
import { describe, expect, it } from "@jest/globals";
import { UpstreamError, ValidationError } from "../../src/errors.js";
import {
  classifyId,
  classifyIds,
  convertedIdSchema,
  doiOf,
  groupIdconvRequests,
  parseIdconvReply,
} from "../../src/ncbi/idconv.js";
import { cassetteReply } from "../helpers/cassette.js";
import { describeLiterature, literatureFixture } from "../helpers/shared.js";

describe("classifyId", () => {
  it("reads PMIDs, PMCIDs, DOIs and manuscript ids", () => {
    expect(classifyId("20495566")).toEqual({ input: "20495566", type: "pmid", id: "20495566" });
    expect(classifyId(20495566)).toEqual({ input: "20495566", type: "pmid", id: "20495566" });
    expect(classifyId("pmc2883744")).toMatchObject({ type: "pmcid", id: "PMC2883744" });
    expect(classifyId("2883744", "pmcid")).toMatchObject({ type: "pmcid", id: "PMC2883744" });
    expect(classifyId("NIHMS198092")).toMatchObject({ type: "mid", id: "NIHMS198092" });
    expect(classifyId("ems12345")).toMatchObject({ type: "mid", id: "EMS12345" });
    expect(classifyId("10.1038/ng.590")).toMatchObject({ type: "doi", id: "10.1038/ng.590" });
    expect(classifyId("doi:10.1038/ng.590")).toMatchObject({ type: "doi", id: "10.1038/ng.590" });
    expect(
      classifyId("https://doi.org/10.1641/0006-3568(2005)055%5B0851:POTAPF%5D2.0.CO;2"),
    ).toMatchObject({
      type: "doi",
      id: "10.1641/0006-3568(2005)055[0851:POTAPF]2.0.CO;2",
    });
  });

  it("explains what a DOI must look like", () => {
    expect(classifyId("10.12/short")).toEqual({
      input: "10.12/short",
      problem: expect.stringContaining("a DOI must look like 10.<4–9 digits>/<suffix>"),
    });
    expect(classifyId("banana")).toEqual({
      input: "banana",
      problem: expect.stringContaining("neither a PMID"),
    });
    expect(classifyId("0")).toHaveProperty("problem");
    expect(classifyId(1.5)).toHaveProperty("problem");
    expect(doiOf("https://dx.doi.org/10.1000/%E0%A4%A")).toBeNull(); // bad percent-encoding
  });
});

describe("classifyIds and groupIdconvRequests", () => {
  it("names every bad id in one VALIDATION error", () => {
    expect(() => classifyIds(["123", "x", "10.1/a"], "dois")).toThrow(ValidationError);
    expect(() => classifyIds(["123", "x", "10.1/a"], "dois")).toThrow(
      /dois\[1\] "x" is neither.*dois\[2\] "10\.1\/a" is not a DOI/,
    );
    expect(() => classifyIds([])).toThrow(/at least one/);
    expect(() => classifyIds(Array.from({ length: 201 }, (_, i) => String(i + 1)))).toThrow(
      /201 identifiers; at most 200/,
    );
  });

  it("drops duplicates and groups one id type per request", () => {
    const ids = classifyIds(["1", "PMC5", "10.1038/NG.590", "2", "10.1038/ng.590", "1", "NIHMS9"]);
    expect(ids.map((i) => i.id)).toEqual(["1", "PMC5", "10.1038/NG.590", "2", "NIHMS9"]);
    const requests = groupIdconvRequests(ids);
    expect(requests.map((r) => r.params)).toEqual([
      { ids: "1,2", idtype: "pmid", format: "json", versions: "no" },
      { ids: "PMC5", idtype: "pmcid", format: "json", versions: "no" },
      { ids: "10.1038/NG.590", idtype: "doi", format: "json", versions: "no" },
      { ids: "NIHMS9", idtype: "mid", format: "json", versions: "no" },
    ]);
  });
});

describe("parseIdconvReply (written after NCBI's documented shape)", () => {
  it("keeps per-id errors without failing the call and matches records by requested-id", () => {
    const asked = classifyIds(["31452104", "12345678"]);
    const reply = JSON.stringify({
      status: "ok",
      records: [
        {
          "requested-id": "12345678",
          pmid: "12345678",
          status: "error",
          errmsg: "Identifier not found in PMC",
        },
        { "requested-id": "31452104", pmcid: "PMC6712345", pmid: "31452104", doi: "10.1000/x.1" },
      ],
    });
    expect(parseIdconvReply(reply, asked)).toEqual([
      { input: "31452104", pmid: "31452104", pmcid: "PMC6712345", doi: "10.1000/x.1" },
      {
        input: "12345678",
        pmid: "12345678",
        status: "error",
        errmsg: "Identifier not found in PMC",
      },
    ]);
  });

  it("reports ids missing from the reply, and malformed replies as UPSTREAM", () => {
    const asked = classifyIds(["1", "2"]);
    const out = parseIdconvReply(
      JSON.stringify({ status: "ok", records: [{ "requested-id": "1", pmid: "1" }] }),
      asked,
    );
    expect(out[1]).toEqual({
      input: "2",
      status: "error",
      errmsg: "not returned by the converter",
    });
    expect(() => parseIdconvReply("<html>busy</html>", asked)).toThrow(UpstreamError);
    expect(() => parseIdconvReply('{"status":"ok"', asked)).toThrow(
      /malformed ID conversion reply/,
    );
    expect(() => parseIdconvReply('{"status":"ok"}', asked)).toThrow(/without records/);
  });
});

describeLiterature("parseIdconvReply on recorded replies", () => {
  it("converts a DOI to PMID, PMCID and the current manuscript id", () => {
    const recorded = cassetteReply(literatureFixture("rcrossref/tests/fixtures/id_converter.yml"));
    expect(recorded.status).toBe(200);
    const [converted] = parseIdconvReply(recorded.body, classifyIds(["10.1038/ng.590"]));
    expect(converted).toEqual({
      input: "10.1038/ng.590",
      pmid: "20495566",
      pmcid: "PMC2883744",
      doi: "10.1038/ng.590",
      mid: "NIHMS198092",
      versions: [
        { pmcid: "PMC2883744.1", mid: "UKMS29888" },
        { pmcid: "PMC2883744.2", mid: "NIHMS198092", current: true },
      ],
    });
    expect(convertedIdSchema.parse(converted)).toEqual(converted);
  });

  it("turns the 404 ID-type mismatch into a VALIDATION error naming the id", () => {
    const recorded = cassetteReply(
      literatureFixture("rcrossref/tests/fixtures/id_converter_fails_type_param_bad.yml"),
    );
    expect(recorded.status).toBe(404);
    const asked = [{ input: "28371833", type: "doi" as const, id: "28371833" }];
    expect(() => parseIdconvReply(recorded.body, asked)).toThrow(ValidationError);
    expect(() => parseIdconvReply(recorded.body, asked)).toThrow(
      "The PMC ID Converter rejected the identifiers: ID type 'doi' mismatch for '28371833'.",
    );
  });
});
