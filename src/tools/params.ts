/**
 * Parameter pieces shared by several tools, so messages and limits read the same everywhere.
 */
import { z } from "zod";

export const pmidSchema = z
  .string()
  .trim()
  .regex(/^\d{1,9}$/, { error: 'must be digits, e.g. "31452104"' })
  .describe('A PubMed ID (digits), e.g. "31452104".');

/** YYYY, YYYY/MM or YYYY/MM/DD, as E-utilities expects. */
export const entrezDateSchema = z
  .string()
  .trim()
  .regex(/^\d{4}(\/(0[1-9]|1[0-2])(\/(0[1-9]|[12]\d|3[01]))?)?$/, {
    error: 'must be YYYY, YYYY/MM or YYYY/MM/DD, e.g. "2020/01/31"',
  });

export const READ_ONLY_LIVE = { readOnlyHint: true, openWorldHint: true } as const;
