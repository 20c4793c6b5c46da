/**
 * Deduplication keys (src/store/review-keys.ts): identifiers in one spelling, the title key, and a
 * candidate's keys in match order.
 */
import { describe, expect, it } from "@jest/globals";
import {
  keyCandidate,
  normaliseDoi,
  normalisePmcid,
  normalisePmid,
  normalisePprid,
  normaliseText,
  recordId,
  recordIds,
  referenceKey,
  titleKey,
} from "../../src/store/review-keys.js";
import type { CandidateRecord } from "../../src/store/review-types.js";

describe("identifiers", () => {
  it("reads DOIs with any resolver prefix and case as one DOI", () => {
    for (const v of [
      "10.1000/ABC.1",
      " doi:10.1000/abc.1",
      "DOI: 10.1000/Abc.1",
      "https://doi.org/10.1000/ABC.1",
      "http://dx.doi.org/10.1000/abc.1",
      "doi.org/10.1000/abc.1",
    ]) {
      expect(normaliseDoi(v)).toBe("10.1000/abc.1");
    }
    expect(normaliseDoi("https://doi.org/10.1000%2Fx%3Cy")).toBe("10.1000/x<y");
    expect(normaliseDoi("not a doi")).toBeNull();
    expect(normaliseDoi("")).toBeNull();
    expect(normaliseDoi(undefined)).toBeNull();
  });

  it("spells PMIDs, PMCIDs and preprint ids one way", () => {
    expect(normalisePmid("00123")).toBe("123");
    expect(normalisePmid("12a")).toBeNull();
    expect(normalisePmcid("pmc123")).toBe("PMC123");
    expect(normalisePmcid("PMC123.2")).toBe("PMC123");
    expect(normalisePmcid("123")).toBe("PMC123");
    expect(normalisePmcid("PMCX")).toBeNull();
    expect(normalisePprid("ppr42")).toBe("PPR42");
    expect(normalisePprid("42")).toBeNull();
  });

  it("names a record by its PMID, else DOI, else preprint id, else PMCID", () => {
    const id = (c: Parameters<typeof recordIds>[0]) => recordId(recordIds(c));
    expect(id({ pmid: "7", doi: "10.1/x", pprid: "PPR1" })).toBe("pmid:7");
    expect(id({ doi: "https://doi.org/10.1/X", pprid: "PPR1" })).toBe("doi:10.1/x");
    expect(id({ pprid: "ppr1", pmcid: "PMC9" })).toBe("ppr:PPR1");
    expect(id({ pmcid: "pmc9" })).toBe("pmcid:PMC9");
    expect(id({ doi: "junk" })).toBeNull();
  });

  it("reads versionOf references with or without a prefix", () => {
    expect(referenceKey("pmid:0042")).toBe("pmid:42");
    expect(referenceKey("doi:10.1/ABC")).toBe("doi:10.1/abc");
    expect(referenceKey("PPR:ppr7")).toBe("ppr:PPR7");
    expect(referenceKey("pmc:123")).toBe("pmcid:PMC123");
    expect(referenceKey("PMC123")).toBe("pmcid:PMC123");
    expect(referenceKey("https://doi.org/10.1/ABC")).toBe("doi:10.1/abc");
    expect(referenceKey("PPR7")).toBe("ppr:PPR7");
    expect(referenceKey("pmid:abc")).toBeNull();
    expect(referenceKey("whatever")).toBeNull();
  });
});

describe("the title key", () => {
  it("ignores case, diacritics, punctuation, HTML tags, spacing and a trailing period", () => {
    expect(normaliseText("The <i>BRCA1</i> Gene:  a Review.")).toBe("the brca1 gene a review");
    expect(normaliseText("Éffets   du café&nbsp;— naïve")).toBe("effets du cafe naive");
    expect(normaliseText("Straße, Ørsted & Łódź")).toBe("strasse orsted lodz");
    expect(normaliseText("CO<sub>2</sub> levels")).toBe("co2 levels");
  });

  it("is the normalised title, year and first author's family name", () => {
    const a = titleKey("Statins and Myopathy.", 2020, [{ family: "Müller", given: "A" }]);
    const b = titleKey("statins AND myopathy", 2020, [{ family: "MULLER" }, { family: "Smith" }]);
    expect(a).toBe("statins and myopathy|2020|muller");
    expect(b).toBe(a);
    expect(titleKey("Statins and myopathy", 2021, [{ family: "Muller" }])).not.toBe(a);
  });

  it("is null without a title, a year or an author: such records never merge by title", () => {
    expect(titleKey("", 2020, [{ family: "Smith" }])).toBeNull();
    expect(titleKey("...", 2020, [{ family: "Smith" }])).toBeNull();
    expect(titleKey("A title", undefined, [{ family: "Smith" }])).toBeNull();
    expect(titleKey("A title", 2020, [])).toBeNull();
    expect(titleKey("A title", 2020, [{ family: " " }])).toBeNull();
  });
});

describe("a candidate's keys", () => {
  const base: CandidateRecord = {
    title: "A trial",
    abstract: "",
    year: 2019,
    authors: [{ family: "Lee" }],
    mesh: [],
    pubTypes: [],
    notices: [],
  };

  it("lists identifiers in match order, then the title key; versions apart", () => {
    const k = keyCandidate({
      ...base,
      pprid: "PPR5",
      pmcid: "pmc3",
      doi: "DOI:10.1/A",
      pmid: "9",
      versionOf: ["pmid:10", "ppr:PPR5", "doi:10.2/b", "pmid:10"],
    });
    expect(k.keys).toEqual([
      "pmid:9",
      "doi:10.1/a",
      "pmcid:PMC3",
      "ppr:PPR5",
      "title:a trial|2019|lee",
    ]);
    // A version naming the candidate itself is no other version; repeats are dropped.
    expect(k.versionKeys).toEqual(["pmid:10", "doi:10.2/b"]);
    expect(k.ids).toEqual({ pmid: "9", doi: "10.1/a", pmcid: "PMC3", pprid: "PPR5" });
  });
});
