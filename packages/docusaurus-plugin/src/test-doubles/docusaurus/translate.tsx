// Test double of @docusaurus/Translate: no translations loaded, so the default message is used,
// with {placeholders} filled in as Docusaurus does.
import type { ReactNode } from 'react';

type Values = Record<string, string | number | undefined>;

function interpolate(message: string, values?: Values): string {
  if (!values) return message;
  return message.replace(/\{(\w+)\}/g, (whole, name: string) => (values[name] !== undefined ? String(values[name]) : whole));
}

export function translate({ message }: { id?: string; message: string; description?: string }, values?: Values): string {
  return interpolate(message, values);
}

export default function Translate({
  children,
  values,
}: {
  children: string;
  id?: string;
  description?: string;
  values?: Values;
}): ReactNode {
  return interpolate(children, values);
}
