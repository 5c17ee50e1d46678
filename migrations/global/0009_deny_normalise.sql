-- The deny-list normalises before it matches (issue 15). A motivated writer can spell a
-- listed word so that a plain regular expression does not see it: a zero-width space, a
-- Cyrillic letter, full-width letters, **emphasis**, `ilsabet_marrow`, an HTML entity, a
-- %-escape, a defanged address. Every value is therefore folded once, and the rules are
-- matched against the folded text:
--
--   deny_decode(t)  HTML entities (&nbsp; &amp; &#64; &#x41;), %-escapes (%20, %C3%A9),
--                   backslash escapes (\u0041, \x41, \n): decoded.
--   deny_fold(t)    the decoded text, Unicode NFKD (full-width, ligatures, math letters,
--                   no-break spaces become plain ones), combining marks, zero-width and
--                   bidi controls and the soft hyphen removed, Cyrillic and Greek
--                   look-alikes of Latin letters folded to Latin, defanged `[.]` `(at)`
--                   written plainly. Case is kept (the entropy rule needs it). The PII
--                   rules of deny-list.yaml match this text, case-insensitively.
--   deny_words(t)   from deny_fold(): lower case, HTML tags, markdown emphasis (* ~ `)
--                   and hyphenated line breaks removed, and every run of separators
--                   (space, - _ . , ; : / \ | quotes brackets ! ? # = & +) one space. The
--                   subject tokens match this text.
--
-- A subject's tokens are compiled by deny_token_pattern() through the same two functions,
-- so a token and the text are folded alike: its parts (words, and letter/digit runs, so
-- `VLAN 40` has the parts vlan and 40) may be joined by one separator or none, a leading
-- article is optional, a plural or possessive follows. The bootstrap stores the compiled
-- pattern (db/sync-deny-list.ts calls deny_token_pattern() and deny_allow_pattern()).
--
-- The matcher (deny_match) folds a value once and runs every rule on the folded text;
-- deny_check() folds all the fields of a row as one text first and names the field only
-- when that finds something. Both signatures are stable for other guards to call:
--   brain_private.deny_hit(value text) returns text        the refusal's class, or NULL
--   brain_private.deny_check(what text, fields text[], values text[])   raises BRD01

ALTER TABLE brain_private.deny_rules DROP CONSTRAINT deny_rules_check_fn_check;
ALTER TABLE brain_private.deny_rules ADD CONSTRAINT deny_rules_check_fn_check CHECK (check_fn IN ('luhn', 'ip', 'entropy'));

-- ---------------------------------------------------------------------------
-- Decoding. Each step runs only when its introducer is present, so plain text costs a few
-- strpos calls.
CREATE FUNCTION brain_private.deny_decode(input text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t text := input;
  m text[];
  n bigint;
  hi bigint;
  lo bigint;
  decoded text;
  pass int;
BEGIN
  IF t IS NULL OR t = '' THEN RETURN t; END IF;
  -- Backslash escapes, as JSON text and code write them.
  IF strpos(t, '\') > 0 THEN
    IF t ~* '\\u[0-9a-f]{4}' THEN
      FOR m IN SELECT DISTINCT x FROM regexp_matches(t, '\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})', 'gi') AS x LOOP
        hi := ('x' || lpad(m[1], 8, '0'))::bit(32)::bigint;
        lo := ('x' || lpad(m[2], 8, '0'))::bit(32)::bigint;
        t := replace(t, '\u' || m[1] || '\u' || m[2], chr((65536 + (hi - 55296) * 1024 + (lo - 56320))::int));
      END LOOP;
      FOR m IN SELECT DISTINCT x FROM regexp_matches(t, '\\u([0-9a-f]{4})', 'gi') AS x LOOP
        n := ('x' || lpad(m[1], 8, '0'))::bit(32)::bigint;
        IF n > 0 AND (n < 55296 OR n > 57343) THEN t := replace(t, '\u' || m[1], chr(n::int)); END IF;
      END LOOP;
    END IF;
    IF t ~* '\\u\{[0-9a-f]{1,6}\}' THEN
      FOR m IN SELECT DISTINCT x FROM regexp_matches(t, '\\u\{([0-9a-f]{1,6})\}', 'gi') AS x LOOP
        n := ('x' || lpad(m[1], 8, '0'))::bit(32)::bigint;
        IF n > 0 AND n <= 1114111 AND (n < 55296 OR n > 57343) THEN t := replace(t, '\u{' || m[1] || '}', chr(n::int)); END IF;
      END LOOP;
    END IF;
    IF t ~* '\\x[0-7][0-9a-f]' THEN
      FOR m IN SELECT DISTINCT x FROM regexp_matches(t, '\\x([0-7][0-9a-f])', 'gi') AS x LOOP
        n := ('x' || lpad(m[1], 8, '0'))::bit(32)::bigint;
        IF n > 0 THEN t := replace(t, '\x' || m[1], chr(n::int)); END IF;
      END LOOP;
    END IF;
    t := regexp_replace(t, '\\[nr]', E'\n', 'g');
    t := regexp_replace(t, '\\t', ' ', 'g');
    t := regexp_replace(t, '\\([/"''\\])', '\1', 'g');
  END IF;
  -- HTML entities, twice (for &amp;nbsp; and its kind).
  FOR pass IN 1 .. 2 LOOP
    EXIT WHEN strpos(t, '&') = 0 OR t !~* '&(?:#x?[0-9a-f]+|[a-z]+[0-9]*);?';
    FOR m IN SELECT DISTINCT x FROM regexp_matches(t, '&#(x[0-9a-f]{1,6}|[0-9]{1,7});?', 'gi') AS x LOOP
      n := CASE WHEN lower(left(m[1], 1)) = 'x' THEN ('x' || lpad(substr(m[1], 2), 8, '0'))::bit(32)::bigint ELSE m[1]::bigint END;
      IF n > 0 AND n <= 1114111 AND (n < 55296 OR n > 57343) THEN
        t := regexp_replace(t, '&#' || m[1] || ';?', chr(n::int), 'g');
      END IF;
    END LOOP;
    IF t ~* '&[a-z]+;' THEN
      t := replace(replace(replace(replace(replace(replace(replace(replace(t,
             '&nbsp;', ' '), '&NBSP;', ' '), '&shy;', ''), '&zwsp;', ''), '&zwj;', ''), '&zwnj;', ''), '&lrm;', ''), '&rlm;', '');
      t := replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(t,
             '&period;', '.'), '&commat;', '@'), '&lowbar;', '_'), '&hyphen;', '-'), '&dash;', '-'), '&ndash;', '-'), '&mdash;', '-'),
             '&colon;', ':'), '&sol;', '/'), '&ensp;', ' ');
      t := replace(replace(replace(replace(replace(replace(replace(replace(t,
             '&emsp;', ' '), '&thinsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&apos;', ''''), '&lpar;', '('), '&rpar;', ')');
      t := replace(replace(t, '&amp;', '&'), '&AMP;', '&');
    END IF;
  END LOOP;
  -- %-escapes, twice (%2520): each run that decodes to UTF-8 (a run that does not is left).
  FOR pass IN 1 .. 2 LOOP
    EXIT WHEN strpos(t, '%') = 0 OR t !~ '%[0-9A-Fa-f]{2}';
    FOR m IN SELECT DISTINCT x FROM regexp_matches(t, '((?:%[0-9A-Fa-f]{2})+)', 'g') AS x LOOP
      BEGIN
        decoded := convert_from(decode(replace(m[1], '%', ''), 'hex'), 'UTF8');
        t := replace(t, m[1], decoded);
      EXCEPTION WHEN OTHERS THEN
        NULL;
      END;
    END LOOP;
  END LOOP;
  RETURN t;
END
$$;

-- The folded text the PII rules see (case kept).
CREATE FUNCTION brain_private.deny_fold(input text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t text := brain_private.deny_decode(input);
BEGIN
  IF t IS NULL OR t = '' THEN RETURN t; END IF;
  IF octet_length(t) <> length(t) THEN
    -- Compatibility decomposition: full-width and math letters, ligatures, superscripts,
    -- no-break and other spaces become their plain forms; accents become combining marks.
    t := normalize(t, NFKD);
    -- Combining marks, zero-width characters, bidi controls, the soft hyphen, variation
    -- selectors, invisible fillers and tag characters go.
    t := regexp_replace(t,
      '[\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0610-\u061a\u064b-\u065f\u0670\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f\U000e0100-\U000e01ef]',
      '', 'g');
    -- Typographic quotes, dashes and dots, as their ASCII forms (regexp_replace costs per
    -- match; translate() would scan its whole list for every character of the text).
    IF t ~ '[\u2018-\u201f\u2032\u2033\u02bb\u02bc\u2010-\u2015\u2212\u2043\u00b7\u2027\u3002\u30fb\u2219\u22c5]' THEN
      t := regexp_replace(t, '[\u2018-\u201b\u2032\u02bb\u02bc]', '''', 'g');
      t := regexp_replace(t, '[\u201c-\u201f\u2033]', '"', 'g');
      t := regexp_replace(t, '[\u2010-\u2015\u2212\u2043]', '-', 'g');
      t := regexp_replace(t, '[\u00b7\u2027\u3002\u30fb\u2219\u22c5]', '.', 'g');
    END IF;
    -- Look-alikes: Cyrillic and Greek letters that pass for Latin ones, Latin letters
    -- without a decomposition (ø, ł, đ), small capitals, Armenian o/u/h/n/g. Only text that
    -- holds one of them pays for translate().
    IF t ~ '[\u0370-\u03ff\u0400-\u052f\u0531-\u058f\u0131\u0237\u0251\u0261\u0269\u00d0\u00f0\u00d8\u00f8\u0110\u0111\u0126\u0127\u0141\u0142\u0166\u0167\u0180\u0268\u0280\u0299\u029c\u029f\u028f\u0262\u026a\u0274\u1d00-\u1d22]' THEN
      t := translate(t,
        'аАвВеЕкКмМнНоОрРсСтТуУхХѕЅіІјЈһҺԁԀԛԚԝԜүҮӏӀьЬгпишαΑβΒγεΕΖηΗιΙκΚμΜνΝοΟρΡτΤυΥχΧωϲϹςϳıȷɑɡɩøØłŁđĐħĦŧŦðÐƀɨʀᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘᴛᴜᴠᴡʏᴢօսՍհոցԁ',
        'aAbBeEkKmMhHoOpPcCtTyYxXsSiIjJhHdDqQwWyYlIbbrnuwaAbByeEZnHiIkKuMvNoOpPtTuYxXwcCsjijagioOlLdDhHtTdDbiRABCDEGHIJKLMNOPTUVWYZouUhngd');
    END IF;
    IF t ~ '[ßæÆœŒþÞ]' THEN
      t := replace(replace(replace(replace(replace(replace(replace(t, 'ß', 'ss'), 'æ', 'ae'), 'Æ', 'AE'), 'œ', 'oe'), 'Œ', 'OE'), 'þ', 'th'), 'Þ', 'TH');
    END IF;
  END IF;
  -- Defanged addresses: 192[.]168(.)1{.}20, name[at]example[dot]com, [:] in IPv6.
  IF strpos(t, '[') > 0 OR strpos(t, '(') > 0 OR strpos(t, '{') > 0 OR strpos(t, '<') > 0 THEN
    t := regexp_replace(t, '\s*[\[({<]\s*(?:\.|dot)\s*[\])}>]\s*', '.', 'gi');
    t := regexp_replace(t, '\s*[\[({<]\s*(?:@|at)\s*[\])}>]\s*', '@', 'gi');
    t := regexp_replace(t, '\[:\]', ':', 'g');
  END IF;
  -- name @ example.com (a space on both sides; a handle such as @alice has none after).
  IF strpos(t, '@') > 0 AND t ~ '\s@\s' THEN t := regexp_replace(t, '\s+@\s+', '@', 'g'); END IF;
  RETURN t;
END
$$;

-- The word view the subject tokens see, from deny_fold()'s text.
CREATE FUNCTION brain_private.deny_words(folded text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t text := folded;
  m text;
BEGIN
  IF t IS NULL OR t = '' THEN RETURN t; END IF;
  IF octet_length(t) <> length(t) AND t ~ '[\u0391-\u03a9\u0400-\u042f]' THEN
    -- lower() folds only ASCII under the C locale: the other capitals of Cyrillic and Greek here.
    t := translate(t, 'ЀЁЂЃЄЅІЇЈЉЊЋЌЍЎЏАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ',
                      'ѐёђѓєѕіїјљњћќѝўџабвгдежзийклмнопрстуфхцчшщъыьэюяαβγδεζηθικλμνξοπρστυφχψω');
  END IF;
  t := lower(t);
  -- HTML tags go without a trace: <b>Ils</b>abet is Ilsabet.
  IF strpos(t, '<') > 0 THEN t := regexp_replace(t, '</?[a-z][^<>]{0,200}>', '', 'g'); END IF;
  IF strpos(t, E'\n') > 0 AND strpos(t, '-') > 0 THEN t := regexp_replace(t, '-[ \t]*\r?\n[ \t]*', '', 'g'); END IF;
  -- Markdown emphasis goes; every run of separators becomes one space. (regexp_replace:
  -- translate() costs a scan of its whole list per character, ten times as much here.)
  IF strpos(t, '*') > 0 OR strpos(t, '~') > 0 OR strpos(t, '`') > 0 THEN t := regexp_replace(t, '[*~`]+', '', 'g'); END IF;
  t := regexp_replace(t, '[\s\]\[._,;:/\\|''"(){}<>!?#=&+-]+', ' ', 'g');
  -- Letter-spaced words (t h o r n h o l l o w): four or more single letters or digits in a
  -- row are read as one word.
  IF t ~ '(?:\m[a-z0-9] +){3,}[a-z0-9]\M' THEN
    FOR m IN SELECT x[1] FROM regexp_matches(t, '((?:\m[a-z0-9] +){3,}[a-z0-9]\M)', 'g') AS x LOOP
      t := replace(t, m, replace(m, ' ', ''));
    END LOOP;
  END IF;
  RETURN t;
END
$$;

-- One part of a token as a pattern: each letter also as the digit or sign that stands in
-- for it (m1r3w00d, Il$abet), each digit also as its letter (nasO1), anything else escaped.
CREATE FUNCTION brain_private.deny_leet(part text) RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce(string_agg(CASE c
      WHEN 'a' THEN '[a4@]' WHEN 'b' THEN '[b8]' WHEN 'e' THEN '[e3]' WHEN 'i' THEN '[i1l]' WHEN 'l' THEN '[l1i]'
      WHEN 'o' THEN '[o0]' WHEN 's' THEN '[s5$]' WHEN 't' THEN '[t7]'
      WHEN '0' THEN '[0o]' WHEN '1' THEN '[1il]' WHEN '3' THEN '[3e]' WHEN '4' THEN '[4a]' WHEN '5' THEN '[5s]'
      WHEN '7' THEN '[7t]' WHEN '8' THEN '[8b]'
      ELSE regexp_replace(c, '([\\.^$|?*+()\[\]{}])', '\\\1')
    END, '' ORDER BY o), '')
  FROM regexp_split_to_table(part, '') WITH ORDINALITY AS x(c, o)
$$;

-- Compiles a subject's tokens into one pattern over deny_words() text. A token is folded
-- the way text is; split into parts at separators, at lower-to-upper case changes
-- (IlsabetMarrow) and between letters and digits (vlan40); a leading article is dropped
-- (it is optional in the text); the parts may be joined by one separator or none; a plural
-- (s, es, y -> ies) or a possessive ('s, which the word view writes as " s") may follow;
-- letters may be written as the digits that look like them (deny_leet).
-- Word boundaries where the token begins or ends with a letter or digit. '' for no tokens.
CREATE FUNCTION brain_private.deny_token_pattern(tokens text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  tok text;
  w text;
  parts text[];
  lastp text;
  pat text;
  alts text[] := '{}';
  i int;
BEGIN
  FOREACH tok IN ARRAY coalesce(tokens, '{}') LOOP
    w := regexp_replace(tok, '([a-z])([A-Z])', '\1 \2', 'g');
    w := brain_private.deny_words(brain_private.deny_fold(w));
    w := regexp_replace(w, '([[:alpha:]])([0-9])', '\1 \2', 'g');
    w := regexp_replace(w, '([0-9])([[:alpha:]])', '\1 \2', 'g');
    w := btrim(w);
    CONTINUE WHEN w = '';
    parts := regexp_split_to_array(w, ' +');
    IF array_length(parts, 1) > 1 AND parts[1] IN ('the', 'a', 'an') THEN parts := parts[2:]; END IF;
    FOR i IN 1 .. array_length(parts, 1) LOOP
      lastp := parts[i];
      IF i = array_length(parts, 1) AND lastp ~ '[^aeiou]y$' THEN
        parts[i] := brain_private.deny_leet(left(lastp, -1)) || '(?:y|ie)';
      ELSE
        parts[i] := brain_private.deny_leet(lastp);
      END IF;
    END LOOP;
    pat := array_to_string(parts, ' *');
    IF w ~ '^[[:alnum:]]' THEN pat := '\m' || pat; END IF;
    IF w ~ '[[:alnum:]]$' THEN pat := pat || '(?:e?s| +s)?\M'; END IF;
    alts := alts || ('(?:' || pat || ')');
  END LOOP;
  RETURN array_to_string(alts, '|');
END
$$;

-- The allow list as one alternation over deny_fold() text: each string folded like text.
CREATE FUNCTION brain_private.deny_allow_pattern(strings text[]) RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce(string_agg(regexp_replace(brain_private.deny_fold(s), '([\\.^$|?*+()\[\]{}])', '\\\1', 'g'), '|' ORDER BY o), '')
  FROM unnest(coalesce(strings, '{}'::text[])) WITH ORDINALITY AS u(s, o)
  WHERE s <> ''
$$;

-- ---------------------------------------------------------------------------
-- Checks a rule's match must pass (check: in deny-list.yaml).

-- An IPv4 or IPv6 address worth refusing. Not one: a loopback or unspecified address, a
-- netmask, a dotted number after a version word (Python 3.11.7.1, kernel 5.15.0.91), or
-- four small numbers led by a small one (1.5.2.0, 3.11.7.1: version strings; this also
-- lets public resolvers such as 1.1.1.1 and 8.8.8.8 through). Leading zeros are read as
-- decimal (192.168.040.001 is 192.168.40.1). The match may start with the word before it.
CREATE FUNCTION brain_private.deny_is_ip(candidate text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  c text := lower(btrim(candidate));
  m text[];
  word text;
  o int[];
BEGIN
  IF strpos(c, ':') > 0 THEN
    c := regexp_replace(c, '^.*\s', '');
    IF c !~ '[0-9]' THEN RETURN false; END IF;              -- add::, dead::beef reads as code
    IF c ~ '^[0:]*:0*1?$' THEN RETURN false; END IF;        -- ::1, ::, 0:0:0:0:0:0:0:1
    RETURN true;
  END IF;
  c := regexp_replace(c, '\s*\.\s*', '.', 'g');
  m := regexp_match(c, '^(?:([a-z]+)\s+)?0*([0-9]{1,3})\.0*([0-9]{1,3})\.0*([0-9]{1,3})\.0*([0-9]{1,3})$');
  IF m IS NULL THEN
    m := regexp_match(c, '^(?:([a-z]+)\s+)?([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)$');
    IF m IS NULL THEN RETURN false; END IF;
  END IF;
  word := m[1];
  o := ARRAY[m[2]::int, m[3]::int, m[4]::int, m[5]::int];
  IF o[1] > 255 OR o[2] > 255 OR o[3] > 255 OR o[4] > 255 THEN RETURN false; END IF;
  IF word IN ('v', 'ver', 'version', 'versions', 'release', 'rel', 'build', 'patch', 'tag', 'python', 'py', 'node', 'nodejs',
              'ruby', 'java', 'jdk', 'perl', 'php', 'go', 'golang', 'rust', 'rustc', 'gcc', 'clang', 'llvm', 'kernel',
              'firmware', 'bios', 'chrome', 'firefox', 'openssl', 'dotnet', 'scheme', 'semver', 'section', 'sections',
              'chapter', 'clause', 'paragraph', 'figure', 'fig', 'table', 'step', 'item', 'rule', 'article', 'part', 'appendix', 'oid') THEN
    RETURN false;
  END IF;
  IF o[1] IN (0, 127) THEN RETURN false; END IF;
  IF o[1] = 255 AND o[2] IN (0, 128, 192, 224, 240, 248, 252, 254, 255) AND o[3] IN (0, 128, 192, 224, 240, 248, 252, 254, 255)
     AND o[4] IN (0, 128, 192, 224, 240, 248, 252, 254, 255) THEN
    RETURN false;
  END IF;
  IF o[1] < 10 AND o[2] < 32 AND o[3] < 32 AND o[4] < 32 THEN RETURN false; END IF;
  RETURN true;
END
$$;

-- A long run of base64/base64url characters that reads as random: at least 32 characters
-- (padding aside), upper and lower case letters and digits, the character class changing
-- at least every third character, and few vowels among its letters. Identifiers
-- (CamelCase, snake_case), paths and words fail one of these; a pure hex run (a digest, a
-- commit, a UUID) is not taken for a secret here: hex after a key, token, secret or
-- password name is caught by the assignment rules.
CREATE FUNCTION brain_private.deny_looks_random(candidate text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  s text := rtrim(candidate, '=');
  core text;
  len int;
  changes int;
  letters int;
  vowels int;
BEGIN
  len := length(s);
  IF len < 32 THEN RETURN false; END IF;
  IF s ~ '^[0-9a-fA-F-]+$' THEN RETURN false; END IF;
  IF s !~ '[0-9]' OR s !~ '[a-z]' OR s !~ '[A-Z]' THEN RETURN false; END IF;
  core := regexp_replace(s, '[+/_=-]', '', 'g');
  len := length(core);
  IF len < 24 THEN RETURN false; END IF;
  changes := regexp_count(core, '[a-z](?=[A-Z0-9])|[A-Z](?=[a-z0-9])|[0-9](?=[A-Za-z])');
  IF changes * 3 < (len - 1) THEN RETURN false; END IF;
  letters := length(regexp_replace(core, '[^A-Za-z]', '', 'g'));
  vowels := length(regexp_replace(core, '[^AEIOUaeiou]', '', 'g'));
  IF letters > 0 AND vowels * 100 > letters * 30 THEN RETURN false; END IF;
  RETURN true;
END
$$;

-- A rule's pattern with its whole match as the first capture group (an embedded option
-- such as (?c) stays in front), for the check to see each match.
CREATE FUNCTION brain_private.deny_whole(pattern text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$ SELECT regexp_replace(pattern, '^(\(\?[a-z]+\))?(.*)$', '\1(\2)') $$;

CREATE FUNCTION brain_private.deny_check_match(check_fn text, candidate text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE check_fn
    WHEN 'luhn' THEN brain_private.luhn(candidate)
    WHEN 'ip' THEN brain_private.deny_is_ip(candidate)
    WHEN 'entropy' THEN brain_private.deny_looks_random(candidate)
    ELSE true
  END
$$;

-- ---------------------------------------------------------------------------
-- The screen: what every scanned value is matched against first, kept by triggers on the
-- rules. Postgres keeps only 32 compiled regular expressions per session (the least
-- recently used goes first); a loop over every rule's pattern for every value would compile
-- them all again on every write. So the PII rules that have no check, no embedded option
-- and no lookaround constraint (those make an alternation slow) are ONE alternation, the
-- others are tried one by one, and every subject's tokens are ONE alternation. A value that
-- passes the screen is done; only one it catches goes through the rules in order, to name
-- the first it breaks.
CREATE TABLE brain_private.deny_screen (
  id           integer PRIMARY KEY CHECK (id = 1),
  allow        text,
  combined     text,
  own_patterns text[] NOT NULL DEFAULT '{}',
  own_checks   text[] NOT NULL DEFAULT '{}',
  tokens       text
);

CREATE FUNCTION brain_private.deny_screen_refresh() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  DELETE FROM brain_private.deny_screen;
  INSERT INTO brain_private.deny_screen (id, allow, combined, own_patterns, own_checks, tokens)
  SELECT 1,
         (SELECT nullif(a.pattern, '') FROM brain_private.deny_allow a WHERE a.id = 1),
         string_agg('(?:' || d.pattern || ')', '|' ORDER BY d.id) FILTER (WHERE NOT d.token AND NOT d.own),
         coalesce(array_agg(d.pattern ORDER BY d.id) FILTER (WHERE NOT d.token AND d.own), '{}'),
         coalesce(array_agg(d.check_fn ORDER BY d.id) FILTER (WHERE NOT d.token AND d.own), '{}'),
         string_agg('(?:' || d.pattern || ')', '|' ORDER BY d.id) FILTER (WHERE d.token)
    FROM (SELECT r.id, r.pattern, r.check_fn, r.category LIKE 'subject-token:%' AS token,
                 (r.check_fn IS NOT NULL OR r.pattern ~ '^\(\?[a-z]+\)' OR r.pattern ~ '\(\?<?[=!]') AS own
            FROM brain_private.deny_rules r WHERE r.pattern <> '') d;
  RETURN NULL;
END
$$;

CREATE TRIGGER deny_rules_screen AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON brain_private.deny_rules
  FOR EACH STATEMENT EXECUTE FUNCTION brain_private.deny_screen_refresh();
CREATE TRIGGER deny_allow_screen AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON brain_private.deny_allow
  FOR EACH STATEMENT EXECUTE FUNCTION brain_private.deny_screen_refresh();
-- The rules already loaded (an existing brain): a no-op update fires the refresh.
UPDATE brain_private.deny_allow SET id = id WHERE false;

-- The first rule a value breaks: its label (what the refusal says) and category, or NULLs.
-- The value is folded once, and its word view made once (only when there are tokens).
CREATE FUNCTION brain_private.deny_match(input text, OUT label text, OUT category text)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t text;
  words text;
  camel text;
  sc record;
  suspect boolean := false;
  i int;
  r record;
  m text[];
BEGIN
  IF input IS NULL OR input = '' THEN RETURN; END IF;
  t := brain_private.deny_fold(input);
  SELECT s.allow, s.combined, s.own_patterns, s.own_checks, s.tokens INTO sc FROM brain_private.deny_screen s WHERE s.id = 1;
  IF NOT FOUND THEN RETURN; END IF;
  IF sc.allow IS NOT NULL THEN
    t := regexp_replace(t, sc.allow, ' ', 'gi');
  END IF;

  -- The screen.
  IF sc.combined IS NOT NULL AND t ~* sc.combined THEN suspect := true; END IF;
  IF NOT suspect THEN
    <<checked>>
    FOR i IN 1 .. coalesce(array_length(sc.own_patterns, 1), 0) LOOP
      CONTINUE WHEN NOT t ~* sc.own_patterns[i];
      IF sc.own_checks[i] IS NULL THEN suspect := true; EXIT checked; END IF;
      FOR m IN SELECT regexp_matches(t, brain_private.deny_whole(sc.own_patterns[i]), 'gi') LOOP
        IF brain_private.deny_check_match(sc.own_checks[i], m[1]) THEN suspect := true; EXIT checked; END IF;
      END LOOP;
    END LOOP;
  END IF;
  IF NOT suspect AND sc.tokens IS NOT NULL THEN
    words := brain_private.deny_words(t);
    -- A lower-to-upper case change may also be a word break (mirewoodMap), or not (UniFi):
    -- text with one is read both ways.
    IF t ~ '[a-z][A-Z]' THEN camel := brain_private.deny_words(regexp_replace(t, '([a-z])([A-Z])', '\1 \2', 'g')); END IF;
    suspect := words ~ sc.tokens OR coalesce(camel ~ sc.tokens, false);
  END IF;
  IF NOT suspect THEN RETURN; END IF;

  -- Name it: the first rule, in order, the value breaks.
  FOR r IN SELECT d.label, d.category, d.pattern, d.check_fn FROM brain_private.deny_rules d WHERE d.pattern <> '' ORDER BY d.id LOOP
    IF r.category LIKE 'subject-token:%' THEN
      IF words IS NULL THEN
        words := brain_private.deny_words(t);
        IF t ~ '[a-z][A-Z]' THEN camel := brain_private.deny_words(regexp_replace(t, '([a-z])([A-Z])', '\1 \2', 'g')); END IF;
      END IF;
      IF words ~ r.pattern OR coalesce(camel ~ r.pattern, false) THEN
        label := r.label; category := r.category; RETURN;
      END IF;
    ELSIF t ~* r.pattern THEN
      IF r.check_fn IS NULL THEN
        label := r.label; category := r.category; RETURN;
      END IF;
      FOR m IN SELECT regexp_matches(t, brain_private.deny_whole(r.pattern), 'gi') LOOP
        IF brain_private.deny_check_match(r.check_fn, m[1]) THEN
          label := r.label; category := r.category; RETURN;
        END IF;
      END LOOP;
    END IF;
  END LOOP;
END
$$;

-- Unchanged signature: the refusal's class for one value, or NULL.
CREATE OR REPLACE FUNCTION brain_private.deny_hit(input text) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$ SELECT (brain_private.deny_match(input)).label $$;

-- Refuses a write into personal that breaks a rule, naming the field and the class, never
-- the matched text, the rule's pattern or the subject a token belongs to. All the values
-- of a row are folded and scanned as one text first, joined by a line holding a control
-- character (a line break ends a value for the rules that look for one; the control
-- character is neither a separator nor a word character, so no token or PII rule reads
-- across it); only when that finds something is each field scanned on its own to name it.
-- A hit that only the join makes (none of the fields alone) is no hit. (So a rule must not
-- anchor on ^ or $ of the whole text: deny-list.yaml says so.)
CREATE OR REPLACE FUNCTION brain_private.deny_check(tbl text, fields text[], texts text[]) RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  i int;
  hit record;
  hint text;
BEGIN
  IF coalesce(array_length(texts, 1), 0) = 0 THEN RETURN; END IF;
  IF array_length(texts, 1) > 1 THEN
    hit := brain_private.deny_match(array_to_string(texts, E'\n\x01\n'));
    IF hit.label IS NULL THEN RETURN; END IF;
  END IF;
  FOR i IN 1 .. array_length(texts, 1) LOOP
    hit := brain_private.deny_match(texts[i]);
    IF hit.label IS NOT NULL THEN
      hint := CASE
        WHEN hit.category LIKE 'subject-token:%' THEN
          format('Nothing was written. Rewrite the %s without project-specific names (hosts, domains, people, places, code names), or keep this in its project.', fields[i])
        WHEN hit.label LIKE 'a secret%' OR hit.label = 'a private key' THEN
          format('Nothing was written. Take the secret out of the %s: keys, tokens and passwords do not belong in memory.', fields[i])
        ELSE
          format('Nothing was written. Remove %s from the %s, or keep this in its project. If it is a false positive, add the exact string under allow: in deny-list.yaml.', hit.label, fields[i])
      END;
      RAISE EXCEPTION 'refused by the deny-list: the % of this % write into personal contains %', fields[i], tbl, hit.label
        USING ERRCODE = 'BRD01', DETAIL = hit.label, HINT = hint;
    END IF;
  END LOOP;
END
$$;
