import type { SwizzleConfig } from '@docusaurus/types';

/**
 * What a site may safely customise. Wrapping adds markup around a component
 * and survives upgrades; ejecting copies its source, which breaks when the
 * widget's internal props change, so only the leaf components are safe to eject.
 */
export function getSwizzleConfig(): SwizzleConfig {
  return {
    components: {
      Root: {
        actions: { wrap: 'safe', eject: 'unsafe' },
        description: 'Wraps every page and mounts the chat widget; wrap it to add providers around the page.',
      },
      ChatWidget: {
        actions: { wrap: 'safe', eject: 'unsafe' },
        description: 'The launcher button, the keyboard shortcut, the selection prompt and the lazily loaded chat panel.',
      },
      ChatPanel: {
        actions: { wrap: 'safe', eject: 'unsafe' },
        description: 'The side panel: header, conversation, errors and the input; it owns the chat state.',
      },
      MessageList: {
        actions: { wrap: 'safe', eject: 'unsafe' },
        description: 'The scrolling conversation with markdown answers, citations and answer actions (copy, feedback).',
      },
      InputBox: {
        actions: { wrap: 'safe', eject: 'safe' },
        description: 'The question input: Enter sends, Shift+Enter adds a line; shows Stop while an answer streams.',
      },
      SelectionMode: {
        actions: { wrap: 'safe', eject: 'safe' },
        description: 'The "Selection mode" banner with the selected passage and the button to leave selection mode.',
      },
      SourceList: {
        actions: { wrap: 'safe', eject: 'safe' },
        description: 'The numbered list of sources under an answer, each linking to the cited section.',
      },
      SearchBar: {
        actions: { wrap: 'safe', eject: 'safe' },
        description: 'The navbar search button with its Ctrl+K and / shortcuts; it loads the search dialog on first use.',
      },
      SearchModal: {
        actions: { wrap: 'safe', eject: 'unsafe' },
        description: 'The search dialog: the search box, its results as you type, recent searches and the keyboard handling.',
      },
      SearchResults: {
        actions: { wrap: 'safe', eject: 'safe' },
        description: 'The results list of a search, grouped by page, with heading paths, highlighted snippets and the "Ask the docs" row.',
      },
      PanelSearch: {
        actions: { wrap: 'safe', eject: 'unsafe' },
        description: "The chat panel's search mode: the same search results inside the panel.",
      },
      OfflineAnswer: {
        actions: { wrap: 'safe', eject: 'safe' },
        description:
          'Shown in the chat panel when the assistant cannot be reached: says so and lists the sections that match the question.',
      },
    },
  };
}
