// Deliberately empty. Some dependencies' typings (the OpenAI and Anthropic SDKs, through
// undici-types) say `/// <reference types="node" />`; tsconfig.core.json points typeRoots here so
// that reference finds this file instead of @types/node, and Node's globals (process, Buffer,
// require, NodeJS.*) stay out of the harness-neutral check.
export {};
