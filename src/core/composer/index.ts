/** The composer (issue 13): @-mentions as context, steering and queueing while the agent works. */
export { composerExtension, queueFromEvents, SessionComposer, type ComposerOptions, type DeliveryMode, type QueuedMessage } from "./extension";
export { ContextItem, itemLabel, MENTION_KEYWORDS, parseMentions, uniqueItems, type MentionRef, type MentionToken } from "./mentions";
export { attachmentsText, resolveMentions, type MentionSources, type ResolvedMention } from "./resolve";
