// node-postgres as every server connection of the brain uses it: int8 read as a JS number, as the
// embedded brain reads it (ids stay far below 2^53). Imported only where a server connection is
// made, so a command on the embedded brain never loads node-postgres.
import pg from 'pg';

pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export default pg;
