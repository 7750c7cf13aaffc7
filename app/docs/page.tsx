import type { Metadata } from 'next';
import { ApiReference } from './api-reference';

export const metadata: Metadata = { title: 'API reference · Simgate' };

export default function DocsPage() {
  return <ApiReference />;
}
