// The web view over a brain under test, as `brain view` builds it: the audit role's handle
// (SET LOCAL ROLE on PGlite, a real login on the server), the view context, the fastify app.
import { pino } from 'pino';
import type { BrainUnderTest } from '../support/brains.js';
import { SecretStore } from '../../db/secrets.js';
import { openEmbeddedAuditDb, openServerAuditDb, type AuditDb } from '../../services/view/audit-db.js';
import { buildViewApp, type ViewApp } from '../../services/view/app.js';
import { createViewContext, type ViewContext } from '../../services/view/context.js';
import { dirname } from 'node:path';

export interface ViewUnderTest {
  audit: AuditDb;
  view: ViewContext;
  app: ViewApp;
  close(): Promise<void>;
}

export function auditDbFor(brain: BrainUnderTest): AuditDb {
  const role = brain.config.auditRole;
  if (brain.embedded) return openEmbeddedAuditDb(brain.embedded, role);
  const password = new SecretStore(dirname(brain.secretsFile!(role))).read(role);
  if (!password) throw new Error(`no password for ${role}`);
  return openServerAuditDb(brain.location!, role, password);
}

export async function viewFor(brain: BrainUnderTest, opts: { token?: string; allowedHosts?: string[] } = {}): Promise<ViewUnderTest> {
  const audit = auditDbFor(brain);
  const view = await createViewContext(brain.config, audit.db);
  const app = await buildViewApp({ view, logger: pino({ level: 'silent' }), ...opts });
  return {
    audit,
    view,
    app,
    async close() {
      await app.close();
      await audit.close();
    },
  };
}
