import { usePluginData } from '@docusaurus/useGlobalData';
import { DOCS_CHAT_PLUGIN_NAME, type DocsChatSettings } from '../client-settings/docs-chat-settings.js';

/** The plugin's options as handed to the browser (see options.ts `toClientSettings`). */
export function useDocsChatSettings(): DocsChatSettings {
  return usePluginData(DOCS_CHAT_PLUGIN_NAME) as DocsChatSettings;
}
