/** The search box's shortcut (Ctrl+K, or ⌘K on macOS); `/` opens it too. Shared by the options check and the SearchBar. */
export const SEARCH_SHORTCUT = 'mod+k';
