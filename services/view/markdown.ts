// A card's body as markdown. HTML in the text is never passed through (`html: false`: a
// `<script>` in a body is shown as text), and link targets go through markdown-it's own
// check, which refuses javascript:, vbscript:, file: and data: (other than images) URLs.
import MarkdownIt from 'markdown-it';
import { raw, type Html } from './html.js';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

// Links in a card lead out of the brain: no referrer, no opener.
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

export function renderMarkdown(text: string): Html {
  return raw(md.render(text));
}
