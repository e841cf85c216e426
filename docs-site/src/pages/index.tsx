import type { ReactNode } from 'react';
import clsx from 'clsx';
import Link from '@docusaurus/Link';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import Layout from '@theme/Layout';
import Heading from '@theme/Heading';
import CodeBlock from '@theme/CodeBlock';

import styles from './index.module.css';

interface Feature {
  title: string;
  body: ReactNode;
  link: string;
}

const FEATURES: Feature[] = [
  {
    title: 'Answers grounded in your docs',
    body: 'Every answer is built only from your own pages and cites the exact section it used, so readers can check it in one click.',
    link: '/docs/guides/using-the-widget',
  },
  {
    title: 'Works offline, scales out',
    body: 'Local embeddings, an embedded vector store and PGlite out of the box; Gemini, Qdrant and Postgres when you want them.',
    link: '/docs/reference/configuration',
  },
  {
    title: 'Incremental ingest',
    body: 'One command turns Markdown and MDX into heading-aware chunks; re-runs only embed what changed.',
    link: '/docs/guides/ingesting-docs',
  },
];

function Hero(): ReactNode {
  const { siteConfig } = useDocusaurusContext();
  return (
    <header className={clsx('hero hero--primary', styles.hero)}>
      <div className="container">
        <Heading as="h1" className="hero__title">
          {siteConfig.title}
        </Heading>
        <p className="hero__subtitle">{siteConfig.tagline}</p>
        <div className={styles.actions}>
          <Link className="button button--secondary button--lg" to="/docs/getting-started/quick-start">
            Quick start
          </Link>
          <Link className={clsx('button button--outline button--secondary button--lg', styles.heroOutlineButton)} to="/docs/intro">
            What is docs-chat?
          </Link>
        </div>
      </div>
    </header>
  );
}

export default function Home(): ReactNode {
  return (
    <Layout
      title="Ask the docs"
      description="docs-chat adds a self-hosted chat assistant to any Docusaurus site: streamed answers from your own docs, with citations."
    >
      <Hero />
      <main>
        <section className="container">
          <div className={styles.quickStart}>
            <Heading as="h2">Try it in one command</Heading>
            <p>With Node.js 20 or newer, from a clone of the repository:</p>
            <CodeBlock language="bash">{'npx -y pnpm@10.34.9 install && npx -y pnpm@10.34.9 run demo'}</CodeBlock>
            <p>
              Then open <code>http://localhost:3000</code> and press <kbd>Ctrl</kbd>+<kbd>I</kbd> (<kbd>⌘</kbd>+<kbd>I</kbd> on a Mac) to
              ask this guide a question.
            </p>
          </div>
        </section>
        <section className={clsx('container', styles.features)}>
          <div className="row">
            {FEATURES.map((feature) => (
              <div key={feature.title} className={clsx('col col--4', styles.feature)}>
                <Heading as="h3">
                  <Link to={feature.link}>{feature.title}</Link>
                </Heading>
                <p>{feature.body}</p>
              </div>
            ))}
          </div>
        </section>
      </main>
    </Layout>
  );
}
