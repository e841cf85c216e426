/**
 * The route component of the insights page (added by the plugin when
 * `insights.enabled` is true). Docusaurus loads each route's component in a
 * chunk of its own, so this page, and uPlot with its stylesheet, are fetched only
 * by a browser that opens it: the widget on other pages weighs the same.
 */
import React, { type ReactNode } from 'react';
import Layout from '@theme/Layout';
import 'uplot/dist/uPlot.min.css';
import { useDocsChatSettings } from '../theme-support/use-docs-chat-settings.js';
import { InsightsPage } from './InsightsPage.js';

export default function InsightsRoute(): ReactNode {
  const settings = useDocsChatSettings();
  return (
    <Layout title="Docs insights" noFooter>
      <InsightsPage serverUrl={settings.serverUrl} />
    </Layout>
  );
}
