import type { SidebarsConfig } from '@docusaurus/plugin-content-docs';

// One sidebar, ordered the way a newcomer reads: try it, wire it in, feed it, operate it.
const sidebars: SidebarsConfig = {
  guide: [
    'intro',
    {
      type: 'category',
      label: 'Getting started',
      collapsed: false,
      items: ['getting-started/quick-start', 'getting-started/add-to-your-site'],
    },
    {
      type: 'category',
      label: 'Guides',
      collapsed: false,
      items: [
        'guides/ingesting-docs',
        'guides/other-sources',
        'guides/versions-and-locales',
        'guides/searching',
        'guides/using-the-widget',
        'guides/search',
        'guides/insights',
        'guides/ai-agents',
        'guides/llms-txt',
      ],
    },
    {
      type: 'category',
      label: 'Reference',
      items: ['reference/plugin-options', 'reference/configuration', 'reference/http-api', 'reference/stream-protocol'],
    },
    {
      type: 'category',
      label: 'Deployment',
      items: ['deployment/docker-compose', 'deployment/operations', 'deployment/metrics', 'deployment/security'],
    },
    'troubleshooting',
    'faq',
    {
      type: 'category',
      label: 'Quality and performance',
      items: ['quality/evaluation', 'quality/benchmarks'],
    },
  ],
};

export default sidebars;
