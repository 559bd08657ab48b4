// A word as a POSIX shell reads it back unchanged: for the commands hcp shows a person to copy into a terminal.

/** `s` as is when it holds only characters no shell treats specially, else in single quotes. */
export const shellWord = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
