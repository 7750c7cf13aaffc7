import type { TestProject } from 'vitest/node';
import { prepareTemplate } from './database';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const { pgliteTemplate, teardown } = await prepareTemplate();
  project.provide('pgliteTemplate', pgliteTemplate);
  return teardown;
}
