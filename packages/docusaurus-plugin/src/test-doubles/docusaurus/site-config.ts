// The part of the site's configuration the widget reads (base URL, trailing slash), for the
// doubles of @docusaurus/useBaseUrl and @docusaurus/useDocusaurusContext; tests may change it.
export interface TestSiteConfig {
  baseUrl: string;
  trailingSlash: boolean | undefined;
  /** `i18n.currentLocale` of the page. */
  currentLocale: string;
}

export const testSiteConfig: TestSiteConfig = { baseUrl: '/', trailingSlash: undefined, currentLocale: 'en' };

export function setSiteConfigForTest(config: Partial<TestSiteConfig>): void {
  Object.assign(testSiteConfig, config);
}

export function resetSiteConfigForTest(): void {
  Object.assign(testSiteConfig, { baseUrl: '/', trailingSlash: undefined, currentLocale: 'en' });
}
