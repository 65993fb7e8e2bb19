/**
 * Preloaded into the profiled runtime (`node --require dist-bench/bench/sql-counter.js`): counts the
 * SQL statements the process sends, by kind (verb + table), and writes the running totals to
 * BENCH_SQL_COUNT_FILE every 200 ms. It wraps pg's Client#query and changes nothing else. Diagnostic
 * only: B2's throughput figures come from a runtime without it.
 */
import { writeFileSync } from 'node:fs';
import { Client } from 'pg';

export interface SqlCounts {
  total: number;
  byKind: Record<string, number>;
}

/** `SELECT automation_composition`, `UPDATE participant_replica`, `BEGIN`, `WITH saveAll`, ... */
export function statementKind(text: string): string {
  const head = text.trimStart();
  // A statement that writes or reads several tables names itself in a leading comment (`/* WITH saveAll */`).
  const named = /^\/\*\s*([^*]+?)\s*\*\//.exec(head)?.[1];
  if (named !== undefined) {
    return named;
  }
  const verb = (/^\w+/.exec(head)?.[0] ?? '?').toUpperCase();
  if (verb === 'START' || verb === 'BEGIN') {
    return 'BEGIN';
  }
  if (verb === 'COMMIT' || verb === 'ROLLBACK') {
    return verb;
  }
  const table =
    verb === 'SELECT'
      ? /\bFROM\s+("?[\w.]+"?(?:\."?\w+"?)?)/i.exec(head)?.[1]
      : verb === 'INSERT'
        ? /\bINTO\s+("?[\w.]+"?(?:\."?\w+"?)?)/i.exec(head)?.[1]
        : verb === 'UPDATE'
          ? /^UPDATE\s+("?[\w.]+"?(?:\."?\w+"?)?)/i.exec(head)?.[1]
          : verb === 'DELETE'
            ? /\bFROM\s+("?[\w.]+"?(?:\."?\w+"?)?)/i.exec(head)?.[1]
            : undefined;
  const bare = (table ?? '').replace(/"/g, '').split('.').pop() ?? '';
  return bare === '' ? verb : `${verb} ${bare}`;
}

function install(file: string): void {
  const counts: SqlCounts = { total: 0, byKind: {} };
  const prototype = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]): unknown {
    const config = args[0];
    const text =
      typeof config === 'string'
        ? config
        : typeof config === 'object' && config !== null && typeof (config as { text?: unknown }).text === 'string'
          ? (config as { text: string }).text
          : '';
    const kind = statementKind(text);
    counts.total += 1;
    counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
    return original.apply(this, args);
  };
  setInterval(() => writeFileSync(file, JSON.stringify(counts)), 200).unref();
}

const target = process.env['BENCH_SQL_COUNT_FILE'];
if (target !== undefined && target !== '') {
  install(target);
}
