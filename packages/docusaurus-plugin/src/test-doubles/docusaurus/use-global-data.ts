// Test double of @docusaurus/useGlobalData: tests register the plugin data the build would have set.
const pluginData = new Map<string, unknown>();

export function setPluginDataForTest(pluginName: string, data: unknown): void {
  pluginData.set(pluginName, data);
}

export function usePluginData(pluginName: string): unknown {
  if (!pluginData.has(pluginName)) throw new Error(`No global data for plugin "${pluginName}" in this test.`);
  return pluginData.get(pluginName);
}

export default function useGlobalData(): Record<string, unknown> {
  return Object.fromEntries(pluginData);
}

export function clearPluginDataForTest(pluginName: string): void {
  pluginData.delete(pluginName);
}
