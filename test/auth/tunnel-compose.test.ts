// docker-compose.tunnel.yml puts a tunnel in front of one chosen subject only: the subjects it
// changes take OAuth for themselves, have a public name only with it, and the tunnel's proxy
// points at that subject's own service and port in docker-compose.yml. (Compose itself is not
// run here; docs/remote.md says so.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../../config/package.js';

type Service = { environment?: Record<string, string>; profiles?: string[]; ports?: string[] };
const read = (f: string) => parse(readFileSync(join(PACKAGE_ROOT, f), 'utf8')) as { services: Record<string, Service>; configs?: Record<string, { content: string }> };

describe('the tunnel compose profile', () => {
  const tunnel = read('docker-compose.tunnel.yml');
  const stack = read('docker-compose.yml');

  it('changes only subjects it gives OAuth, each for itself, with a public name', () => {
    const subjects = Object.entries(tunnel.services).filter(([name]) => name.startsWith('brain-'));
    expect(subjects.length).toBe(1);
    for (const [name, service] of subjects) {
      const subject = name.slice('brain-'.length);
      expect(stack.services[name], name).toBeDefined();
      expect(service.environment?.BRAIN_OAUTH_SUBJECTS).toBe(subject);
      expect(service.environment?.BRAIN_PUBLIC_URLS).toMatch(new RegExp(`^${subject}=\\$\\{`));
      expect(service.environment?.BRAIN_SECRETS_DIR).toBeDefined();
    }
    // The tunnels run only in their profiles; nothing else is published.
    const tunnels = Object.entries(tunnel.services).filter(([name]) => !name.startsWith('brain-'));
    expect(tunnels.length).toBe(2);
    expect(tunnels.every(([, s]) => (s.profiles ?? []).length === 1 && !s.ports)).toBe(true);
  });

  it("the funnel proxies to that subject's service on its own port", () => {
    const funnel = JSON.parse(tunnel.configs!['funnel-homelab']!.content.replace(/\$\$/g, '$')) as { Web: Record<string, { Handlers: Record<string, { Proxy: string }> }> };
    const targets = Object.values(funnel.Web).flatMap((w) => Object.values(w.Handlers).map((h) => h.Proxy));
    expect(targets).toEqual([`http://brain-homelab:${stack.services['brain-homelab']!.environment!.BRAIN_PORT}`]);
  });
});
