/** Guidance (lessons, skills, rules, project memory): the one entry point. */
export type * from "./types";
export { loadGuidance, loadFolderMemory, foldersDownTo, SKILL_DIRS, LESSON_DIR, MEMORY_NAMES, type LoadOptions } from "./loader";
export { rank, scoreEntry, estimateTokens, keywordRegex, WEIGHTS, type ScoreContext } from "./match";
export {
  guidanceExtension,
  entryState,
  effectiveEntries,
  toolAliases,
  render,
  renderCatalog,
  DEFAULT_BUDGET,
  GUIDANCE_SOURCE,
  LOAD_SKILL,
  type GuidanceBudget,
  type GuidanceExtensionOptions,
} from "./extension";
export { parseFrontmatter } from "./frontmatter";
