/** Moved to src/node/settings/files.ts (the one settings reader); kept so older imports still resolve. */
export * from "./settings/files";
