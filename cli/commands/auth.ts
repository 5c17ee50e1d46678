// `brain auth`: the owner's side of OAuth for remote clients (docs/remote.md). Reads and
// writes the same store file the servers use (services/auth/store.ts), so it works whether
// the brain is running or not, and needs no database.
import { loadRuntimeConfig } from '../../config/runtime.js';
import { ApprovalError, approve, listGrants, listPending, revoke } from '../../services/auth/approval.js';
import { authStore } from '../../services/auth/for-subject.js';
import { CliError, parse, printJson, table } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain auth [list] [--json] | brain auth approve [REQUEST] [--read-only] | brain auth revoke GRANT_OR_CLIENT';

export const auth: Command = {
  usage,
  summary:
    'OAuth for remote clients: list waiting requests and grants; `auth approve REQUEST` prints the one-time code to type into the authorize page (--read-only grants brain:read only); `auth revoke` ends a grant at once.',
  async run(args) {
    const { values, positionals } = parse(args, { json: { type: 'boolean' }, 'read-only': { type: 'boolean' } }, usage);
    const [action = 'list', target, ...extra] = positionals;
    if (extra.length) throw new CliError(`unexpected "${extra.join(' ')}"\nusage: ${usage}`);
    const store = authStore(loadRuntimeConfig());
    const pending = () => listPending(store);
    const printPending = () => {
      const list = pending();
      process.stdout.write(
        list.length === 0
          ? 'No authorization request is waiting. Start one by connecting from the remote client.\n'
          : `${table([['REQUEST', 'SUBJECT', 'CLIENT', 'SENT BACK TO', 'SCOPE', 'EXPIRES IN'], ...list.map((p) => [p.id, p.subject, p.client, p.redirectHost, p.scope, `${p.expiresInSeconds} s`])])}\n`,
      );
    };
    if (action === 'list') {
      if (values.json) {
        printJson({ pending: pending(), grants: listGrants(store) });
        return 0;
      }
      printPending();
      const grants = listGrants(store);
      process.stdout.write(
        grants.length === 0
          ? '\nNo grants.\n'
          : `\n${table([['GRANT', 'SUBJECT', 'CLIENT', 'CLIENT ID', 'SCOPE', 'CREATED', 'LAST USED', 'STATE'], ...grants.map((g) => [g.id, g.subject, g.client, g.clientId, g.scope, g.created, g.lastUsed ?? '-', g.state])])}\n`,
      );
      return 0;
    }
    if (action === 'approve') {
      if (!target) {
        printPending();
        if (pending().length) process.stdout.write('\nApprove one with: brain auth approve REQUEST   (check the client and where it is sent back first)\n');
        return 0;
      }
      try {
        const { code, request } = approve(store, target, { readOnly: Boolean(values['read-only']) });
        if (values.json) printJson({ request, code });
        else {
          process.stdout.write(
            `Approved ${request.client} on ${request.subject} (${request.scope}), sent back to ${request.redirectHost}.\n` +
              `Type this one-time code into the page: ${code}\n`,
          );
        }
        return 0;
      } catch (error) {
        if (error instanceof ApprovalError) throw new CliError(error.message);
        throw error;
      }
    }
    if (action === 'revoke') {
      if (!target) throw new CliError(`name the grant or the client to revoke (brain auth list shows them)\nusage: ${usage}`);
      const n = revoke(store, target);
      if (n === 0) throw new CliError(`no active grant ${target}; brain auth list shows them`);
      process.stdout.write(`Revoked ${n} grant${n === 1 ? '' : 's'}: its access and refresh tokens no longer work.\n`);
      return 0;
    }
    throw new CliError(`unknown action "${action}"\nusage: ${usage}`);
  },
};
