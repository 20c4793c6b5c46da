/**
 * The slice of citation-js 0.8 that src/live/citations.ts uses; the packages ship no types.
 * The plugin packages register themselves with core on import and export nothing we call.
 */
declare module "@citation-js/core" {
  export interface CiteFormatOptions {
    format?: "text" | "html" | "object" | "string" | "real";
    template?: string;
    lang?: string;
    spec?: "new" | "old" | "mixed";
  }

  export class Cite {
    constructor(data?: unknown, options?: Record<string, unknown>);
    data: Record<string, unknown>[];
    format(style: string, options?: CiteFormatOptions): unknown;
  }

  interface Register<T> {
    add(name: string, value: T): void;
    has(name: string): boolean;
    list(): string[];
  }

  export const plugins: {
    list(): string[];
    config: {
      get(plugin: "@csl"): { styles: Register<string> };
      get(plugin: string): unknown;
    };
  };
}

declare module "@citation-js/plugin-csl";
declare module "@citation-js/plugin-ris";
declare module "@citation-js/plugin-bibtex";
