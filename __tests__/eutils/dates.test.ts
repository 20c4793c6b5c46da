/**
 * The one output date format (src/ncbi/dates.ts): PubMed's display dates and stored instants to
 * ISO-8601, as precise as the source and no more.
 */
import { describe, expect, it } from "@jest/globals";
import {
  dayNumber,
  isoDateTime,
  isoDay,
  isoFromPubDate,
  monthNumber,
  utcMinute,
} from "../../src/ncbi/dates.js";

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

describe("utcMinute", () => {
  /** The definition it replaced in the EFetch parser: through Date.UTC and a Date. */
  function throughDate(y: number, mo: number, d: number, h: number, mi: number): string | null {
    if (!Number.isInteger(y) || y < 1000 || y > 9999) return null;
    const ms = Date.UTC(y, mo - 1, d, h, mi);
    const parsed = new Date(ms);
    if (Number.isNaN(ms) || parsed.getUTCMonth() !== mo - 1 || parsed.getUTCDate() !== d) {
      return null;
    }
    if (h < 0 || h > 23 || mi < 0 || mi > 59) return null;
    return `${parsed.toISOString().slice(0, 16)}:00Z`;
  }

  it("gives what Date gives for every combination of edge values", () => {
    const years = [999, 1000, 1900, 2000, 2023, 2024, 2100, 9999, 10000, 2024.5, NaN];
    const months = [NaN, 0, 1, 2, 3, 4, 6, 9, 11, 12, 13, 1.5, -1];
    const days = [NaN, -1, 0, 1, 15, 28, 29, 30, 31, 32, 1.5];
    const hours = [NaN, -1, -0.5, 0, 0.5, 12, 23, 23.5, 24];
    const minutes = [NaN, -1, 0, 30.9, 59, 59.5, 60];
    let compared = 0;
    let real = 0;
    for (const y of years)
      for (const mo of months)
        for (const d of days)
          for (const h of hours)
            for (const mi of minutes) {
              const expected = throughDate(y, mo, d, h, mi);
              if (utcMinute(y, mo, d, h, mi) !== expected) {
                throw new Error(`utcMinute(${[y, mo, d, h, mi].join(", ")}) ≠ ${expected}`);
              }
              compared++;
              if (expected !== null) real++;
            }
    expect(compared).toBe(
      years.length * months.length * days.length * hours.length * minutes.length,
    );
    expect(real).toBeGreaterThan(1000); // the grid holds real dates, not only rejections
  });

  it("formats with two-digit fields and knows leap years", () => {
    expect(utcMinute(2024, 2, 29, 6, 5)).toBe("2024-02-29T06:05:00Z");
    expect(utcMinute(2023, 2, 29, 0, 0)).toBeNull();
    expect(utcMinute(1900, 2, 29, 0, 0)).toBeNull();
    expect(utcMinute(2000, 2, 29, 0, 0)).toBe("2000-02-29T00:00:00Z");
  });
});
