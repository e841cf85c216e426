// Test double of @docusaurus/useDocusaurusContext: the test site configuration (site-config.ts).
import { testSiteConfig } from './site-config.js';

export default function useDocusaurusContext(): {
  siteConfig: { baseUrl: string; trailingSlash: boolean | undefined };
  i18n: { currentLocale: string; defaultLocale: string };
} {
  const { currentLocale, ...siteConfig } = testSiteConfig;
  return { siteConfig, i18n: { currentLocale, defaultLocale: 'en' } };
}
