// Which subjects are served with OAuth, and with what: from the runtime configuration
// (BRAIN_OAUTH_SUBJECTS, BRAIN_PUBLIC_URLS, BRAIN_OAUTH_ACCESS_MINUTES). Off by default: a
// subject not named keeps today's behaviour (loopback, optional bearer token).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RuntimeConfig } from '../../config/runtime.js';
import { ConfigError, type Subject } from '../../config/subjects.js';
import { OAuthAuthority } from './authority.js';
import { AuthStore } from './store.js';
import { randomToken } from './tokens.js';

const stores = new Map<string, AuthStore>();

/** The owner's store: one per secrets folder, shared by every subject of the process. */
export function authStore(rt: RuntimeConfig): AuthStore {
  let store = stores.get(rt.secretsDir);
  if (!store) stores.set(rt.secretsDir, (store = new AuthStore(rt.secretsDir)));
  return store;
}

/** Names in BRAIN_OAUTH_SUBJECTS that are not subjects: a typo would leave a subject open, so it stops the start. */
export function checkOAuthSubjects(rt: RuntimeConfig, subjects: readonly Subject[]): void {
  const names = new Set(subjects.map((s) => s.name));
  const unknown = [...rt.oauthSubjects, ...Object.keys(rt.publicUrls)].filter((n) => !names.has(n));
  if (unknown.length) throw new ConfigError(`BRAIN_OAUTH_SUBJECTS / BRAIN_PUBLIC_URLS: no subject named ${[...new Set(unknown)].join(', ')} (subjects: ${[...names].join(', ')})`);
}

/**
 * The subject's OAuth authority, or undefined when OAuth is off for it. With OAuth on, the
 * owner's own bearer token file (SECRETS/<role>.token) is made if there is none: it is how
 * the `brain` command and local clients still get in (running.json names it), with full access.
 */
export function oauthFor(rt: RuntimeConfig, subject: Subject, env: NodeJS.ProcessEnv = process.env): OAuthAuthority | undefined {
  if (!rt.oauthSubjects.includes(subject.name)) return undefined;
  const ownerToken = join(rt.secretsDir, `${subject.role}.token`);
  if (!env.BRAIN_TOKEN_FILE && !existsSync(ownerToken)) {
    mkdirSync(rt.secretsDir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(ownerToken, `${randomToken()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return new OAuthAuthority({ subject: subject.name, store: authStore(rt), publicUrl: rt.publicUrls[subject.name], accessTtlSeconds: rt.oauthAccessMinutes * 60, externalIssuer: rt.oauthIssuer });
}
