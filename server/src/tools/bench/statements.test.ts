// statementsIn counts what MySQL runs of one query text: the statement-budget test and the bench read their
// numbers from it (ADR 0045, ADR 0070).
import { describe, expect, it } from 'vitest';
import { statementsIn } from './statements';

describe('statementsIn', () => {
  it('counts the statements a separator starts, not a trailing one', () => {
    expect(statementsIn('SELECT 1')).toBe(1);
    expect(statementsIn('SELECT 1;')).toBe(1);
    expect(statementsIn('SELECT 1;  \n')).toBe(1);
    expect(statementsIn('START TRANSACTION;\nUPDATE t SET a = 1;\nCOMMIT')).toBe(3);
    expect(statementsIn('SELECT 1;;  ;\nSELECT 2')).toBe(2);
    expect(statementsIn(';SELECT 1')).toBe(2);
  });

  it('skips separators inside quoted values and identifiers', () => {
    expect(statementsIn("INSERT INTO t VALUES ('a;b'); SELECT 1")).toBe(2);
    expect(statementsIn("INSERT INTO t VALUES ('it\\'s; fine'); SELECT 1")).toBe(2);
    expect(statementsIn("INSERT INTO t VALUES ('it''s; fine'); SELECT 1")).toBe(2);
    expect(statementsIn('SELECT "x;y", `a;b` FROM t; SELECT 2')).toBe(2);
    expect(statementsIn('SELECT `a``;b` FROM t')).toBe(1);
    // a statement after a separator may begin with a quote
    expect(statementsIn("SELECT 1;'x'")).toBe(2);
  });

  it('reads an unterminated quote to the end of the text', () => {
    expect(statementsIn("SELECT 'a; SELECT 2")).toBe(1);
    expect(statementsIn("SELECT 'a\\")).toBe(1);
  });

  it('counts a batched transaction with JSON values in it', () => {
    const body = JSON.stringify({ claims: { given_name: 'Ana; Maria', note: "it's" } }).replace(/'/g, "\\'");
    const text = [
      'START TRANSACTION',
      "UPDATE session SET status = 'completed' WHERE id = 'sess_1'",
      `INSERT INTO e (b) VALUES ('${body}')`,
      'COMMIT',
    ].join(';\n');
    expect(statementsIn(text)).toBe(4);
  });
});
