/**
 * The settings the plugin hands to the browser through plugin global data.
 * Plain data only (it ships with every page), and no Docusaurus imports so the
 * chat client and its tests can use it too.
 */

export type PanelSide = 'left' | 'right';

export interface DocsChatSettings {
  /** Base URL of the docs-chat server, without a trailing slash. */
  serverUrl: string;
  /** Panel heading; null means the translated default. */
  title: string | null;
  /** Input placeholder; null means the translated default. */
  placeholder: string | null;
  /** First message shown in an empty conversation; null means the translated default. */
  welcomeMessage: string | null;
  /** Up to three questions offered in an empty conversation. */
  suggestedQuestions: string[];
  /** Whether selecting text in the page offers to ask about it. */
  selectionMode: boolean;
  /** CSS selector of the page content where selections count. */
  contentSelector: string;
  /** Keyboard shortcut that toggles the panel, e.g. "mod+i"; null when disabled. */
  shortcut: string | null;
  panel: { side: PanelSide; width: number };
  /** Regular expression sources (compiled at build from the `hideLauncherOn` globs) of the paths, under the base URL, where the launcher is not shown. */
  hideLauncherOn: string[];
  /** Whether the build wrote a static search index (`<baseUrl>docs-chat/search-manifest.json`) to search without the server. */
  search: { staticIndex: boolean };
}

/** The id under which the plugin stores its global data. */
export const DOCS_CHAT_PLUGIN_NAME = 'docs-chat-docusaurus-plugin';
