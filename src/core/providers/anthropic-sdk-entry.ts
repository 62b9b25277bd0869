/**
 * The entry of dist/anthropic-sdk.js (esbuild.mjs), the bundle `import("@anthropic-ai/sdk")` loads
 * in the CLI and the extension's session (src/core/providers/anthropic.ts): the SDK's own client
 * (`BaseAnthropic`: requests, retries, headers, streaming, its error classes as statics) with the
 * one resource Yoke calls, Messages. The SDK's `Anthropic` class builds every API resource (beta,
 * files, models, skills, organization…) in its constructor, so a bundle of it carries all of them
 * (1.7 MB); this one is a fifth of that, and the first request compiles only what it sends.
 * Outside the bundles (tests run the sources) the import is the SDK's own `Anthropic`.
 */
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { Messages } from "@anthropic-ai/sdk/resources/messages/messages";

export default class Anthropic extends BaseAnthropic {
  messages: Messages = new Messages(this);
}
