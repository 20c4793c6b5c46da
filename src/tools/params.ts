/**
 * Parameter pieces shared by several tools, so messages and limits read the same everywhere.
 *
 * Models often send a PMID as a number (`{"pmid": 30000219}`), a count as a string
 * (`"maxResults": "5"`) or a flag as `"true"`. Those are accepted here, without a VALIDATION round
 * trip, while the advertised JSON Schema keeps the one canonical type: a plain string or integer
 * is what every client and model handles, where `anyOf` unions are not (the test that guards this
 * is __tests__/tools/normalise.test.ts).
 *
 * Every string and list has a length limit, chosen from what the service behind it takes and
 * advertised in the schema (maxLength, maxItems), so an oversized value is a VALIDATION error
 * naming the limit rather than a request NCBI refuses, a STORE error or a long wait
 * (__tests__/tools/limits.test.ts).
 */
import { z } from "zod";
import { MAX_QUERY_KEY_CHARS } from "../store/checkpoints.js";

/**
 * A PubMed query (ESearch, ESpell, a sync's term). Systematic-review search strategies run to
 * several thousand characters; ESearch takes them by POST (src/ncbi/client.ts), so NCBI's URL
 * limit does not bind, and no query needs more.
 */
export const MAX_QUERY_CHARS = 10_000;

/** An identifier that may be a DOI, as given (a doi.org URL included). */
export const MAX_ID_CHARS = 300;

/** A PMID or PMCID as given: the digits (at most 9 today), "PMC", a version, spaces around. */
export const MAX_NUMBER_ID_CHARS = 20;

/**
 * The length check of a string parameter, stopping its other checks when it fails: a megabyte
 * value gets one clause, and no pattern is run over it.
 */
export const maxChars = (max: number) => ({
  error: `must be at most ${max.toLocaleString("en-US")} characters`,
  abort: true,
});

/** "5" → 5 (digits, optional sign and fraction, surrounding spaces); anything else unchanged. */
function numericString(value: unknown): unknown {
  return typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
}

/** "true"/"false" (any case) → the boolean; anything else unchanged. */
function booleanString(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const word = value.trim().toLowerCase();
  return word === "true" ? true : word === "false" ? false : value;
}

/** A non-negative integer → its digits; anything else unchanged. */
function integerText(value: unknown): unknown {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0
    ? String(value)
    : value;
}

/** A number or integer parameter that also takes its digits as a string. */
export const numeric = <T extends z.ZodType>(schema: T) => z.preprocess(numericString, schema);

/** A boolean parameter that also takes "true" / "false". */
export const flag = <T extends z.ZodType>(schema: T) => z.preprocess(booleanString, schema);

/** A string parameter that also takes a whole number (years, volumes, pages, query keys). */
export const textOrNumber = <T extends z.ZodType>(schema: T) => z.preprocess(integerText, schema);

export const pmidSchema = textOrNumber(
  z
    .string()
    .max(MAX_NUMBER_ID_CHARS, maxChars(MAX_NUMBER_ID_CHARS))
    .trim()
    .regex(/^\d{1,9}$/, { error: 'must be digits, e.g. "31452104"' }),
).describe('A PubMed ID (digits), e.g. "31452104".');

/**
 * A list of PMIDs. A single PMID (string or number) and a comma- or space-separated string are
 * taken as the list they mean.
 */
export function pmidListSchema(max: number) {
  return z.preprocess(
    (value) => {
      if (typeof value === "number") return [value];
      if (typeof value === "string") return value.split(/[\s,;]+/).filter(Boolean);
      return value;
    },
    z
      .array(pmidSchema)
      .min(1, { error: "must list at least one PMID" })
      .max(max, {
        error: `must list at most ${max.toLocaleString("en-US")} PMIDs; split the list`,
      }),
  );
}

/** YYYY, YYYY/MM or YYYY/MM/DD, as E-utilities expects. */
export const entrezDateSchema = textOrNumber(
  z
    .string()
    .max(20, maxChars(20)) // YYYY/MM/DD, with spaces around
    .trim()
    .regex(/^\d{4}(\/(0[1-9]|1[0-2])(\/(0[1-9]|[12]\d|3[01]))?)?$/, {
      error: 'must be YYYY, YYYY/MM or YYYY/MM/DD, e.g. "2020/01/31"',
    }),
);

/**
 * A required free-text parameter of at most `max` characters (a query's, unless said otherwise;
 * "must not be empty" when blank).
 */
export const requiredText = (max = MAX_QUERY_CHARS) =>
  z.string().max(max, maxChars(max)).trim().min(1, { error: "must not be empty" });

/**
 * A saved query's key, as every tool taking one reads it (the store's limit: it is indexed, and a
 * long key would not fit an index row).
 */
export const queryKeySchema = () => requiredText(MAX_QUERY_KEY_CHARS);

export const READ_ONLY_LIVE = { readOnlyHint: true, openWorldHint: true } as const;
