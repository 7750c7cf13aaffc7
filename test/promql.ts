import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/**
 * The PromQL of deploy/: every alert rule's expression (deploy/prometheus/alerts.yml) and every
 * dashboard query (deploy/grafana/simgate.json), and the metric names they read.
 */

const root = path.resolve(import.meta.dirname, '..');
export const ALERTS_FILE = path.join(root, 'deploy', 'prometheus', 'alerts.yml');
export const DASHBOARD_FILE = path.join(root, 'deploy', 'grafana', 'simgate.json');

export type AlertRule = {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
};

export function alertRules(): AlertRule[] {
  const file = parse(fs.readFileSync(ALERTS_FILE, 'utf8')) as { groups: { rules: AlertRule[] }[] };
  return file.groups.flatMap((group) => group.rules);
}

type Panel = { title?: string; targets?: { expr?: string }[]; panels?: Panel[] };

/** Every panel's query, with the dashboard's variables as written (`$job`, `$__rate_interval`). */
export function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(fs.readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: Panel[] };
  const walk = (panels: Panel[]): { panel: string; expr: string }[] =>
    panels.flatMap((panel) => [
      ...(panel.targets ?? []).flatMap((target) =>
        target.expr ? [{ panel: panel.title ?? '', expr: target.expr }] : [],
      ),
      ...walk(panel.panels ?? []),
    ]);
  return walk(dashboard.panels);
}

/** A dashboard query with its variables replaced, as Grafana would send it to Prometheus. */
export function withVariables(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__interval', '15s')
    .replaceAll('$job', '.+')
    .replaceAll('$instance', '.+');
}

// Words that are PromQL but not metric names: operators, modifiers and literals.
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'inf',
  'nan',
]);

export type Selector = { metric: string; labels: string[] };

/**
 * The metric selectors of an expression: each metric name read, with the label names its matchers
 * use. Strings, ranges, grouping clauses and function calls are not metric names.
 */
export function selectors(expr: string): Selector[] {
  const found: Selector[] = [];
  const text = expr
    // Label lists of by/without/on/ignoring/group_left/group_right: label names, not metrics.
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    // Ranges and subqueries: [5m], [$__rate_interval], [1h:5m].
    .replace(/\[[^\]]*\]/g, ' ');
  const token = /(?<![\w.:$])([a-zA-Z_:][\w:]*)\s*(\{(?:[^}"]|"(?:[^"\\]|\\.)*")*\})?\s*(\()?/g;
  const stripped = text.replace(/"(?:[^"\\]|\\.)*"(?![^{]*\})/g, '""');
  for (const match of stripped.matchAll(token)) {
    const [, name, matchers, call] = match;
    if (!name || call) continue; // a function or an aggregation
    if (KEYWORDS.has(name.toLowerCase())) continue;
    const labels = [...(matchers ?? '').matchAll(/([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]!);
    found.push({ metric: name, labels });
  }
  return found;
}

/** Metric names an expression reads (as sampled: a histogram's `_bucket`, `_sum`, `_count`). */
export function metricNames(expr: string): string[] {
  return [...new Set(selectors(expr).map((selector) => selector.metric))];
}

export type Scrape = {
  /** Family name → its type from `# TYPE`. */
  types: Map<string, string>;
  /** Sample name (`x_bucket`, `x_total`) → the label names seen on its samples. */
  samples: Map<string, Set<string>>;
};

/** Reads the Prometheus text format. */
export function parseExposition(text: string): Scrape {
  const types = new Map<string, string>();
  const samples = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (!line || line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][\w:]*)(\{.*\})?\s/.exec(line);
    if (!sample) continue;
    const labels = samples.get(sample[1]!) ?? new Set<string>();
    for (const label of (sample[2] ?? '').matchAll(/([a-zA-Z_]\w*)="/g)) labels.add(label[1]!);
    samples.set(sample[1]!, labels);
  }
  return { types, samples };
}

/** Anchors of a Markdown file's headings, as GitHub makes them. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of markdown.split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    anchors.add(
      heading[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return anchors;
}
