/**
 * The prompt registry: data, not code. To add a prompt, write src/prompts/<name>.ts exporting a
 * `definePrompt({...})` object and list it here.
 */
import { picoSearch } from "./pico_search.js";
import type { PromptDef } from "./prompt.js";
import { systematicReviewPlan } from "./systematic_review_plan.js";

export const PROMPTS: readonly PromptDef[] = [picoSearch, systematicReviewPlan];
