// The chat stream protocol lives in @docs-chat/protocol (no dependencies, shared with the widget);
// `@docs-chat/core/protocol` stays as an alias for the server and the evaluation code.
export * from '@docs-chat/protocol';
