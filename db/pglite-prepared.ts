import { type PGlite, parse, protocol, type QueryOptions, type Results } from '@electric-sql/pglite';
import { LRUCache } from 'lru-cache';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

const STALE_RESULT_TYPE = 'cached plan must not change result type';

/** Statements kept prepared: far more than the queries the app sends, so only odd ones are ever closed. */
const MAX_PREPARED = 1000;

/**
 * Makes `client.query` (every query drizzle sends outside a transaction) a prepared statement, as
 * server mode's `preparingEveryQuery` does for postgres-js. PGlite's own `query` parses, describes and
 * plans its statement on every call, in WASM on the server's thread; a send's one statement spent most
 * of its time there. Prepared once per text (the embedded database is one session, so a statement
 * lives as long as the process), a call is one bind, execute and sync, with PostgreSQL's plan cache.
 * Statements over MAX_PREPARED, least recently used first, are closed. Queries inside a
 * transaction (PGlite's Transaction object) and ones with a blob keep PGlite's own path.
 */
export function preparingPglite(client: PGlite, settings: { max?: number } = {}): PGlite {
  const patched = client as PGlite & { __preparing?: true };
  if (patched.__preparing) return client;
  patched.__preparing = true;
  type Statement = { name: string; paramTypes: number[]; rowDescription: BackendMessage | undefined };
  const closing: string[] = [];
  const statements = new LRUCache<string, Statement>({
    max: settings.max ?? MAX_PREPARED,
    dispose: (statement) => closing.push(statement.name),
  });
  let counter = 0;
  const original = client.query.bind(client);
  const noSync = { syncToFs: false } as const;

  const prepare = async (text: string, options: QueryOptions | undefined): Promise<Statement> => {
    const name = `simgate_${++counter}`;
    const message = Buffer.concat([
      protocol.serialize.parse({ name, text, types: options?.paramTypes }),
      protocol.serialize.describe({ type: 'S', name }),
      protocol.serialize.sync(),
    ]);
    const described = await client.execProtocolStream(message, noSync);
    return {
      name,
      paramTypes: parse.parseDescribeStatementResults(described),
      rowDescription: described.find((m) => m.name === 'rowDescription'),
    };
  };

  const run = async <T>(text: string, params: unknown[], options: QueryOptions | undefined): Promise<Results<T>> => {
    let statement = statements.get(text);
    if (!statement) {
      statement = await prepare(text, options);
      statements.set(text, statement);
    }
    const { name, paramTypes, rowDescription } = statement;
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null;
      const oid = paramTypes[i] as number;
      const serialize = options?.serializers?.[oid] ?? client.serializers[oid];
      return serialize ? serialize(param) : String(param);
    });
    const results = await client.execProtocolStream(
      Buffer.concat([
        // Statements the cache let go of (this one's arrival may have pushed one out).
        ...closing.splice(0).map((evicted) => protocol.serialize.close({ type: 'S', name: evicted })),
        protocol.serialize.bind({ statement: name, values: values as string[] }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
      noSync,
    );
    if (!client.isInTransaction()) await client.syncToFs();
    return resultOf<T>(rowDescription, results, client.parsers, options);
  };

  client.query = (async <T>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results<T>> => {
    if (options?.blob) return original<T>(text, params, options);
    return client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        try {
          return await run<T>(text, params, options);
        } catch (error) {
          // A table's columns changed since the statement was prepared (a migration, DDL in a test):
          // PostgreSQL refuses to run it before anything happens. Prepare it anew, once.
          if ((error as { message?: string }).message !== STALE_RESULT_TYPE) throw error;
          statements.delete(text);
          return await run<T>(text, params, options);
        }
      }),
    );
  }) as PGlite['query'];
  return client;
}

type Parsers = PGlite['parsers'];
type Field = { name: string; dataTypeID: number };

/**
 * The statement's one result, shaped as PGlite's `query` answers it. PGlite's own parser copies its
 * whole table of type parsers into a new object whenever the caller brings a few of its own (drizzle
 * always does), once per query; here each column's parser is looked up once per result.
 */
function resultOf<T>(
  rowDescription: BackendMessage | undefined,
  messages: BackendMessage[],
  defaults: Parsers,
  options: QueryOptions | undefined,
): Results<T> {
  const fields: Field[] = rowDescription
    ? (rowDescription as unknown as { fields: Field[] }).fields.map(({ name, dataTypeID }) => ({ name, dataTypeID }))
    : [];
  const parsers = fields.map(({ dataTypeID }) => options?.parsers?.[dataTypeID] ?? defaults[dataTypeID]);
  const value = (text: string | null, column: number) => {
    if (text === null) return null;
    const parser = parsers[column];
    return parser ? parser(text, (fields[column] as Field).dataTypeID) : text;
  };
  const rows: unknown[] = [];
  let affectedRows = 0;
  let rowCount: number | undefined;
  for (const message of messages) {
    if (message.name === 'dataRow') {
      const cells = (message as unknown as { fields: Array<string | null> }).fields;
      if (options?.rowMode === 'array') rows.push(cells.map(value));
      else {
        const row: Record<string, unknown> = {};
        cells.forEach((text, column) => {
          row[(fields[column] as Field).name] = value(text, column);
        });
        rows.push(row);
      }
    } else if (message.name === 'commandComplete') {
      // "INSERT 0 5", "UPDATE 3", "SELECT 2": the count is the last word, where there is one.
      const words = (message as unknown as { text: string }).text.split(' ');
      const count = Number.parseInt(words.at(-1) as string, 10);
      if (!Number.isNaN(count)) rowCount = count;
      if (['INSERT', 'UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(words[0] as string)) affectedRows += count;
    }
  }
  return { rows, fields, affectedRows, ...(rowCount === undefined ? {} : { rowCount }) } as Results<T>;
}
