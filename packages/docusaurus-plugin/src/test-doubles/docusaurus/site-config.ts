// The part of the site's configuration the widget reads (base URL, trailing slash), for the
// doubles of @docusaurus/useBaseUrl and @docusaurus/useDocusaurusContext; tests may change it.
export interface TestSiteConfig {
  baseUrl: string;
  trailingSlash: boolean | undefined;
}

export const testSiteConfig: TestSiteConfig = { baseUrl: '/', trailingSlash: undefined };

export function setSiteConfigForTest(config: Partial<TestSiteConfig>): void {
  Object.assign(testSiteConfig, config);
}

export function resetSiteConfigForTest(): void {
  Object.assign(testSiteConfig, { baseUrl: '/', trailingSlash: undefined });
}
