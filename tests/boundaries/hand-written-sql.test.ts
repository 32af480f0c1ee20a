import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The README's rule for SQL: the ORM for rows of an entity, Kysely from `sqlOf(em)` for every other
// statement, SQL text only in migrations. This finds SQL spelled by hand anywhere else in the
// services and packages: a string handed to `execute`, a statement handed to a pg client's
// `query`, a string condition handed to a MikroORM query builder, or a whole statement in a
// Kysely `sql` template.

const ROOT = resolve(import.meta.dirname, '../..');
const WORKSPACE_FOLDERS = ['packages', 'services'];

/** Files that hold SQL text by nature: migrations, and the kit's tables as they were first created (which migrations call). */
const SQL_TEXT_ALLOWED = [/\/migrations\//, /^packages\/service-kit\/src\/migration-sql\.ts$/];

const isTestFile = (path: string): boolean => /\.test\.ts$/.test(path) || /\/(test|testing|scripts)\//.test(path);

const sourceFiles = (): string[] =>
  WORKSPACE_FOLDERS.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.parentPath.includes('node_modules'))
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
  )
    .filter((path) => path.includes('/src/') && !isTestFile(path) && !SQL_TEXT_ALLOWED.some((pattern) => pattern.test(path)))
    .sort();

const isText = (node: ts.Node | undefined): boolean =>
  node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node));

const STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/** A statement on data or schema (a LISTEN on a connection of its own is neither). */
const STATEMENT_OR_DDL = /^\s*(select|insert|update|delete|with|merge|create|drop|alter|truncate)\b/i;

const literalText = (node: ts.Node): string | undefined => {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return templateText(node);
  return undefined;
};

const templateText = (template: ts.TemplateLiteral): string =>
  ts.isNoSubstitutionTemplateLiteral(template) ? template.text : [template.head.text, ...template.templateSpans.map((span) => span.literal.text)].join('?');

/** What in `file` is SQL spelled by hand, each as `line: code`. */
const handWrittenSqlIn = (file: string): string[] => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const report = (node: ts.Node): void => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${line + 1}: ${node.getText(source).split('\n')[0]!.slice(0, 100)}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const [first] = node.arguments;
      // `em.execute('select …')`, `connection.execute(SQL, …)`: the ORM's raw escape hatch.
      // (A query builder's `execute('run')` names a result mode, not SQL.)
      const isResultMode = first !== undefined && ts.isStringLiteral(first) && ['all', 'get', 'run'].includes(first.text);
      if (method === 'execute' && first !== undefined && !isResultMode && (isText(first) || ts.isIdentifier(first) || ts.isCallExpression(first) || ts.isPropertyAccessExpression(first))) report(node);
      // `qb.andWhere('(occurred_at, id) > (?, ?)', …)`: column names spelled in a string.
      // (Kysely's `where('workspaceId', '=', id)` names a column: one word, no SQL around it.)
      if (['where', 'andWhere', 'orWhere', 'having'].includes(method) && first !== undefined && isText(first) && /[\s?()]/.test(first.getText(source))) report(node);
      // `client.query('select …')`, `pool.query(`update …`)`: a statement handed straight to a pg client.
      const text = first === undefined ? undefined : literalText(first);
      if (method === 'query' && text !== undefined && STATEMENT_OR_DDL.test(text)) report(node);
    }
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === 'sql' && STATEMENT.test(templateText(node.template))) report(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

describe('SQL written by hand', () => {
  const files = sourceFiles();

  it('is looked for in every service and package', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it.each(files.map((file) => [file]))('%s spells none outside Kysely and the ORM', (file) => {
    expect(handWrittenSqlIn(file)).toEqual([]);
  });
});
