/**
 * The one output date format (src/eutils/dates.ts): PubMed's display dates and stored instants to
 * ISO-8601, as precise as the source and no more.
 */
import { describe, expect, it } from "@jest/globals";
import {
  dayNumber,
  isoDateTime,
  isoDay,
  isoFromPubDate,
  monthNumber,
} from "../../src/eutils/dates.js";

describe("isoFromPubDate", () => {
  it.each([
    ["2019 Aug 28", "2019-08-28"],
    ["2019 Aug", "2019-08"],
    ["2019", "2019"],
    ["2019 Spring", "2019"], // ISO-8601 has no seasons: the year is what is certain
    ["1998 Dec-1999 Jan", "1998-12"], // a range reads as its start
    ["2019 Aug 28-Sep 3", "2019-08-28"],
    ["2020 Jan 5", "2020-01-05"],
    ["2021/03/09", "2021-03-09"],
    ["2019 Feb 30", "2019-02"], // not a day February has
    ["", ""],
    ["Winter issue", "Winter issue"], // no leading year: kept as NCBI gave it
  ])("%j → %j", (text, iso) => {
    expect(isoFromPubDate(text)).toBe(iso);
  });
});

describe("month and day numbers", () => {
  it("reads names and digits, and nothing else", () => {
    expect(["Sep", "September", "9", "09", "13", "Spring", null].map(monthNumber)).toEqual([
      "09",
      "09",
      "09",
      "09",
      null,
      null,
      null,
    ]);
    expect(["1", "31", "32", "0", "x", null].map(dayNumber)).toEqual([
      "01",
      "31",
      null,
      null,
      null,
      null,
    ]);
  });
});

describe("instants", () => {
  it("drops only milliseconds that are zero", () => {
    expect(isoDateTime("2019-08-28T06:00:00.000Z")).toBe("2019-08-28T06:00:00Z");
    expect(isoDateTime("2019-08-28T06:00:00Z")).toBe("2019-08-28T06:00:00Z");
    expect(isoDateTime(new Date("2026-01-02T03:04:05.045Z"))).toBe("2026-01-02T03:04:05.045Z");
    expect(isoDateTime(null)).toBeNull();
  });

  it("gives the UTC day of an instant for dates the source has without a time", () => {
    expect(isoDay("2024-03-28T00:00:00.000Z")).toBe("2024-03-28");
    expect(isoDay(null)).toBeNull();
  });
});
