// The Claude Code skills shipped in skills/, and installing them where Claude Code finds them:
// ~/.claude/skills (every project) or a project's .claude/skills. Each goes into a folder named
// for its `name:` (brain-session-close, ...), not its folder here (session-close), so it cannot
// clash with another skill called "query" or "ingest" in the same place.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/package.js';

export const SKILLS_DIR = join(PACKAGE_ROOT, 'skills');

/** Where Claude Code looks for a user's own skills (all projects). */
export const defaultSkillsTarget = (): string => join(homedir(), '.claude', 'skills');

export interface Skill {
  /** The frontmatter `name:`, which is also the installed folder's name. */
  name: string;
  description: string;
  /** The folder in this package. */
  source: string;
}

/** The skills in `dir`, each a folder with a SKILL.md whose frontmatter names and describes it. */
export function listSkills(dir = SKILLS_DIR): Skill[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'SKILL.md')))
    .map((e) => {
      const source = join(dir, e.name);
      const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(source, 'SKILL.md'), 'utf8'))?.[1] ?? '';
      const name = /^name:\s*(\S+)\s*$/m.exec(front)?.[1];
      if (!name) throw new Error(`${join(source, 'SKILL.md')} has no name: in its frontmatter`);
      // `description: |` then indented lines, or a one-line description.
      const block = /^description:\s*\|?\s*\n((?:[ \t]+.*\n?)+)/m.exec(front)?.[1];
      const description = (block ?? /^description:\s*(.+)$/m.exec(front)?.[1] ?? '').replace(/\s+/g, ' ').trim();
      return { name, description, source };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface InstalledSkill {
  name: string;
  path: string;
  action: 'installed' | 'updated' | 'unchanged';
}

function filesOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) {
      const path = join(e.parentPath, e.name);
      out.set(path.slice(dir.length), readFileSync(path, 'utf8'));
    }
  }
  return out;
}

function sameFiles(a: string, b: string): boolean {
  const x = filesOf(a);
  const y = filesOf(b);
  return x.size === y.size && [...x].every(([k, v]) => y.get(k) === v);
}

/**
 * Copies every skill into `target`/NAME. A skill already there with the same files is left
 * alone; one that differs (an older version, or edited by hand) is replaced whole, so a folder
 * holds exactly this version's files.
 */
export function installSkills(target: string, skills: readonly Skill[] = listSkills()): InstalledSkill[] {
  mkdirSync(target, { recursive: true });
  return skills.map((s) => {
    const path = join(target, s.name);
    const existed = existsSync(path);
    if (existed && sameFiles(s.source, path)) return { name: s.name, path, action: 'unchanged' };
    if (existed) rmSync(path, { recursive: true, force: true });
    cpSync(s.source, path, { recursive: true });
    return { name: s.name, path, action: existed ? 'updated' : 'installed' };
  });
}
