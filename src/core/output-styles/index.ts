/**
 * Output styles (Claude Code's `.claude/output-styles/*.md`, `~/.claude/output-styles/`): a style
 * replaces the prose part of the system prompt — Yoke's "how to work" coding instructions, unless
 * the style says `keep-coding-instructions: true` — and its own instructions end the system prompt.
 * It is chosen when the session starts (the `outputStyle` setting, `--output-style NAME`), so the
 * cached prefix never changes; `/output-style NAME` during a session appends the change as context
 * for the next request, never rewriting earlier messages.
 */
export { findStyle, loadOutputStyles, parseOutputStyle, type OutputStyle, type OutputStyleSource, type LoadedOutputStyles } from "./loader";
export { outputStylesExtension, OUTPUT_STYLE_EXTENSION, styleChangeText, type OutputStylesOptions } from "./extension";
