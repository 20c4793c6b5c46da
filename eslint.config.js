import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist", "node_modules", "coverage", "bench/results"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "Read configuration in src/config.ts only.",
        },
      ],
    },
  },
  {
    // The demo hands its environment to the server it spawns, start-up its compile cache to the
    // threads; neither reads configuration.
    files: [
      "__tests__/**",
      "bench/**",
      "scripts/**",
      "src/config.ts",
      "src/devtools/demo.ts",
      "src/startup/index.ts",
    ],
    rules: { "no-restricted-properties": "off" },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { module: "writable", globalThis: "readonly" },
    },
  },
);
