/** What postgres-js needs to reach a database: its URL, and a host (socket directory) it cannot take from one. */
export type PostgresTarget = { url: string; host?: string };

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i;

/**
 * postgres-js reads user, password, host, port, database, `sslmode` and every other parameter from
 * a URL, but not libpq's unix-socket forms: `postgres://user@/db?host=/var/run/postgresql` (no host
 * and a `host` parameter) and `postgres://user@%2Fvar%2Frun%2Fpostgresql/db`. Those come back with
 * the socket directory apart and a placeholder host in the URL; any other URL comes back as is.
 * Throws when `url` is not a postgres:// or postgresql:// URL.
 */
export function postgresTarget(url: string): PostgresTarget {
  const parts = URL_PARTS.exec(url.trim());
  if (!parts) throw new Error('not a postgres:// or postgresql:// URL');
  const [, scheme = '', authority = '', pathname = '', query = '', fragment = ''] = parts;
  const at = authority.lastIndexOf('@');
  const userinfo = authority.slice(0, at + 1);
  const [, hostname = '', port = ''] = /^(.*?)(:\d*)?$/.exec(authority.slice(at + 1)) ?? [];
  const params = new URLSearchParams(query.slice(1));
  const encodedSocketDir = decodeURIComponent(hostname);
  const host = params.get('host') || (encodedSocketDir.startsWith('/') ? encodedSocketDir : '');

  let target: PostgresTarget = { url };
  if (host) {
    params.delete('host');
    const rest = params.size > 0 ? `?${params}` : '';
    target = { url: `${scheme}${userinfo}localhost${port}${pathname}${rest}${fragment}`, host };
  }
  if (!URL.canParse(target.url)) throw new Error('not a postgres:// or postgresql:// URL');
  return target;
}
