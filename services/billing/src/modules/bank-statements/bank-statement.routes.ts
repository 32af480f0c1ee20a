import { BANK_STATEMENT_CONTENT_TYPE, BANK_STATEMENT_MAX_BYTES, importBankStatement, listBankStatements, matchBankStatementEntry, retrieveBankStatement } from '@invoicing/contracts';
import { invalidRequest, registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { BankStatementsService } from './bank-statements.service.ts';

export const registerBankStatementRoutes = (app: ServiceApp, statements: BankStatementsService): void => {
  // The import takes XML, as text, up to 10 MB; in a scope of its own, so every other route keeps
  // taking JSON only, up to 1 MiB.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(BANK_STATEMENT_CONTENT_TYPE, { parseAs: 'string', bodyLimit: BANK_STATEMENT_MAX_BYTES }, (_request, body, done) => done(null, body));
    scope.addContentTypeParser('*', (_request, _payload, done) => done(invalidRequest(`A bank statement is sent with Content-Type: ${BANK_STATEMENT_CONTENT_TYPE}.`)));
    registerOperation(scope, importBankStatement, (request) => statements.import(actorOf(request), request.body));
  });
  registerOperation(app, listBankStatements, (request) => statements.list(actorOf(request), request.query));
  registerOperation(app, retrieveBankStatement, (request) => statements.retrieve(actorOf(request), request.params.id));
  registerOperation(app, matchBankStatementEntry, (request) => statements.match(actorOf(request), request.params.id, request.params.entry_id, request.body));
};
