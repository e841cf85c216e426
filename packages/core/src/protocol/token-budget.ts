// Token counting lives in @docs-chat/protocol (no dependencies, shared with the widget);
// `@docs-chat/core/token-budget` stays as an alias.
export * from '@docs-chat/protocol/token-budget';
