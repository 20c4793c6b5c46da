/**
 * The one date format of every tool's output (issue 10): ISO-8601 dates as precise as the source
 * ("2019", "2019-08", "2019-08-28"), and date-times only where the source has a time, in UTC with
 * seconds ("2019-08-28T06:00:00Z"; milliseconds only when there are any).
 */

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** "Aug", "August", "8", "08" → "08"; a season or anything else → null. */
export function monthNumber(month: string | null | undefined): string | null {
  if (!month) return null;
  const trimmed = month.trim();
  if (/^\d{1,2}$/.test(trimmed)) {
    const n = Number(trimmed);
    return n >= 1 && n <= 12 ? String(n).padStart(2, "0") : null;
  }
  const i = MONTHS.indexOf(trimmed.slice(0, 3).toLowerCase());
  return i < 0 ? null : String(i + 1).padStart(2, "0");
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const two = (n: number): string => (n < 10 ? `0${n}` : String(n));

/**
 * A calendar date and time of day → "YYYY-MM-DDTHH:MM:00Z", or null when it is not a real one
 * (30 February, hour 24, a year outside 1000–9999). Fractions of an hour or a minute are cut, as
 * Date.UTC cuts them; the arithmetic is done here rather than through a Date, which a sync does
 * for three dates of every record.
 */
export function utcMinute(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
): string | null {
  if (!Number.isInteger(year) || year < 1000 || year > 9999) return null;
  if (!Number.isInteger(month) || month < 1 || month > 12) return null;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = (DAYS_IN_MONTH[month - 1] ?? 0) + (month === 2 && leap ? 1 : 0);
  if (!Number.isInteger(day) || day < 1 || day > days) return null;
  // Written so that NaN fails.
  if (!(hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59)) return null;
  return `${year}-${two(month)}-${two(day)}T${two(Math.trunc(hour))}:${two(Math.trunc(minute))}:00Z`;
}

/** "1" → "01"; anything that is not a day of the month → null. */
export function dayNumber(day: string | null | undefined): string | null {
  if (!day || !/^\s*\d{1,2}\s*$/.test(day)) return null;
  const n = Number(day);
  return n >= 1 && n <= 31 ? String(n).padStart(2, "0") : null;
}

/**
 * A PubMed display date ("2019 Aug 28", "2019 Aug", "2019 Spring", "1998 Dec-1999 Jan",
 * "2019 Aug 28-Sep 3") → "2019-08-28", "2019-08", "2019", "1998-12", "2019-08-28": a season reads as
 * its year, a range as its start, a day the month does not have as the month. Text with no leading
 * year is returned as given.
 */
export function isoFromPubDate(text: string): string {
  const m = /^\s*(\d{4})(?:[\s/-]+([A-Za-z]{3,}|\d{1,2})(?:[\s/-]+(\d{1,2})(?!\d))?)?/.exec(text);
  if (!m?.[1]) return text;
  const month = monthNumber(m[2]);
  if (!month) return m[1];
  const day = dayNumber(m[3]);
  const real = day && new Date(`${m[1]}-${month}-${day}T00:00:00Z`).getUTCDate() === Number(day);
  return real ? `${m[1]}-${month}-${day}` : `${m[1]}-${month}`;
}

/** An instant as "YYYY-MM-DDTHH:MM:SSZ", keeping milliseconds only when there are any. */
export function isoDateTime(value: string | Date | null): string | null {
  if (value === null) return null;
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return typeof value === "string" ? value : null;
  return d.toISOString().replace(/\.000Z$/, "Z");
}

/** The calendar day (UTC) of an instant: for dates the source gives without a time (LR). */
export function isoDay(value: string | Date | null): string | null {
  if (value === null) return null;
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return typeof value === "string" ? value : null;
  return d.toISOString().slice(0, 10);
}
