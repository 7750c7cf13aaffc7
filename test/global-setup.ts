import type { TestProject } from 'vitest/node';
import { prepareTemplate, type Template } from './database';

declare module 'vitest' {
  export interface ProvidedContext {
    testTemplate: Template;
  }
}

export default async function setup(project: TestProject) {
  const { template, teardown } = await prepareTemplate();
  project.provide('testTemplate', template);
  return teardown;
}
