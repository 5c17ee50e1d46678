// Role passwords: generated on first use, kept in files of mode 0600 in a 0700 folder
// outside git (BRAIN_HOME/secrets by default), never printed or logged.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class SecretStore {
  constructor(readonly dir: string) {}

  path(role: string): string {
    return join(this.dir, `${role}.password`);
  }

  read(role: string): string | undefined {
    const file = this.path(role);
    if (!existsSync(file)) return undefined;
    const value = readFileSync(file, 'utf8').trim();
    if (value.length === 0) throw new Error(`${file} is empty; delete it to have a new password generated`);
    return value;
  }

  /** Returns the role's password, generating and storing one if there is none yet. */
  ensure(role: string): { password: string; created: boolean } {
    const existing = this.read(role);
    if (existing !== undefined) return { password: existing, created: false };
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const password = randomBytes(24).toString('base64url');
    // 'wx' fails if another process created the file meanwhile; then read theirs.
    try {
      writeFileSync(this.path(role), `${password}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { password: this.read(role)!, created: false };
      throw error;
    }
    return { password, created: true };
  }
}
